// attnscope rollout: attention rollout (Abnar & Zuidema 2020) of one input, raw or value-norm-weighted.

#include "analysis/contributions.h"
#include "analysis/rollout.h"
#include "analysiscommandline.h"
#include "backendoption.h"
#include "command.h"
#include "io/npy.h"
#include "model/transformermodel.h"
#include "modelcommand.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace attnscope {

namespace {

int runRollout(const QStringList& arguments)
{
    ModelCommand command(
        QStringLiteral("rollout"),
        QStringLiteral(
            "Attention rollout: what each token finally draws on. Per layer A_hat = 0.5 * mean over heads + "
            "0.5 "
            "* I,\n"
            "rows renormalised; the rollout is A_hat(last) ... A_hat(0). --measure weight uses the attention "
            "weights,\n"
            "norm the value-norm contribution shares (Kobayashi et al. 2020). Definitions: docs/metrics.md.\n"
            "JSON: {\"measure\", \"layer\", \"rollout\": [query][key], ...}; npy: float64 [n, n]."));
    command.options = {{QStringLiteral("measure"), QStringLiteral("weight (default) or norm."),
                        QStringLiteral("measure"), QStringLiteral("weight")},
                       {QStringLiteral("layer"),
                        QStringLiteral("Roll out layers 0..L only (default: every layer)."),
                        QStringLiteral("L")},
                       dumpFormatOption()};
    command.options << outFileOptions() << verboseOption() << backendOption();
    QString measure;
    command.checkArguments = [&](const QCommandLineParser& parser) {
        measure = parser.value(QStringLiteral("measure"));
        if (measure != QLatin1String("weight") && measure != QLatin1String("norm"))
            return QStringLiteral("--measure must be weight or norm, not '%1'").arg(measure);
        if (QString problem = dumpFormatProblem(parser); !problem.isEmpty()) return problem;
        return outFileProblem(parser);
    };
    command.run = [&](ModelCommandRun& run) {
        const int layers = run.model().config().layers;
        int last = layers - 1;
        if (run.isSet("layer")) {
            bool ok = false;
            last = run.value("layer").toInt(&ok);
            if (!ok || last < 0 || last >= layers)
                throw CommandError(2, QStringLiteral("rollout: --layer %1 is outside 0..%2")
                                          .arg(run.value("layer"))
                                          .arg(layers - 1));
        }
        const ModelInput& input = run.input();
        const AttentionCapture capture = run.model().run(input.ids, input.typeIds, run.runOptions());
        std::shared_ptr<const AttentionMaps> maps = capture.maps;
        if (measure == QLatin1String("norm")) maps = contributionMaps(capture, ContributionScale::Share);
        const std::vector<std::vector<double>> rollout = attentionRollout(*maps);
        const std::vector<double>& r = rollout[size_t(last)];
        const int n = capture.tokens();

        if (run.value("format") == QLatin1String("npy")) {
            run.writeOutput(npyBytes(r, {n, n}));
            return;
        }
        QJsonObject root = inputJson(run.modelArgument(), run.model(), input);
        root.insert(QStringLiteral("measure"), measure);
        root.insert(QStringLiteral("layer"), last);
        QJsonArray rows;
        for (int i = 0; i < n; ++i) {
            QJsonArray row;
            for (int j = 0; j < n; ++j)
                row.append(r[size_t(i * n + j)]);
            rows.append(row);
        }
        root.insert(QStringLiteral("rollout"), rows);
        run.writeOutput(QJsonDocument(root).toJson(QJsonDocument::Compact) + '\n');
    };
    return runModelCommand(command, arguments);
}

const CommandRegistration registration(Command{
    QStringLiteral("rollout"), QStringLiteral("Attention rollout (weights or value-norm contributions)"),
    true, &runRollout}); // needsGui: GPU backends need the platform

} // namespace

} // namespace attnscope
