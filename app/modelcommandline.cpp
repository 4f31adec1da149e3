#include "modelcommandline.h"

#include "model/modelcatalog.h"

#include <QDir>
#include <QFileInfo>
#include <charconv>
#include <cstdio>

namespace attnscope {

bool parseIdList(const QString& text, std::vector<int>* ids, QString* error)
{
    ids->clear();
    const QStringList parts = text.split(QLatin1Char(','), Qt::KeepEmptyParts);
    for (const QString& part : parts) {
        bool ok = false;
        const int id = part.trimmed().toInt(&ok);
        if (!ok || id < 0) {
            *error =
                QStringLiteral("--ids: '%1' is not a non-negative integer (expected e.g. --ids 101,2023,102)")
                    .arg(part.trimmed());
            return false;
        }
        ids->push_back(id);
    }
    return true;
}

std::unique_ptr<TransformerModel> openModelArgument(const QString& nameOrPath)
{
    std::unique_ptr<TransformerModel> model = TransformerModel::open(ModelCatalog::resolve(nameOrPath));
    warnAboutModel(*model);
    return model;
}

void warnAboutModel(const TransformerModel& model)
{
    if (!model.unusedLayersWarning().isEmpty())
        std::fprintf(stderr, "attnscope: warning: %s\n", qPrintable(model.unusedLayersWarning()));
}

QList<QCommandLineOption> modelInputOptions()
{
    return {
        {QStringLiteral("model"),
         QStringLiteral("Model folder, llama.cpp .gguf file, built-in model name or Hugging Face cache id."),
         QStringLiteral("path")},
        {QStringLiteral("text"), QStringLiteral("Text to tokenize (special tokens added)."),
         QStringLiteral("text")},
        {QStringLiteral("text-b"), QStringLiteral("Second segment (BERT pairs)."), QStringLiteral("text")},
        {QStringLiteral("ids"), QStringLiteral("Comma-separated token ids, used as given."),
         QStringLiteral("ids")},
    };
}

ModelInput modelInput(const TransformerModel& model, const QCommandLineParser& parser, PositionLimit limit)
{
    if (parser.isSet(QStringLiteral("ids"))) {
        std::vector<int> ids;
        QString error;
        if (!parseIdList(parser.value(QStringLiteral("ids")), &ids, &error)) throw ModelError(error);
        if (limit == PositionLimit::Model) checkTokenCount(model, qsizetype(ids.size()));
        return idsForModel(model, ids);
    }
    // --text (and --text-b) through the model's tokenizer (tokenizer.json, else vocab.txt or vocab.json +
    // merges.txt); the template's special tokens ([CLS] A [SEP] B [SEP], <s>) are added.
    std::optional<QString> textB;
    if (parser.isSet(QStringLiteral("text-b"))) textB = parser.value(QStringLiteral("text-b"));
    return encodeForModel(model, parser.value(QStringLiteral("text")), textB, limit);
}

QByteArray floatText(float value)
{
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return QByteArray(buffer, int(result.ptr - buffer));
}

} // namespace attnscope
