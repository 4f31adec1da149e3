// attnscope predict: the model's own top-k, for each [MASK] (encoders) or the next token (decoders).

#include "analysiscommandline.h"
#include "backendoption.h"
#include "command.h"
#include "model/transformermodel.h"
#include "modelcommand.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace attnscope {

namespace {

int runPredict(const QStringList& arguments)
{
    int topK = 0;
    ModelCommand command(QStringLiteral("predict"),
                         QStringLiteral("Prints the model's top-k tokens: for each [MASK] (BERT) "
                                        "or for the token after the text (decoders)."));
    command.options = {{QStringLiteral("top"), QStringLiteral("How many tokens to list (default 5)."),
                        QStringLiteral("k"), QStringLiteral("5")},
                       jsonOption(),
                       verboseOption(),
                       backendOption()};
    command.checkArguments = [&](const QCommandLineParser& parser) {
        bool ok = false;
        topK = parser.value(QStringLiteral("top")).toInt(&ok);
        return ok && topK >= 1 ? QString() : QStringLiteral("--top must be a positive integer");
    };
    command.run = [&](ModelCommandRun& run) {
        const ModelInput& input = run.input();
        const std::vector<Prediction> predictions =
            run.model().predict(input.ids, input.typeIds, topK, run.runOptions());
        if (run.isSet("json")) {
            QJsonArray array;
            for (const Prediction& p : predictions)
                array.append(QJsonObject{{QStringLiteral("position"), p.position},
                                         {QStringLiteral("token"), input.tokens.value(p.position)},
                                         {QStringLiteral("top"), topJson(p)}});
            printOut(QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Indented)));
            return;
        }
        const bool next = run.model().config().isDecoder();
        for (const Prediction& p : predictions) {
            printOut((next ? QStringLiteral("next token after position %1 (%2):\n")
                           : QStringLiteral("position %1 (%2):\n"))
                         .arg(p.position)
                         .arg(input.tokens.value(p.position)));
            for (const PredictedToken& t : p.top)
                printOut(QStringLiteral("  %1  %2  %3(id %4)\n")
                             .arg(QString::number(double(t.probability), 'f', 4), t.text.leftJustified(16),
                                  (QLatin1Char('"') + t.decoded + QLatin1Char('"')).leftJustified(18))
                             .arg(t.id));
        }
    };
    return runModelCommand(command, arguments);
}

const CommandRegistration registration(Command{
    QStringLiteral("predict"), QStringLiteral("Top-k predictions for [MASK] tokens or the next token"), true,
    &runPredict}); // needsGui: GPU backends need the platform

} // namespace

} // namespace attnscope
