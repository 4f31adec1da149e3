#include "model/modelcatalog.h"

#include "hub/hubsettings.h"
#include "io/inputfile.h"
#include "model/gguffile.h"
#include "model/ggufmodel.h"
#include "model/localrunners.h"
#include "model/memoryestimate.h"
#include "model/modelconfig.h"
#include "model/modelshape.h"
#include "model/modelerror.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <algorithm>

namespace attnscope {

namespace {

const char kRecentKey[] = "models/recent";
const char kFoldersKey[] = "models/folders";
constexpr int kMaxRecent = 10;

// Listing is best effort: an unreadable or hostile file (a FIFO, /dev/zero) describes nothing.
QJsonObject readJsonObject(const QString& path)
{
    QString problem;
    return QJsonDocument::fromJson(readInputFile(path, kMaxJsonFileBytes, &problem).value_or(QByteArray()))
        .object();
}

int firstInt(const QJsonObject& json, std::initializer_list<const char*> keys)
{
    for (const char* key : keys) {
        const QJsonValue v = json.value(QLatin1String(key));
        if (v.isDouble()) return v.toInt();
    }
    return 0;
}

qint64 weightBytes(const QDir& dir)
{
    qint64 total = 0;
    for (const QFileInfo& file : dir.entryInfoList({QStringLiteral("*.safetensors")}, QDir::Files))
        total += file.size(); // follows the cache's symlinks to the blobs
    return total;
}

// models--ORG--NAME -> "ORG/NAME"
QString cacheIdFromFolder(const QString& folderName)
{
    QString id = folderName.mid(int(qstrlen("models--")));
    const int separator = int(id.indexOf(QLatin1String("--")));
    if (separator >= 0) id.replace(separator, 2, QLatin1Char('/'));
    return id;
}

// The snapshot refs/main names, else the newest one, as long as it holds a .gguf file; "" otherwise.
QString ggufSnapshotOf(const QDir& repo)
{
    auto hasGguf = [](const QString& folder) {
        QDirIterator it(folder, {QStringLiteral("*.gguf"), QStringLiteral("*.GGUF")}, QDir::Files,
                        QDirIterator::Subdirectories);
        return it.hasNext();
    };
    QString problem;
    if (const std::optional<QByteArray> ref =
            readInputFile(repo.filePath(QStringLiteral("refs/main")), kMaxSmallFileBytes, &problem)) {
        const QString revision = QString::fromUtf8(*ref).trimmed();
        const QString path = repo.filePath(QStringLiteral("snapshots/") + revision);
        if (!revision.isEmpty() && !revision.contains(QLatin1String("..")) && hasGguf(path)) return path;
    }
    const QDir snapshots(repo.filePath(QStringLiteral("snapshots")));
    for (const QFileInfo& snapshot : snapshots.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Time))
        if (hasGguf(snapshot.filePath())) return snapshot.filePath();
    return QString();
}

QString snapshotOf(const QDir& repo)
{
    QString problem;
    if (const std::optional<QByteArray> ref =
            readInputFile(repo.filePath(QStringLiteral("refs/main")), kMaxSmallFileBytes, &problem)) {
        const QString revision = QString::fromUtf8(*ref).trimmed();
        const QString path = repo.filePath(QStringLiteral("snapshots/") + revision);
        if (!revision.isEmpty() && QFileInfo::exists(path + QStringLiteral("/config.json"))) return path;
    }
    const QDir snapshots(repo.filePath(QStringLiteral("snapshots")));
    for (const QFileInfo& snapshot : snapshots.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Time))
        if (QFileInfo::exists(snapshot.filePath() + QStringLiteral("/config.json")))
            return snapshot.filePath();
    return QString();
}

// Parameters and stored bytes from the weight files' headers; left 0 when they cannot be read (opening the
// model will say why).
void addFootprint(ModelInfo& info, const QString& folderOrGguf)
{
    try {
        const WeightFootprint footprint = weightFootprint(folderOrGguf, info.vocabSize);
        info.parameters = footprint.parameters;
        info.weightBytes = footprint.storedBytes;
        info.largestTensorElements = footprint.largestTensorElements;
        info.storedAsF32 = footprint.storedAsF32;
    } catch (const ModelError&) {
    }
}

} // namespace

