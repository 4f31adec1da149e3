#pragma once

// JSON as AttnScope's input files must be: a syntax error is placed by line and column (a byte offset
// means nothing to someone with a text editor), and a key given twice in one object is refused, since
// QJsonDocument keeps the last of the two silently (a config.json with two "num_hidden_layers" ran
// whichever came last).

#include <QByteArray>
#include <QJsonDocument>
#include <QString>
#include <optional>

namespace attnscope {

// Line and column of a byte offset into `bytes` (both from 1; the column counts bytes).
struct TextPlace
{
    qint64 line = 0;
    qint64 column = 0;
};
TextPlace placeOf(const QByteArray& bytes, qint64 offset);
// "line 3, column 7" of a byte offset into `bytes`.
QString lineAndColumn(const QByteArray& bytes, qint64 offset);
// Where QJsonDocument stopped on `bytes`: its offset is just past the character it could not take, so this
// names that character, as Python's json module does ("line 3, column 13" for a missing colon before the
// value in column 13).
QString jsonErrorPlace(const QByteArray& bytes, const QJsonParseError& error);

// The document, or nullopt with *problem set: "not valid JSON (line 3, column 7: missing value
// separator)", "the key \"eos_token_id\" is given twice" (with its path, "\"model\".\"vocab\".\"a\"", when it
// is not at the top level).
// syntax, when given, receives the place and Qt's error code of a syntax error (error stays NoError for a
// key given twice), for a caller that words the problem itself.
struct JsonSyntaxError
{
    TextPlace place;
    QJsonParseError::ParseError error = QJsonParseError::NoError;
    QString words; // Qt's English for error
};
std::optional<QJsonDocument> parseStrictJson(const QByteArray& bytes, QString* problem,
                                             JsonSyntaxError* syntax = nullptr);

} // namespace attnscope
