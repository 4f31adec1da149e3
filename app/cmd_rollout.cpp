// attnscope rollout: attention rollout (Abnar & Zuidema 2020) of one input, raw or value-norm-weighted.

#include "analysis/contributions.h"
#include "analysis/rollout.h"
#include "analysiscommandline.h"
#include "backend/attentionbackend.h"
#include "backendoption.h"
#include "command.h"
#include "io/npy.h"
#include "io/outputfile.h"
#include "modelcommandline.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QJsonDocument>
#include <cstdio>

namespace attnscope {

namespace {

int runRollout(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Attention rollout: what each token finally draws on. Per layer A_hat = 0.5 * mean over heads + 0.5 "
        "* I,\n"
        "rows renormalised; the rollout is A_hat(last) ... A_hat(0). --measure weight uses the attention "
        "weights,\n"
        "norm the value-norm contribution shares (Kobayashi et al. 2020). Definitions: docs/metrics.md.\n"
        "JSON: {\"measure\", \"layer\", \"rollout\": [query][key], ...}; npy: float64 [n, n]."));
    parser.addHelpOption();
    parser.addOptions(modelInputOptions());
    parser.addOptions({
        {QStringLiteral("measure"), QStringLiteral("weight (default) or norm."), QStringLiteral("measure"),
         QStringLiteral("weight")},
        {QStringLiteral("layer"), QStringLiteral("Roll out layers 0..L only (default: every layer)."),
         QStringLiteral("L")},
        {QStringLiteral("format"), QStringLiteral("json (default) or npy."), QStringLiteral("format"),
         QStringLiteral("json")},
        {QStringLiteral("out"),
         QStringLiteral("Write to this file instead of stdout (required for npy; - is stdout)."),
         QStringLiteral("file")},
        {QStringLiteral("force"), QStringLiteral("Overwrite an existing --out file.")},
        {QStringLiteral("verbose"), QStringLiteral("Report the backend and device on stderr.")},
    });
    parser.addOption(backendOption());
    if (const std::optional<int> done = parseModelCommandLine(parser, arguments, QStringLiteral("rollout")))
        return *done;
    QString error;
    const QString measure = parser.value(QStringLiteral("measure"));
    if (measure != QLatin1String("weight") && measure != QLatin1String("norm")) {
        printError(QStringLiteral("rollout: --measure must be weight or norm, not '%1'").arg(measure));
        return 2;
    }
    const QString format = parser.value(QStringLiteral("format"));
    if (format != QLatin1String("json") && format != QLatin1String("npy")) {
        printError(QStringLiteral("rollout: --format must be json or npy, not '%1'").arg(format));
        return 2;
    }
    // "--out -" is standard output, as "-" is standard input for --text-file (not a file named "-").
    if (parser.isSet(QStringLiteral("out"))) {
        // An empty --out was standard output, silently.
        if (const QString problem = outOptionProblem(parser.value(QStringLiteral("out")), true);
            !problem.isEmpty()) {
            printError(QStringLiteral("rollout: ") + problem);
            return 2;
        }
    }
    const bool toStandardOutput = isStandardStream(parser.value(QStringLiteral("out")));
    const QString outPath = toStandardOutput ? QString() : parser.value(QStringLiteral("out"));
    if (format == QLatin1String("npy") && outPath.isEmpty() && !toStandardOutput) {
        printError(QStringLiteral("rollout: --format npy needs --out FILE"));
        return 2;
    }
    const QString backendName = parseBackend(parser.value(QStringLiteral("backend")), &error);
    if (backendName.isEmpty()) {
        printError(QStringLiteral("rollout: ") + error);
        return 2;
    }
    if (!outPath.isEmpty()) {
        // Refused before the model runs (io/outputfile.h): a device, a FIFO, a folder, or an existing file
        // without --force.
        const OutputCheck check = checkOutputPath(outPath, parser.isSet(QStringLiteral("force")));
        if (check.refusal != OutputRefusal::None) {
            printError(check.error + (check.refusal == OutputRefusal::Exists
                                          ? QStringLiteral(" (use --force to overwrite)")
                                          : QString()));
            return 1;
        }
    }
    try {
        const std::unique_ptr<TransformerModel> model =
            openModelArgument(parser.value(QStringLiteral("model")));
        int last = model->config().layers - 1;
        if (parser.isSet(QStringLiteral("layer"))) {
            bool ok = false;
            last = parser.value(QStringLiteral("layer")).toInt(&ok);
            if (!ok || last < 0 || last >= model->config().layers) {
                printError(QStringLiteral("rollout: --layer %1 is outside 0..%2")
                               .arg(parser.value(QStringLiteral("layer")))
                               .arg(model->config().layers - 1));
                return 2;
            }
        }
        const ModelInput input = modelInput(*model, parser);
        const std::unique_ptr<AttentionBackend> backend =
            createCommandBackend(backendName, parser.isSet(QStringLiteral("verbose")));
        RunOptions options;
        options.backend = backend.get();
        const AttentionCapture capture = model->run(input.ids, input.typeIds, options);
        std::shared_ptr<const AttentionMaps> maps = capture.maps;
        if (measure == QLatin1String("norm")) maps = contributionMaps(capture, ContributionScale::Share);
        const std::vector<std::vector<double>> rollout = attentionRollout(*maps);
        const std::vector<double>& r = rollout[size_t(last)];
        const int n = capture.tokens();

        QByteArray output;
        if (format == QLatin1String("npy")) {
            output = npyBytes(r, {n, n});
        } else {
            QJsonObject root = inputJson(parser.value(QStringLiteral("model")), *model, input);
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
            output = QJsonDocument(root).toJson(QJsonDocument::Compact) + '\n';
        }
        if (outPath.isEmpty()) {
            if (!writeStandardOutput(output)) { // checked: output that went nowhere is not a success
                printError(standardOutputError());
                return 1;
            }
        } else if (!writeOutputFile(outPath, output, parser.isSet(QStringLiteral("force")), &error)) {
            printError(error);
            return 1;
        }
        return 0;
    } catch (const ModelError& e) {
        printError(e.message());
    } catch (const NpyError& e) {
        printError(QString::fromStdString(e.what()));
    } catch (const std::exception& e) {
        printError(QStringLiteral("rollout: ") + QString::fromStdString(e.what()));
    }
    return 1;
}

const CommandRegistration registration(Command{
    QStringLiteral("rollout"), QStringLiteral("Attention rollout (weights or value-norm contributions)"),
    true, &runRollout}); // needsGui: GPU backends need the platform

} // namespace

} // namespace attnscope