QString ModelCatalog::resourcesDir()
{
    QStringList candidates;
    const QString env = qEnvironmentVariable("ATTNSCOPE_RESOURCES_DIR");
    if (!env.isEmpty()) candidates << env;
    if (QCoreApplication::instance())
        candidates << QCoreApplication::applicationDirPath() + QStringLiteral("/../share/attnscope");
#ifdef ATTNSCOPE_SOURCE_RESOURCES_DIR
    candidates << QStringLiteral(ATTNSCOPE_SOURCE_RESOURCES_DIR);
#endif
    for (const QString& candidate : candidates)
        if (QFileInfo(candidate).isDir()) return QDir(candidate).absolutePath();
    return QString();
}

QString ModelCatalog::huggingFaceHubDir()
{
    return hub::hubCacheDir(); // the folder `attnscope download` writes, as huggingface_hub resolves it
}

ModelProblem ModelCatalog::diagnose(const QString& folder)
{
    const QString shown = QDir::toNativeSeparators(folder);
    const QString configPath = QDir(folder).filePath(QStringLiteral("config.json"));
    const QFileInfo config(configPath);
    if (!config.exists() && !config.isSymLink()) return {ModelProblem::Kind::NoConfig, shown, {}};
    try {
        ModelConfig::fromFile(configPath); // the reader that says what is wrong with it
    } catch (const ModelError& e) {
        return e.problem();
    }
    return ModelProblem::other(shown, QStringLiteral("not a model folder (no readable config.json)"));
}

std::optional<ModelProblem> ModelCatalog::configProblem(const QString& folder)
{
    if (QFileInfo(folder).isFile()) return std::nullopt;
    try {
        ModelConfig::fromFile(QDir(folder).filePath(QStringLiteral("config.json")));
    } catch (const ModelError& e) {
        return e.problem();
    }
    return std::nullopt;
}

QString ModelCatalog::describeProblem(const QString& folder)
{
    return diagnose(folder).english();
}

std::optional<ModelInfo> ModelCatalog::describe(const QString& folder)
{
    if (QFileInfo(folder).isFile()) return describeGguf(folder);
    const QDir dir(folder);
    const QString configPath = dir.filePath(QStringLiteral("config.json"));
    if (!QFileInfo::exists(configPath)) return std::nullopt;
    const QJsonObject json = readJsonObject(configPath);
    if (json.isEmpty()) return std::nullopt;
    ModelInfo info;
    info.path = dir.absolutePath();
    info.name = info.path;
    info.fileBytes = weightBytes(dir);
    try {
        const ModelConfig config = ModelConfig::fromJson(json, configPath);
        describeModelShape(config, info);
    } catch (const ModelError&) { // described as far as config.json goes; opening it will say why not
        info.architecture = json.value(QLatin1String("model_type")).toString();
        info.kind = json.value(QLatin1String("is_decoder")).toBool() ? QStringLiteral("decoder")
                                                                     : QStringLiteral("unknown");
        info.layers = firstInt(json, {"num_hidden_layers", "n_layer"});
        info.heads = firstInt(json, {"num_attention_heads", "n_head"});
        info.kvHeads = firstInt(json, {"num_key_value_heads"});
        info.hidden = firstInt(json, {"hidden_size", "n_embd", "d_model"});
        info.vocabSize = firstInt(json, {"vocab_size"});
        info.maxPositions = firstInt(json, {"max_position_embeddings", "n_positions"});
        info.headDim = firstInt(json, {"head_dim"});
    }
    info.intermediate = firstInt(json, {"intermediate_size", "n_inner", "ffn_dim", "hidden_dim"});
    addFootprint(info, info.path);
    const QJsonObject extra = readJsonObject(dir.filePath(QStringLiteral("attnscope.json")));
    info.description = extra.value(QLatin1String("description")).toString();
    info.paragraphs = extra.value(QLatin1String("paragraphs")).toString();
    return info;
}

