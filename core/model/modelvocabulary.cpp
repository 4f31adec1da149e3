#include "model/modelvocabulary.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace attnscope {

namespace {

void setEntry(std::vector<QString>& tokens, qint64 id, const QString& text)
{
    if (id < 0 || id > 10'000'000) return;
    if (size_t(id) >= tokens.size()) tokens.resize(size_t(id) + 1);
    tokens[size_t(id)] = text;
}

QJsonDocument readJson(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(file.readAll());
}

} // namespace

ModelVocabulary ModelVocabulary::fromFolder(const QString& folder)
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
                setEntry(tokens, qint64(it.value().toDouble(-1)), it.key());
        } else if (vocab.isArray()) { // Unigram: [["piece", score], ...]
            const QJsonArray array = vocab.toArray();
            for (qsizetype i = 0; i < array.size(); ++i)
                setEntry(tokens, i, array[i].toArray().at(0).toString());
        }
        for (const QJsonValue& added : tokenizer.object().value(QLatin1String("added_tokens")).toArray())
            setEntry(tokens, qint64(added.toObject().value(QLatin1String("id")).toDouble(-1)),
                     added.toObject().value(QLatin1String("content")).toString());
    }
    if (tokens.empty()) {
        QFile vocabTxt(dir.filePath(QStringLiteral("vocab.txt")));
        if (vocabTxt.open(QIODevice::ReadOnly | QIODevice::Text)) {
            qint64 id = 0;
            while (!vocabTxt.atEnd())
                setEntry(tokens, id++, QString::fromUtf8(vocabTxt.readLine()).remove(QLatin1Char('\n')));
        }
    }
    if (tokens.empty()) {
        const QJsonDocument vocabJson = readJson(dir.filePath(QStringLiteral("vocab.json")));
        const QJsonObject object = vocabJson.object();
        for (auto it = object.begin(); it != object.end(); ++it)
            setEntry(tokens, qint64(it.value().toDouble(-1)), it.key());
    }
    for (size_t i = 0; i < tokens.size(); ++i)
        if (tokens[i] == QLatin1String("[MASK]") || tokens[i] == QLatin1String("<mask>")) {
            vocabulary.maskId = int(i);
            break;
        }
    return vocabulary;
}

} // namespace attnscope
