#pragma once

// Reading tokenizer files (tokenizer.json, vocab.json, tokenizer_config.json): bounded reads, strict JSON,
// and typed fields whose errors say where the problem is. Every problem throws TokenizerError
// "<file>: <problem>". Shared by the loaders (tokenizerloader.cpp) and the tokenizer.json parts'
// parsers (tokenizerjsonparts.cpp).

#include "tokenizer/unicodechars.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <cmath>
#include <string>

namespace attnscope::tok {

[[noreturn]] void fail(const QString& path, const QString& problem);
// The file, at most maxBytes (io/inputfile.h's checks).
QByteArray readFile(const QString& path, qint64 maxBytes);
// Strict JSON: a syntax error names its place, a key given twice is refused.
QJsonDocument parseJson(const QByteArray& data, const QString& path);
// readFile (at most kMaxJsonFileBytes), then parseJson.
QJsonDocument readJson(const QString& path);

inline std::u32string u32(const QString& s)
{
    return toCodePoints(s);
}

// Reading typed fields with messages that say where the problem is.
class JsonReader
{
public:
    explicit JsonReader(QString path) : m_path(std::move(path)) {}
    const QString& path() const { return m_path; }

    [[noreturn]] void error(const QString& where, const QString& problem) const
    {
        fail(m_path, where + QStringLiteral(": ") + problem);
    }
    QJsonObject object(const QJsonValue& v, const QString& where) const
    {
        if (!v.isObject()) error(where, QStringLiteral("expected an object"));
        return v.toObject();
    }
    QJsonArray array(const QJsonValue& v, const QString& where) const
    {
        if (!v.isArray()) error(where, QStringLiteral("expected an array"));
        return v.toArray();
    }
    bool boolean(const QJsonObject& o, const QString& key, bool fallback, const QString& where) const
    {
        const QJsonValue v = o.value(key);
        if (v.isUndefined() || v.isNull()) return fallback;
        if (!v.isBool()) error(where + QLatin1Char('.') + key, QStringLiteral("expected true or false"));
        return v.toBool();
    }
    QString string(const QJsonObject& o, const QString& key, const QString& fallback,
                   const QString& where) const
    {
        const QJsonValue v = o.value(key);
        if (v.isUndefined() || v.isNull()) return fallback;
        if (!v.isString()) error(where + QLatin1Char('.') + key, QStringLiteral("expected a string"));
        return v.toString();
    }
    int integer(const QJsonValue& v, const QString& where) const
    {
        // Range first: converting 1e20 to an integer type is undefined behaviour.
        const double d = v.toDouble(-1);
        if (!v.isDouble() || !(d >= 0 && d <= 2147483647.0) || std::floor(d) != d)
            error(where, QStringLiteral("expected a non-negative integer"));
        return int(d);
    }
    char32_t character(const QJsonObject& o, const QString& key, char32_t fallback,
                       const QString& where) const
    {
        const QString s = string(o, key, QString(), where);
        if (s.isEmpty()) return fallback;
        const std::u32string cps = u32(s);
        if (cps.size() != 1)
            error(where + QLatin1Char('.') + key, QStringLiteral("expected a single character"));
        return cps[0];
    }

private:
    QString m_path;
};

} // namespace attnscope::tok