std::optional<ModelInfo> ModelCatalog::describeGguf(const QString& path)
{
    if (!GgufFile::isGgufPath(path)) return std::nullopt;
    ModelInfo info;
    info.path = QFileInfo(path).absoluteFilePath();
    info.name = info.path;
    info.fileBytes = QFileInfo(path).size(); // follows the cache's symlink to the blob
    try {
        const GgufFile file(path);
        info.architecture = file.string(QStringLiteral("general.architecture")).value_or(QString());
        info.kind = QStringLiteral("unknown");
        info.description = file.string(QStringLiteral("general.name")).value_or(QString());
        const GgufModelDescription description = describeGgufModel(file);
        const ModelConfig config = ModelConfig::fromJson(description.config, file.displayPath());
        describeModelShape(config, info);
        info.intermediate = firstInt(description.config, {"intermediate_size"});
    } catch (const ModelError&) { // listed as far as its header goes; opening it will say why not
    }
    addFootprint(info, info.path);
    return info;
}

QVector<ModelInfo> ModelCatalog::builtinModels()
{
    QVector<ModelInfo> models;
    const QString resources = resourcesDir();
    if (resources.isEmpty()) return models;
    const QDir dir(resources + QStringLiteral("/models"));
    for (const QString& name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        std::optional<ModelInfo> info = describe(dir.filePath(name));
        if (!info) continue;
        info->name = name;
        info->builtin = true;
        models.push_back(*info);
    }
    return models;
}

