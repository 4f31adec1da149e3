// attnscope models: the built-in models and every model in the local Hugging Face cache.

#include "command.h"
#include "model/memoryestimate.h"
#include "model/modelcatalog.h"
#include "model/modelconfig.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

namespace attnscope {

namespace {

QJsonObject toJson(const ModelInfo& info)
{
    const MemoryEstimate estimate = estimateMemory(info); // the bytes and the tokens they are for
    return QJsonObject{
        {QStringLiteral("name"), info.name},
        {QStringLiteral("builtin"), info.builtin},
        {QStringLiteral("kind"), info.kind},
        {QStringLiteral("architecture"), info.architecture},
        {QStringLiteral("layers"), info.layers},
        {QStringLiteral("heads"), info.heads},
        {QStringLiteral("kv_heads"), info.kvHeads},
        {QStringLiteral("hidden"), info.hidden},
        {QStringLiteral("vocab_size"), info.vocabSize},
        {QStringLiteral("max_positions"), info.maxPositions},
        {QStringLiteral("size"), double(info.fileBytes)},
        {QStringLiteral("parameters"), double(info.parameters)},
        {QStringLiteral("estimated_memory_bytes"), double(estimate.total())},
        {QStringLiteral("estimated_memory_tokens"), estimate.tokens},
        {QStringLiteral("path"), info.path},
        {QStringLiteral("description"), info.description},
    };
}

int runModels(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Lists the built-in models, then every model in the Hugging Face cache (%1).\n"
                       "Each name is accepted by --model.\n"
                       "Model types (config.json model_type) AttnScope runs: %2.")
            .arg(ModelCatalog::huggingFaceHubDir(),
                 ModelConfig::supportedModelTypes().join(QStringLiteral(", "))));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print a JSON array of objects.")});
    parser.addOption(
        {QStringLiteral("types"),
         QStringLiteral("Print the model types AttnScope runs, one per line (with --json, an array).")});
    if (const std::optional<int> done = parseCommandLine(parser, arguments, QStringLiteral("models")))
        return *done;
    if (parser.isSet(QStringLiteral("types"))) {
        const QStringList types = ModelConfig::supportedModelTypes();
        if (parser.isSet(QStringLiteral("json")))
            printOut(QString::fromUtf8(
                         QJsonDocument(QJsonArray::fromStringList(types)).toJson(QJsonDocument::Compact)) +
                     QLatin1Char('\n'));
        else
            printOut(types.join(QLatin1Char('\n')) + QLatin1Char('\n'));
        return 0;
    }
    const QVector<ModelInfo> models = ModelCatalog::allModels();
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonArray array;
        for (const ModelInfo& info : models)
            array.append(toJson(info));
        printOut(QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Indented)));
        return 0;
    }
    if (models.isEmpty()) {
        printOut(QStringLiteral("No models found (no built-in models, nothing in %1).\n")
                     .arg(ModelCatalog::huggingFaceHubDir()));
        return 0;
    }
    const QLocale locale = QLocale::c();
    for (const ModelInfo& info : models)
        printOut(QStringLiteral("%1  %2 %3, %4 layers x %5 heads, %6, %7 parameters, needs ~%8%9\n")
                     .arg(info.name.leftJustified(36), info.architecture, info.kind)
                     .arg(info.layers)
                     .arg(info.heads)
                     .arg(locale.formattedDataSize(info.fileBytes), formatParameterCount(info.parameters),
                          formatBytes(estimateMemory(info).total()))
                     .arg(info.builtin ? QStringLiteral("  (built-in)") : QString()));
    return 0;
}

const CommandRegistration registration(Command{
    QStringLiteral("models"), QStringLiteral("List built-in models and models in the Hugging Face cache"),
    false, &runModels});

} // namespace

} // namespace attnscope
