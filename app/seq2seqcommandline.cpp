#include "seq2seqcommandline.h"

#include "command.h"
#include "model/modelerror.h"
#include "modelcommandline.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <cstdio>

namespace attnscope {

Seq2SeqModelArgument openSeq2SeqModel(const QString& folder, const QString& needTokenizer,
                                      const QString& command)
{
    Seq2SeqModelArgument opened;
    opened.folder = folder;
    opened.model = EncoderDecoderModel::open(folder);
    if (!opened.model->unusedLayersNote().isEmpty())
        std::fprintf(stderr, "attnscope: warning: %s\n", qPrintable(opened.model->unusedLayersNote()));
    // Without a tokenizer the ids still run (--ids) and print as ids; a damaged tokenizer file is an error
    // whatever the input, as the single-stack commands treat it.
    if (Seq2SeqTokenizer::folderHasOne(folder)) {
        opened.tokenizer = Seq2SeqTokenizer::fromFolder(folder);
    } else if (!needTokenizer.isEmpty()) {
        throw CommandError(2, QStringLiteral("%1: %2: no tokenizer (none of source.spm, tokenizer.json, "
                                             "spiece.model); %3")
                                  .arg(command, QDir::toNativeSeparators(folder), needTokenizer));
    }
    return opened;
}

Seq2SeqSource seq2seqSource(const QCommandLineParser& parser, const Seq2SeqModelArgument& model)
{
    Seq2SeqSource source;
    if (parser.isSet(QStringLiteral("ids"))) {
        QString error;
        if (!parseIdList(parser.value(QStringLiteral("ids")), &source.ids, &error)) throw ModelError(error);
        for (const int id : source.ids)
            source.tokens << (model.tokenizer ? model.tokenizer->sourceToken(id) : QString::number(id));
        return source;
    }
    const Encoding encoding = model.tokenizer->encodeSource(parser.value(QStringLiteral("text")));
    source.ids = encoding.ids;
    source.tokens = encoding.tokens;
    return source;
}

QStringList targetTokens(const Seq2SeqModelArgument& model, const std::vector<int>& ids)
{
    QStringList tokens;
    for (const int id : ids)
        tokens << (model.tokenizer ? model.tokenizer->targetToken(id) : QString::number(id));
    return tokens;
}

QByteArray jsonText(const QString& text)
{
    // QJsonDocument escapes; strip the surrounding array brackets.
    const QByteArray array = QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact);
    return array.mid(1, array.size() - 2);
}

QByteArray jsonTextList(const QStringList& texts)
{
    return QJsonDocument(QJsonArray::fromStringList(texts)).toJson(QJsonDocument::Compact);
}

QByteArray jsonIdList(const std::vector<int>& ids)
{
    QByteArray text = "[";
    for (size_t i = 0; i < ids.size(); ++i)
        text += (i ? "," : "") + QByteArray::number(ids[i]);
    return text + ']';
}

} // namespace attnscope
