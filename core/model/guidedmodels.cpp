#include "model/guidedmodels.h"

#include "io/inputfile.h"
#include "model/modelerror.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace attnscope {

namespace {

const char kFormat[] = "attnscope-guided-models";
constexpr int kVersion = 1;
const char kResource[] = ":/guided/guided-models.json";

class EntryReader
{
public:
    EntryReader(const QString& fileName, const QString& where) : m_file(fileName), m_where(where) {}

    [[noreturn]] void fail(const QString& problem) const { throw ModelError(m_file, m_where + problem); }

    QString text(const QJsonObject& json, const char* key, bool required = true) const
    {
        const QJsonValue value = json.value(QLatin1String(key));
        if (value.isUndefined() && !required) return QString();
        if (!value.isString() || (required && value.toString().trimmed().isEmpty()))
            fail(QStringLiteral("\"%1\" must be a non-empty string").arg(QLatin1String(key)));
        return value.toString();
    }
    qint64 count(const QJsonObject& json, const char* key) const
    {
        const QJsonValue value = json.value(QLatin1String(key));
        // Whole numbers up to 2^53 are exact in a double; a model's bytes stay far below.
        if (!value.isDouble() || value.toDouble() < 0 ||
            value.toDouble() != double(qint64(value.toDouble())) || value.toDouble() > 9007199254740992.0)
            fail(QStringLiteral("\"%1\" must be a whole number >= 0").arg(QLatin1String(key)));
        return qint64(value.toDouble());
    }
    int positive(const QJsonObject& json, const char* key) const
    {
        const qint64 value = count(json, key);
        if (value < 1 || value > (1 << 30))
            fail(QStringLiteral("\"%1\" must be between 1 and 2^30").arg(QLatin1String(key)));
        return int(value);
    }
    bool flag(const QJsonObject& json, const char* key) const
    {
        const QJsonValue value = json.value(QLatin1String(key));
        if (!value.isBool()) fail(QStringLiteral("\"%1\" must be true or false").arg(QLatin1String(key)));
        return value.toBool();
    }
    QJsonObject object(const QJsonObject& json, const char* key) const
    {
        const QJsonValue value = json.value(QLatin1String(key));
        if (!value.isObject()) fail(QStringLiteral("\"%1\" must be an object").arg(QLatin1String(key)));
        return value.toObject();
    }

private:
    QString m_file;
    QString m_where;
};

// A Hub id: NAME or ORG/NAME of letters, digits, '-', '_', '.'; never "..".
bool isRepoId(const QString& repo)
{
    static const QRegularExpression pattern(
        QStringLiteral("^([A-Za-z0-9][A-Za-z0-9_.-]*/)?[A-Za-z0-9][A-Za-z0-9_.-]*$"));
    return pattern.match(repo).hasMatch() && !repo.contains(QLatin1String("..")) && repo.size() <= 96;
}

GuidedModel readEntry(const QJsonObject& json, const QString& fileName, int index)
{
    const QString id = json.value(QLatin1String("id")).toString();
    const EntryReader read(
        fileName,
        QStringLiteral("model %1 (%2): ").arg(index).arg(id.isEmpty() ? QStringLiteral("no id") : id));
    GuidedModel m;
    m.id = read.text(json, "id");
    m.repo = read.text(json, "repo");
    if (!isRepoId(m.repo)) read.fail(QStringLiteral("\"repo\" is not a Hub repository id: %1").arg(m.repo));
    m.file = read.text(json, "file", false);
    if (!m.file.isEmpty() && (m.file.contains(QLatin1Char('/')) || m.file.contains(QLatin1String("..")) ||
                              !m.file.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive)))
        read.fail(QStringLiteral("\"file\" must be one .gguf file name: %1").arg(m.file));
    const QJsonObject shows = read.object(json, "shows");
    m.showsEnglish = read.text(shows, "en");
    m.showsTurkish = read.text(shows, "tr");
    m.source = read.text(json, "source");
    m.licence = read.text(json, "licence");
    m.gated = read.flag(json, "gated");

    const QJsonObject download = read.object(json, "download");
    const QJsonObject files = read.object(download, "files");
    if (files.isEmpty()) read.fail(QStringLiteral("\"download\".\"files\" is empty"));
    for (auto it = files.begin(); it != files.end(); ++it) {
        if (it.key().contains(QLatin1String("..")) || it.key().startsWith(QLatin1Char('/')))
            read.fail(QStringLiteral("download file name leaves the repository: %1").arg(it.key()));
        QJsonObject one;
        one.insert(QStringLiteral("bytes"), it.value());
        const qint64 bytes = read.count(one, "bytes");
        if (bytes < 1) read.fail(QStringLiteral("download file %1 has no size").arg(it.key()));
        m.files.insert(it.key(), bytes);
    }
    if (!m.file.isEmpty() && (m.files.size() != 1 || !m.files.contains(m.file)))
        read.fail(QStringLiteral("a GGUF entry downloads exactly its \"file\" %1").arg(m.file));
    if (m.file.isEmpty() && !m.files.contains(QStringLiteral("config.json")))
        read.fail(QStringLiteral("a safetensors entry downloads config.json"));
    m.sizeEstimated = read.flag(download, "estimated");
    m.sizeBasis = read.text(download, "basis");

