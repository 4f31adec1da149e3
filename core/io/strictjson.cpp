#include "io/strictjson.h"

#include "io/jsonduplicatekeys.h"

#include <QStringList>
#include <algorithm>

namespace attnscope {

TextPlace placeOf(const QByteArray& bytes, qint64 offset)
{
    offset = std::clamp<qint64>(offset, 0, bytes.size());
    const qint64 line = std::count(bytes.cbegin(), bytes.cbegin() + offset, '\n') + 1;
    const qint64 lineStart = offset == 0 ? 0 : bytes.lastIndexOf('\n', offset - 1) + 1;
    return {line, offset - lineStart + 1};
}

QString lineAndColumn(const QByteArray& bytes, qint64 offset)
{
    const TextPlace place = placeOf(bytes, offset);
    return QStringLiteral("line %1, column %2").arg(place.line).arg(place.column);
}

QString jsonErrorPlace(const QByteArray& bytes, const QJsonParseError& error)
{
    return lineAndColumn(bytes, error.offset - 1);
}

std::optional<QJsonDocument> parseStrictJson(const QByteArray& bytes, QString* problem,
                                             JsonSyntaxError* syntax)
{
    QJsonParseError error;
    QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError) {
        if (syntax) *syntax = {placeOf(bytes, error.offset - 1), error.error, error.errorString()};
        *problem =
            QStringLiteral("not valid JSON (%1: %2)").arg(jsonErrorPlace(bytes, error), error.errorString());
        return std::nullopt;
    }
    if (const std::optional<QStringList> duplicate = firstDuplicateJsonKey(bytes)) {
        *problem =
            QStringLiteral("the key \"%1\" is given twice").arg(duplicate->join(QStringLiteral("\".\"")));
        return std::nullopt;
    }
    return document;
}

} // namespace attnscope
