// attnscope predict: the model's own top-k, for each [MASK] (encoders) or the next token (decoders).

#include "analysiscommandline.h"
#include "backend/attentionbackend.h"
#include "backendoption.h"
#include "command.h"
#include "modelcommandline.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace attnscope {

namespace {

int runPredict(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Prints the model's top-k tokens: for each [MASK] (BERT) "
                                                    "or for the token after the text (decoders)."));
    parser.addHelpOption();
    parser.addOptions(modelInputOptions());
    parser.addOptions({
        {QStringLiteral("top"), QStringLiteral("How many tokens to list (default 5)."), QStringLiteral("k"),
         QStringLiteral("5")},
        {QStringLiteral("json"), QStringLiteral("Print JSON.")},
        {QStringLiteral("verbose"), QStringLiteral("Report the backend and device on stderr.")},
    });
    parser.addOption(backendOption());
    if (const std::optional<int> done = parseModelCommandLine(parser, arguments, QStringLiteral("predict")))
        return *done;
    QString error;
    bool ok = false;
    const int topK = parser.value(QStringLiteral("top")).toInt(&ok);
    if (!ok || topK < 1) {
        printError(QStringLiteral("predict: --top must be a positive integer"));
        return 2;
    }
    const QString backendName = parseBackend(parser.value(QStringLiteral("backend")), &error);
    if (backendName.isEmpty()) {
        printError(QStringLiteral("predict: ") + error);
        return 2;
    }
    try {
        const std::unique_ptr<TransformerModel> model =
            openModelArgument(parser.value(QStringLiteral("model")));
        const ModelInput input = modelInput(*model, parser);
        const std::unique_ptr<AttentionBackend> backend =
            createCommandBackend(backendName, parser.isSet(QStringLiteral("verbose")));
        RunOptions runOptions;
        runOptions.backend = backend.get();
        const std::vector<Prediction> predictions =
            model->predict(input.ids, input.typeIds, topK, runOptions);
        if (parser.isSet(QStringLiteral("json"))) {
            QJsonArray array;
            for (const Prediction& p : predictions) {
                QJsonArray top;
                for (const PredictedToken& t : p.top)
                    top.append(QJsonObject{{QStringLiteral("id"), t.id},
                                           {QStringLiteral("token"), t.text},
                                           {QStringLiteral("text"), t.decoded},
                                           {QStringLiteral("probability"), double(t.probability)}});
                array.append(QJsonObject{{QStringLiteral("position"), p.position},
                                         {QStringLiteral("token"), input.tokens.value(p.position)},
                                         {QStringLiteral("top"), top}});
            }
            printOut(QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Indented)));
            return 0;
        }
        for (const Prediction& p : predictions) {
            const bool next = model->config().isDecoder();
            printOut(next ? QStringLiteral("next token after position %1 (%2):\n")
                                .arg(p.position)
                                .arg(input.tokens.value(p.position))
                          : QStringLiteral("position %1 (%2):\n")
                                .arg(p.position)
                                .arg(input.tokens.value(p.position)));
            for (const PredictedToken& t : p.top)
                printOut(QStringLiteral("  %1  %2  %3(id %4)\n")
                             .arg(QString::number(double(t.probability), 'f', 4), t.text.leftJustified(16),
                                  (QLatin1Char('"') + t.decoded + QLatin1Char('"')).leftJustified(18))
                             .arg(t.id));
        }
        return 0;
    } catch (const ModelError& e) {
        printError(e.message());
    } catch (const std::exception& e) {
        printError(QStringLiteral("predict: ") + QString::fromStdString(e.what()));
    }
    return 1;
}

const CommandRegistration registration(Command{
    QStringLiteral("predict"), QStringLiteral("Top-k predictions for [MASK] tokens or the next token"), true,
    &runPredict}); // needsGui: GPU backends need the platform

} // namespace

} // namespace attnscope
