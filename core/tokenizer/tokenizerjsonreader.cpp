#include "tokenizer/tokenizerjsonreader.h"

#include "io/inputfile.h"
#include "io/jsonduplicatekeys.h"
#include "io/strictjson.h"
#include "tokenizer/tokenizer.h"

#include <optional>

namespace attnscope::tok {

void fail(const QString& path, const QString& problem)
{
    throw TokenizerError((path + QStringLiteral(": ") + problem).toStdString());
}

QByteArray readFile(const QString& path, qint64 maxBytes)
{
    QString problem;
    std::optional<QByteArray> bytes = readInputFile(path, maxBytes, &problem);
    if (!bytes) fail(path, problem);
    return std::move(*bytes);
}

QJsonDocument parseJson(const QByteArray& data, const QString& path)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(data, &error);
    if (error.error != QJsonParseError::NoError)
        fail(path, QStringLiteral("invalid JSON at offset %1 (%2): %3")
                       .arg(error.offset)
                       .arg(jsonErrorPlace(data, error), error.errorString()));
    // QJsonDocument keeps the last of two equal keys silently: a second "[UNK]" or "unk_token" is refused.
    if (const std::optional<QStringList> duplicate = firstDuplicateJsonKey(data))
        fail(path,
             QStringLiteral("the key \"%1\" is given twice").arg(duplicate->join(QStringLiteral("\".\""))));
    return doc;
}

QJsonDocument readJson(const QString& path)
{
    return parseJson(readFile(path, kMaxJsonFileBytes), path);
}

} // namespace attnscope::tok