QVector<ModelInfo> ModelCatalog::cachedModels(const QString& hubDir)
{
    QVector<ModelInfo> models;
    const QDir hub(hubDir);
    for (const QString& repo :
         hub.entryList({QStringLiteral("models--*")}, QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QString snapshot = snapshotOf(QDir(hub.filePath(repo)));
        if (!snapshot.isEmpty()) {
            if (std::optional<ModelInfo> info = describe(snapshot)) {
                info->name = cacheIdFromFolder(repo);
                models.push_back(*info);
            }
        }
        // llama.cpp's files: every .gguf of the revision refs/main names (else the newest snapshot), named
        // "ORG/NAME/FILE.gguf".
        const QString ggufSnapshot = ggufSnapshotOf(QDir(hub.filePath(repo)));
        if (ggufSnapshot.isEmpty()) continue;
        QDirIterator files(ggufSnapshot, {QStringLiteral("*.gguf"), QStringLiteral("*.GGUF")}, QDir::Files,
                           QDirIterator::Subdirectories);
        QStringList paths;
        while (files.hasNext())
            paths << files.next();
        paths.sort();
        for (const QString& path : paths) {
            std::optional<ModelInfo> info = describeGguf(path);
            if (!info) continue;
            info->name =
                cacheIdFromFolder(repo) + QLatin1Char('/') + QDir(ggufSnapshot).relativeFilePath(path);
            models.push_back(*info);
        }
    }
    return models;
}

QVector<ModelInfo> ModelCatalog::localRunnerModels()
{
    return LocalRunners::scanAll().models;
}

QVector<ModelInfo> ModelCatalog::allModels()
{
    return builtinModels() + cachedModels() + localRunnerModels();
}

QStringList ModelCatalog::modelFolders()
{
    QStringList folders;
    for (const QString& folder : QSettings().value(QLatin1String(kFoldersKey)).toStringList())
        if (QFileInfo(folder).isDir() && !folders.contains(folder)) folders << folder;
    return folders;
}

void ModelCatalog::addModelFolder(const QString& folder)
{
    const QString absolute = QFileInfo(folder).absoluteFilePath();
    QStringList folders = modelFolders();
    if (folders.contains(absolute)) return;
    folders << absolute;
    QSettings().setValue(QLatin1String(kFoldersKey), folders);
}

QVector<ModelInfo> ModelCatalog::modelsInFolder(const QString& folder)
{
    const QDir root(folder);
    QStringList paths;
    if (QFileInfo::exists(root.filePath(QStringLiteral("config.json")))) paths << root.absolutePath();
    for (const QString& sub : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
        if (QFileInfo::exists(root.filePath(sub + QStringLiteral("/config.json"))))
            paths << root.absoluteFilePath(sub);
    const int rootDepth = int(root.absolutePath().count(QLatin1Char('/')));
    QDirIterator files(root.absolutePath(), {QStringLiteral("*.gguf"), QStringLiteral("*.GGUF")}, QDir::Files,
                       QDirIterator::Subdirectories);
    while (files.hasNext()) {
        const QString path = files.next();
        if (path.count(QLatin1Char('/')) - rootDepth <= 4) paths << path; // the file and three folders
    }
    paths.sort();
    QVector<ModelInfo> models;
    for (const QString& path : paths) {
        std::optional<ModelInfo> info = describe(path);
        if (!info) continue;
        info->name = path == root.absolutePath() ? root.dirName() : root.relativeFilePath(path);
        models.push_back(*info);
    }
    return models;
}

QStringList ModelCatalog::recent()
{
    QSettings settings;
    QStringList folders;
    for (const QString& folder : settings.value(QLatin1String(kRecentKey)).toStringList())
        if ((QFileInfo(folder).isDir() || QFileInfo(folder).isFile()) && !folders.contains(folder))
            folders << folder;
    return folders.mid(0, kMaxRecent);
}

void ModelCatalog::addRecent(const QString& folder)
{
    const QString absolute = QFileInfo(folder).absoluteFilePath();
    QStringList folders = recent();
    folders.removeAll(absolute);
    folders.prepend(absolute);
    QSettings settings;
    settings.setValue(QLatin1String(kRecentKey), folders.mid(0, kMaxRecent));
}

QString ModelCatalog::resolve(const QString& nameOrPath)
{
    if (nameOrPath.isEmpty()) throw ModelError(QStringLiteral("--model"), QStringLiteral("no model given"));
    const QFileInfo asPath(nameOrPath);
    if (asPath.isDir()) return asPath.absoluteFilePath();
    if (asPath.isFile() && GgufFile::isGgufPath(nameOrPath)) return asPath.absoluteFilePath();
    for (const ModelInfo& builtin : builtinModels())
        if (builtin.name == nameOrPath) return builtin.path;
    const QString hub = huggingFaceHubDir();
    QString repo = QStringLiteral("models--") + nameOrPath;
    repo.replace(QLatin1Char('/'), QStringLiteral("--"));
    if (!nameOrPath.contains(QLatin1String("..")) && QFileInfo(hub + QLatin1Char('/') + repo).isDir()) {
        const QString snapshot = snapshotOf(QDir(hub + QLatin1Char('/') + repo));
        if (!snapshot.isEmpty()) return QDir(snapshot).absolutePath();
        throw ModelError(QDir::toNativeSeparators(hub + QLatin1Char('/') + repo),
                         QStringLiteral("cached model has no snapshot with a config.json"));
    }
    // "ORG/NAME/FILE.gguf": a .gguf file of a cached repository.
    if (nameOrPath.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive) &&
        !nameOrPath.contains(QLatin1String(".."))) {
        const QStringList parts = nameOrPath.split(QLatin1Char('/'));
        for (int split = 1; split < parts.size(); ++split) {
            QString candidate = QStringLiteral("models--") + parts.mid(0, split).join(QStringLiteral("--"));
            const QString snapshot = ggufSnapshotOf(QDir(hub + QLatin1Char('/') + candidate));
            const QString file = snapshot + QLatin1Char('/') + parts.mid(split).join(QLatin1Char('/'));
            if (!snapshot.isEmpty() && QFileInfo(file).isFile()) return QFileInfo(file).absoluteFilePath();
        }
    }
    // "Ollama: llama3.2:1b" and the other local runners' names, as the picker shows them.
    if (nameOrPath.startsWith(QLatin1String("Ollama: ")) ||
        nameOrPath.startsWith(QLatin1String("LM Studio: ")) ||
        nameOrPath.startsWith(QLatin1String("llama.cpp: ")))
        for (const ModelInfo& local : localRunnerModels())
            if (local.name == nameOrPath) return local.path;
    QStringList builtinNames;
    for (const ModelInfo& builtin : builtinModels())
        builtinNames << builtin.name;
    throw ModelError(ModelProblem{ModelProblem::Kind::NoSuchModel,
                                  nameOrPath,
                                  {builtinNames.join(QStringLiteral(", ")), QDir::toNativeSeparators(hub)}});
}

} // namespace attnscope
