// attnscope residual: the residual stream's norm and largest |activation| per layer and token.

#include "analysis/residualprofile.h"
#include "analysiscommandline.h"
#include "backendoption.h"
#include "command.h"
#include "model/transformermodel.h"
#include "modelcommand.h"

#include <QJsonDocument>

namespace attnscope {

namespace {

QJsonArray rowsJson(const std::vector<float>& values, int rows, int columns)
{
    QJsonArray array;
    for (int r = 0; r < rows; ++r) {
        QJsonArray row;
        for (int c = 0; c < columns; ++c)
            row.append(double(values[size_t(r) * size_t(columns) + size_t(c)]));
        array.append(row);
    }
    return array;
}

int runResidual(const QStringList& arguments)
{
    ModelCommand command(
        QStringLiteral("residual"),
        QStringLiteral(
            "The residual stream at every layer boundary (b = the input of layer b, the last = the last "
            "layer's\n"
            "output before the final norm): per token its L2 norm and largest |activation|, per boundary the "
            "median\n"
            "|activation| over every token and channel (massive activations: Sun et al. 2024). "
            "docs/metrics.md."));
    command.options = {jsonOption(), verboseOption(), backendOption()};
    command.run = [](ModelCommandRun& run) {
        const ModelInput& input = run.input();
        RunOptions options = run.runOptions();
        options.keepResiduals = true;
        const ResidualProfile profile = residualProfile(run.model().run(input.ids, input.typeIds, options));
        if (run.isSet("json")) {
            QJsonObject root = inputJson(run.modelArgument(), run.model(), input);
            root.insert(QStringLiteral("boundaries"), profile.boundaries);
            root.insert(QStringLiteral("norm"), rowsJson(profile.norms, profile.boundaries, profile.tokens));
            root.insert(QStringLiteral("max_abs"),
                        rowsJson(profile.maxAbs, profile.boundaries, profile.tokens));
            QJsonArray medians;
            for (float m : profile.medianAbs)
                medians.append(double(m));
            root.insert(QStringLiteral("median_abs"), medians);
            printOut(QString::fromUtf8(QJsonDocument(root).toJson(QJsonDocument::Compact)) +
                     QLatin1Char('\n'));
            return;
        }
        printOut(QStringLiteral("boundary  median|x|  largest |x| (token)           largest norm (token)\n"));
        for (int b = 0; b < profile.boundaries; ++b) {
            int maxToken = 0, normToken = 0;
            for (int t = 1; t < profile.tokens; ++t) {
                if (profile.max(b, t) > profile.max(b, maxToken)) maxToken = t;
                if (profile.norm(b, t) > profile.norm(b, normToken)) normToken = t;
            }
            const double median = profile.medianAbs[size_t(b)];
            printOut(QStringLiteral("%1  %2  %3 = %4x median (%5 %6)  %7 (%8 %9)\n")
                         .arg(b, 8)
                         .arg(median, 8, 'g', 3)
                         .arg(double(profile.max(b, maxToken)), 9, 'g', 4)
                         .arg(median > 0 ? double(profile.max(b, maxToken)) / median : 0.0, 0, 'f', 1)
                         .arg(maxToken)
                         .arg(input.tokens.value(maxToken))
                         .arg(double(profile.norm(b, normToken)), 0, 'g', 4)
                         .arg(normToken)
                         .arg(input.tokens.value(normToken)));
        }
    };
    return runModelCommand(command, arguments);
}

const CommandRegistration registration(Command{
    QStringLiteral("residual"), QStringLiteral("Residual-stream norms and largest activations per layer"),
    true, &runResidual}); // needsGui: GPU backends need the platform

} // namespace

} // namespace attnscope