    const QJsonObject shape = read.object(json, "shape");
    ModelInfo& s = m.shape;
    s.name = m.repo;
    s.architecture = read.text(shape, "architecture");
    s.kind = read.text(shape, "kind");
    if (s.kind != QLatin1String("encoder") && s.kind != QLatin1String("decoder"))
        read.fail(QStringLiteral("\"kind\" must be \"encoder\" or \"decoder\""));
    s.layers = read.positive(shape, "layers");
    s.heads = read.positive(shape, "heads");
    s.kvHeads = read.positive(shape, "kvHeads");
    s.hidden = read.positive(shape, "hidden");
    s.headDim = read.positive(shape, "headDim");
    s.intermediate = read.positive(shape, "intermediate");
    s.vocabSize = read.positive(shape, "vocabSize");
    s.maxPositions = read.positive(shape, "maxPositions");
    if (s.heads % s.kvHeads != 0) read.fail(QStringLiteral("\"heads\" must be a multiple of \"kvHeads\""));
    s.weightBytes = read.count(shape, "weightBytes");
    s.fileBytes = s.weightBytes;
    s.largestTensorElements = read.count(shape, "largestTensorElements");
    s.storedAsF32 = read.flag(shape, "storedAsF32");
    if (s.weightBytes < 1 || s.weightBytes > m.downloadBytes())
        read.fail(QStringLiteral("\"weightBytes\" must be between 1 and the download's bytes"));
    m.memoryBytes = read.count(json, "memoryBytes");
    return m;
}

} // namespace

qint64 GuidedModel::downloadBytes() const
{
    qint64 total = 0;
    for (const qint64 bytes : files)
        total += bytes;
    return total;
}

QString GuidedModel::shows(const QString& language) const
{
    return language == QLatin1String("tr") ? showsTurkish : showsEnglish;
}

QString GuidedModel::downloadCommand() const
{
    QString command = QStringLiteral("attnscope download ") + repo;
    if (!file.isEmpty()) command += QStringLiteral(" --include ") + file;
    return command;
}

QVector<GuidedModel> GuidedModelCatalog::parse(const QByteArray& json, const QString& fileName)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        throw ModelError(
            fileName, QStringLiteral("not JSON (%1 at byte %2)").arg(error.errorString()).arg(error.offset));
    const QJsonObject root = document.object();
    if (root.value(QLatin1String("format")).toString() != QLatin1String(kFormat))
        throw ModelError(fileName, QStringLiteral("\"format\" is not \"%1\"").arg(QLatin1String(kFormat)));
    if (root.value(QLatin1String("version")).toInt(-1) != kVersion)
        throw ModelError(fileName, QStringLiteral("\"version\" is not %1").arg(kVersion));
    const QJsonArray models = root.value(QLatin1String("models")).toArray();
    if (models.isEmpty()) throw ModelError(fileName, QStringLiteral("\"models\" is missing or empty"));
    QVector<GuidedModel> list;
    for (int i = 0; i < models.size(); ++i) {
        if (!models.at(i).isObject())
            throw ModelError(fileName, QStringLiteral("model %1: not an object").arg(i));
        GuidedModel model = readEntry(models.at(i).toObject(), fileName, i);
        for (const GuidedModel& earlier : list)
            if (earlier.id == model.id)
                throw ModelError(fileName,
                                 QStringLiteral("model %1: id \"%2\" used twice").arg(i).arg(model.id));
        list.push_back(std::move(model));
    }
    return list;
}

QVector<GuidedModel> GuidedModelCatalog::load(const QString& path)
{
    QString problem;
    const std::optional<QByteArray> bytes = readInputFile(path, kMaxJsonFileBytes, &problem);
    if (!bytes) throw ModelError(path, problem);
    return parse(*bytes, path);
}

QVector<GuidedModel> GuidedModelCatalog::shipped()
{
    // A compiled-in resource: QFile reads it (readInputFile's stat checks are for files on disk).
    QFile file{QString::fromLatin1(kResource)};
    if (!file.open(QIODevice::ReadOnly))
        throw ModelError(QLatin1String(kResource), QStringLiteral("not in the build"));
    return parse(file.readAll(), QLatin1String(kResource));
}

QString GuidedModelCatalog::streamingDecoderId()
{
    return QStringLiteral("streaming-llm-decoder");
}

QString GuidedModelCatalog::sepHeadEncoderId()
{
    return QStringLiteral("bert-sep-no-op");
}

QString GuidedModelCatalog::sinkDecoderId()
{
    return QStringLiteral("gpt2-first-token-sink");
}

} // namespace attnscope
