#include "model/modelvocabulary.h"

#include "io/inputfile.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace attnscope {

namespace {

// A JSON id as an integer, -1 when it is not a non-negative integer within range (a cast of 1e30 to an
// integer type would be undefined behaviour).
qint64 jsonId(const QJsonValue& value)
{
    const double d = value.toDouble(-1);
    return d >= 0 && d <= 1e15 && std::floor(d) == d ? qint64(d) : -1;
}

// The table grows only within the model's ids (`limit`), whatever a file claims.
void setEntry(std::vector<QString>& tokens, qint64 id, const QString& text, int limit)
{
    if (id < 0 || id >= limit) return;
    if (size_t(id) >= tokens.size()) tokens.resize(size_t(id) + 1);
    tokens[size_t(id)] = text;
}

// Labels are best effort: an unreadable file gives none here (the tokenizer's loader reports why).
QByteArray readBytes(const QString& path, qint64 maxBytes)
{
    QString problem;
    return readInputFile(path, maxBytes, &problem).value_or(QByteArray());
}

QJsonDocument readJson(const QString& path)
{
    return QJsonDocument::fromJson(readBytes(path, kMaxJsonFileBytes));
}

} // namespace

ModelVocabulary ModelVocabulary::fromFolder(const QString& folder, int vocabSize)
{
    const QDir dir(folder);
    ModelVocabulary vocabulary;
    std::vector<QString>& tokens = vocabulary.tokens;
    const QJsonDocument tokenizer = readJson(dir.filePath(QStringLiteral("tokenizer.json")));
    if (tokenizer.isObject()) {
        const QJsonValue vocab =
            tokenizer.object().value(QLatin1String("model")).toObject().value(QLatin1String("vocab"));
        if (vocab.isObject()) { // WordPiece, BPE: {"token": id}
            const QJsonObject object = vocab.toObject();
            for (auto it = object.begin(); it != object.end(); ++it)
                setEntry(tokens, jsonId(it.value()), it.key(), vocabSize);
        } else if (vocab.isArray()) { // Unigram: [["piece", score], ...]
            const QJsonArray array = vocab.toArray();
            for (qsizetype i = 0; i < array.size(); ++i)
                setEntry(tokens, i, array[i].toArray().at(0).toString(), vocabSize);
        }
        for (const QJsonValue& added : tokenizer.object().value(QLatin1String("added_tokens")).toArray())
            setEntry(tokens, jsonId(added.toObject().value(QLatin1String("id"))),
                     added.toObject().value(QLatin1String("content")).toString(), vocabSize);
    }
    if (tokens.empty()) {
        QList<QByteArray> lines =
            readBytes(dir.filePath(QStringLiteral("vocab.txt")), kMaxVocabularyFileBytes).split('\n');
        if (!lines.isEmpty() && lines.back().isEmpty()) lines.removeLast(); // the final newline
        qint64 id = 0;
        for (QByteArray& line : lines) {
            if (line.endsWith('\r')) line.chop(1);
            setEntry(tokens, id++, QString::fromUtf8(line), vocabSize);
        }
    }
    if (tokens.empty()) {
        const QJsonDocument vocabJson = readJson(dir.filePath(QStringLiteral("vocab.json")));
        const QJsonObject object = vocabJson.object();
        for (auto it = object.begin(); it != object.end(); ++it)
            setEntry(tokens, jsonId(it.value()), it.key(), vocabSize);
    }
    for (size_t i = 0; i < tokens.size(); ++i)
        if (tokens[i] == QLatin1String("[MASK]") || tokens[i] == QLatin1String("<mask>")) {
            vocabulary.maskId = int(i);
            break;
        }
    return vocabulary;
}

} // namespace attnscope
