#include "hub/hublisting.h"

#include "hub/hubnames.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>

namespace attnscope::hub {

namespace {

bool isLowerHex(const QString& text, int length)
{
    if (text.size() != length) return false;
    for (const QChar c : text)
        if (!((c >= QLatin1Char('0') && c <= QLatin1Char('9')) ||
              (c >= QLatin1Char('a') && c <= QLatin1Char('f'))))
            return false;
    return true;
}

// A JSON number that is a whole byte count a file could have (0 to 1e15). Tested before any
// conversion: a double past qint64's range turns into undefined behaviour when cast.
bool isByteCount(const QJsonValue& value)
{
    if (!value.isDouble()) return false;
    const double bytes = value.toDouble();
    return bytes >= 0 && bytes <= 1e15 && bytes == double(qint64(bytes));
}

// Files a tokenizer or a model's description may need, at the repo's top level.
bool isTokenizerOrConfig(const QString& path)
{
    static const QSet<QString> names = {QStringLiteral("config.json"),
                                        QStringLiteral("tokenizer.json"),
                                        QStringLiteral("tokenizer_config.json"),
                                        QStringLiteral("special_tokens_map.json"),
                                        QStringLiteral("vocab.txt"),
                                        QStringLiteral("vocab.json"),
                                        QStringLiteral("merges.txt"),
                                        QStringLiteral("tokenizer.model"),
                                        QStringLiteral("added_tokens.json"),
                                        QStringLiteral("spiece.model"),
                                        QStringLiteral("sentencepiece.bpe.model"),
                                        QStringLiteral("generation_config.json")};
    return names.contains(path);
}

bool endsWith(const QString& path, const char* suffix)
{
    return path.endsWith(QLatin1String(suffix), Qt::CaseInsensitive);
}

void putConfigFirst(std::vector<HubFile>& files)
{
    std::stable_partition(files.begin(), files.end(),
                          [](const HubFile& f) { return f.path == QLatin1String("config.json"); });
}

} // namespace

std::optional<HubListing> parseListing(const QByteArray& json, QString* error)
{
    auto fail = [&](const QString& problem) {
        if (error) *error = QStringLiteral("listing: ") + problem;
        return std::nullopt;
    };
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return fail(
            QStringLiteral("not JSON (%1 at byte %2)").arg(parseError.errorString()).arg(parseError.offset));
    if (!document.isObject()) return fail(QStringLiteral("not a JSON object"));
    const QJsonObject root = document.object();
    HubListing listing;
    listing.commit = root.value(QLatin1String("sha")).toString();
    if (!isLowerHex(listing.commit, 40)) return fail(QStringLiteral("\"sha\" is not a 40-digit commit hash"));
    if (!root.value(QLatin1String("siblings")).isArray())
        return fail(QStringLiteral("no \"siblings\" array"));
    QSet<QString> seen;
    for (const QJsonValue& value : root.value(QLatin1String("siblings")).toArray()) {
        const QJsonObject sibling = value.toObject();
        HubFile file;
        file.path = sibling.value(QLatin1String("rfilename")).toString();
        if (const QString problem = repoPathProblem(file.path); !problem.isEmpty())
            return fail(QStringLiteral("file name \"%1\" refused: %2").arg(file.path.left(200), problem));
        if (seen.contains(file.path)) return fail(QStringLiteral("\"%1\" is listed twice").arg(file.path));
        seen.insert(file.path);
        const QJsonValue size = sibling.value(QLatin1String("size"));
        if (size.isDouble()) {
            if (!isByteCount(size))
                return fail(QStringLiteral("\"%1\": size %2 is not a byte count").arg(file.path).arg(size.toDouble()));
            file.size = qint64(size.toDouble());
        }
        const QJsonObject lfs = sibling.value(QLatin1String("lfs")).toObject();
        if (!lfs.isEmpty()) {
            file.lfsSha256 = lfs.value(QLatin1String("sha256")).toString();
            if (!isLowerHex(file.lfsSha256, 64))
                return fail(QStringLiteral("\"%1\": lfs sha256 is not 64 hex digits").arg(file.path));
            const QJsonValue lfsSize = lfs.value(QLatin1String("size"));
            if (lfsSize.isDouble()) {
                if (!isByteCount(lfsSize))
                    return fail(QStringLiteral("\"%1\": lfs size %2 is not a byte count")
                                    .arg(file.path)
                                    .arg(lfsSize.toDouble()));
                if (file.size < 0) file.size = qint64(lfsSize.toDouble());
            }
        }
        listing.files.push_back(file);
    }
    return listing;
}

bool matchesGlob(const QString& path, const QString& glob)
{
    QString pattern;
    for (const QChar c : glob) {
        if (c == QLatin1Char('*'))
            pattern += QLatin1String(".*");
        else if (c == QLatin1Char('?'))
            pattern += QLatin1Char('.');
        else
            pattern += QRegularExpression::escape(QString(c));
    }
    const QRegularExpression re(QRegularExpression::anchoredPattern(pattern));
    return re.match(path).hasMatch();
}

HubSelection selectFiles(const HubListing& listing, const QStringList& includeGlobs)
{
    HubSelection selection;
    std::vector<HubFile> safetensors, gguf;
    for (const HubFile& f : listing.files) {
        if (endsWith(f.path, ".gguf")) gguf.push_back(f);
        if (!f.path.contains(QLatin1Char('/')) &&
            (endsWith(f.path, ".safetensors") || f.path == QLatin1String("model.safetensors.index.json")))
            safetensors.push_back(f);
    }
    for (const HubFile& f : listing.files)
        if (isTokenizerOrConfig(f.path)) selection.files.push_back(f);
    if (!includeGlobs.isEmpty()) {
        for (const HubFile& f : listing.files) {
            if (isTokenizerOrConfig(f.path)) continue;
            for (const QString& glob : includeGlobs)
                if (matchesGlob(f.path, glob)) {
                    selection.files.push_back(f);
                    break;
                }
        }
        const bool anyWeights =
            std::any_of(selection.files.begin(), selection.files.end(), [](const HubFile& f) {
                return endsWith(f.path, ".safetensors") || endsWith(f.path, ".gguf");
            });
        if (!anyWeights)
            selection.problem = QStringLiteral("no .safetensors or .gguf file matches --include %1")
                                    .arg(includeGlobs.join(QLatin1Char(' ')));
    } else if (!safetensors.empty()) {
        // Mistral-style repos carry consolidated.safetensors next to the transformers shards: the same
        // weights under other names, which AttnScope does not read.
        const bool hasShards = std::any_of(safetensors.begin(), safetensors.end(), [](const HubFile& f) {
            return f.path.startsWith(QLatin1String("model"));
        });
        for (const HubFile& f : safetensors)
            if (!hasShards || !f.path.startsWith(QLatin1String("consolidated"))) selection.files.push_back(f);
    } else if (!gguf.empty()) {
        selection.ggufChoices = gguf;
        selection.problem =
            QStringLiteral("the repository holds %1 .gguf files: pick one with --include FILE")
                .arg(gguf.size());
    } else {
        selection.problem =
            QStringLiteral("no .safetensors or .gguf weights in the repository (AttnScope does not "
                           "read pytorch_model.bin, tf_model.h5, flax_model.msgpack or ONNX)");
    }
    putConfigFirst(selection.files);
    return selection;
}

} // namespace attnscope::hub
