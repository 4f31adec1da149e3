#include "model/localrunners.h"

#include "io/inputfile.h"
#include "model/gguffile.h"
#include "model/modelcatalog.h"
#include "model/modelerror.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace attnscope {

namespace {

constexpr qint64 kMaxManifestBytes = kMaxSmallFileBytes; // Ollama's are ~1 KB
const char kOllamaModelLayer[] = "application/vnd.ollama.image.model";
const char kOllamaDefaultHost[] = "registry.ollama.ai";
const char kOllamaDefaultNamespace[] = "library";

QString homeDir()
{
    return QDir::homePath(); // $HOME on Unix
}

QStringList subfolders(const QString& folder)
{
    return QDir(folder).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
}

// A GGUF file described for the picker, or the reason it cannot be.
void addGguf(LocalRunnerScan& scan, const QString& path, const QString& name)
{
    const QString problem = inputFileProblem(path);
    if (!problem.isEmpty()) {
        scan.skipped.push_back({path, problem});
        return;
    }
    try {
        const GgufFile header(path); // a file that is not GGUF says why here, rather than listing as unknown
    } catch (const ModelError& error) {
        scan.skipped.push_back({path, error.message()});
        return;
    }
    std::optional<ModelInfo> info = ModelCatalog::describeGguf(path);
    if (!info) {
        scan.skipped.push_back({path, QStringLiteral("not a GGUF file")});
        return;
    }
    info->name = name;
    scan.models.push_back(*info);
}

// manifests/<host>/<namespace>/<model>/<tag> -> "model:tag" for the default host and namespace, else
// "host/namespace/model:tag" (types/model/name.go, DisplayShortest).
QString ollamaName(const QString& host, const QString& space, const QString& model, const QString& tag)
{
    if (host == QLatin1String(kOllamaDefaultHost) && space == QLatin1String(kOllamaDefaultNamespace))
        return model + QLatin1Char(':') + tag;
    return host + QLatin1Char('/') + space + QLatin1Char('/') + model + QLatin1Char(':') + tag;
}

void addOllamaManifest(LocalRunnerScan& scan, const QString& blobs, const QString& manifestPath,
                       const QString& name)
{
    QString problem;
    const std::optional<QByteArray> bytes = readInputFile(manifestPath, kMaxManifestBytes, &problem);
    if (!bytes) {
        scan.skipped.push_back({manifestPath, problem});
        return;
    }
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(*bytes, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) {
        scan.skipped.push_back({manifestPath, QStringLiteral("not a JSON manifest")});
        return;
    }
    const QJsonArray layers = document.object().value(QLatin1String("layers")).toArray();
    for (const QJsonValue& layer : layers) {
        const QJsonObject object = layer.toObject();
        if (object.value(QLatin1String("mediaType")).toString() != QLatin1String(kOllamaModelLayer)) continue;
        // "sha256:<64 hex>" only: anything else ("../", "/etc/passwd") could name a file outside blobs/.
        static const QRegularExpression digestPattern(QStringLiteral("^sha256[:-]([0-9a-fA-F]{64})$"));
        const QString digest = object.value(QLatin1String("digest")).toString();
        const QRegularExpressionMatch match = digestPattern.match(digest);
        if (!match.hasMatch()) {
            scan.skipped.push_back(
                {manifestPath, QStringLiteral("the model layer's digest is not sha256:<64 hex digits>: %1")
                                   .arg(digest.left(100))});
            return;
        }
        const QString blob = blobs + QStringLiteral("/sha256-") + match.captured(1);
        if (const QString blobProblem = inputFileProblem(blob); !blobProblem.isEmpty()) {
            scan.skipped.push_back(
                {manifestPath,
                 QStringLiteral("its model blob %1: %2").arg(QFileInfo(blob).fileName(), blobProblem)});
            return;
        }
        addGguf(scan, blob, QStringLiteral("Ollama: ") + name);
        return;
    }
    scan.skipped.push_back(
        {manifestPath, QStringLiteral("no layer of mediaType %1").arg(QLatin1String(kOllamaModelLayer))});
}

// The Hub file a llama.cpp sidecar (<file>.json) names: "org/repo/file.gguf" from its "url"
// (https://<host>/<org>/<repo>/resolve/<rev>/<file>); "" when it has none.
QString llamaCppHubName(const QString& sidecar)
{
    QString problem;
    const std::optional<QByteArray> bytes = readInputFile(sidecar, kMaxSmallFileBytes, &problem);
    if (!bytes) return QString();
    const QString url = QJsonDocument::fromJson(*bytes).object().value(QLatin1String("url")).toString();
    static const QRegularExpression pattern(
        QStringLiteral("^https?://[^/]+/([^/]+/[^/]+)/resolve/[^/]+/(.+\\.gguf)$"),
        QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch match = pattern.match(url);
    if (!match.hasMatch() || url.contains(QLatin1String(".."))) return QString();
    return match.captured(1) + QLatin1Char('/') + match.captured(2);
}

} // namespace

LocalRunnerScan& LocalRunnerScan::operator+=(const LocalRunnerScan& other)
{
    models += other.models;
    skipped += other.skipped;
    return *this;
}

QString LocalRunners::ollamaModelsDir()
{
    const QString env = qEnvironmentVariable("OLLAMA_MODELS").trimmed();
    if (!env.isEmpty()) return env;
    return homeDir() + QStringLiteral("/.ollama/models");
}

QStringList LocalRunners::lmStudioModelsDirs()
{
    return {homeDir() + QStringLiteral("/.lmstudio/models"),
            homeDir() + QStringLiteral("/.cache/lm-studio/models")};
}

QString LocalRunners::llamaCppCacheDir()
{
    const QString env = qEnvironmentVariable("LLAMA_CACHE");
    if (!env.isEmpty()) return env;
    const QString xdg = qEnvironmentVariable("XDG_CACHE_HOME");
    if (!xdg.isEmpty()) return xdg + QStringLiteral("/llama.cpp");
    return homeDir() + QStringLiteral("/.cache/llama.cpp");
}

LocalRunnerScan LocalRunners::scanOllama(const QString& modelsDir)
{
    LocalRunnerScan scan;
    const QString manifests = modelsDir + QStringLiteral("/manifests");
    const QString blobs = modelsDir + QStringLiteral("/blobs");
    // Exactly four levels, as Ollama's own glob: a symbolic-link loop cannot make this recurse.
    for (const QString& host : subfolders(manifests))
        for (const QString& space : subfolders(manifests + QLatin1Char('/') + host))
            for (const QString& model :
                 subfolders(manifests + QLatin1Char('/') + host + QLatin1Char('/') + space)) {
                const QString folder =
                    manifests + QLatin1Char('/') + host + QLatin1Char('/') + space + QLatin1Char('/') + model;
                const QDir tags(folder);
                for (const QString& tag :
                     tags.entryList(QDir::Files | QDir::System | QDir::Hidden, QDir::Name))
                    addOllamaManifest(scan, blobs, tags.filePath(tag), ollamaName(host, space, model, tag));
            }
    return scan;
}

LocalRunnerScan LocalRunners::scanLmStudio(const QString& modelsDir)
{
    LocalRunnerScan scan;
    const QDir root(modelsDir);
    const QStringList patterns{QStringLiteral("*.gguf"), QStringLiteral("*.GGUF")};
    for (const QString& publisher : subfolders(modelsDir))
        for (const QString& repo : subfolders(root.filePath(publisher))) {
            const QDir folder(root.filePath(publisher + QLatin1Char('/') + repo));
            for (const QString& file : folder.entryList(patterns, QDir::Files | QDir::System, QDir::Name)) {
                if (file.startsWith(QLatin1String("mmproj"), Qt::CaseInsensitive)) {
                    scan.skipped.push_back(
                        {folder.filePath(file),
                         QStringLiteral("a vision projector (mmproj), not a language model")});
                    continue;
                }
                addGguf(scan, folder.filePath(file),
                        QStringLiteral("LM Studio: ") + publisher + QLatin1Char('/') + repo +
                            QLatin1Char('/') + file);
            }
        }
    return scan;
}

LocalRunnerScan LocalRunners::scanLlamaCpp(const QString& cacheDir)
{
    LocalRunnerScan scan;
    const QDir dir(cacheDir);
    const QStringList patterns{QStringLiteral("*.gguf"), QStringLiteral("*.GGUF")};
    for (const QString& file : dir.entryList(patterns, QDir::Files | QDir::System, QDir::Name)) {
        const QString hubName = llamaCppHubName(dir.filePath(file + QStringLiteral(".json")));
        addGguf(scan, dir.filePath(file),
                QStringLiteral("llama.cpp: ") + (hubName.isEmpty() ? file : hubName));
    }
    // Newer versions: a Hugging Face style cache in the same folder.
    for (ModelInfo info : ModelCatalog::cachedModels(cacheDir)) {
        info.name = QStringLiteral("llama.cpp: ") + info.name;
        scan.models.push_back(info);
    }
    return scan;
}

LocalRunnerScan LocalRunners::scanAll()
{
    LocalRunnerScan scan = scanOllama();
    for (const QString& dir : lmStudioModelsDirs())
        scan += scanLmStudio(dir);
    scan += scanLlamaCpp();
    return scan;
}

} // namespace attnscope
