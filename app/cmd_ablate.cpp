// attnscope ablate: switch heads off and show how the model's own prediction changes (docs/metrics.md).

#include "analysis/headablation.h"
#include "analysiscommandline.h"
#include "backendoption.h"
#include "command.h"
#include "model/transformermodel.h"
#include "modelcommand.h"

#include <QJsonDocument>

namespace attnscope {

namespace {

QJsonArray headsJson(const std::vector<HeadAblation>& heads)
{
    QJsonArray array;
    for (const HeadAblation& a : heads)
        array.append(QJsonArray{a.layer, a.head});
    return array;
}

int runAblate(const QStringList& arguments)
{
    ModelCommand command(
        QStringLiteral("ablate"),
        QStringLiteral(
            "Ablates attention heads (zero: the head's output is 0 before W_O, as transformers' head_mask; "
            "mean: "
            "it is\n"
            "replaced by its mean over the input's positions) and reports the change of the model's own "
            "prediction:\n"
            "the next token (decoders) or every [MASK] (encoders). kl = sum over those positions of\n"
            "KL(p_original || p_ablated) in nats; top_prob_delta = p_ablated - p_original of the original "
            "top "
            "token.\n"
            "--heads 3.2,5.7 ablates heads 2 of layer 3 and 7 of layer 5 together; --heads 4 every head of "
            "layer "
            "4.\n"
            "Repeat --heads for several sets. Definitions: docs/metrics.md."));
    command.options = {
        {QStringLiteral("heads"),
         QStringLiteral("Heads to ablate together: LAYER.HEAD[,...] or LAYER (0-based)."),
         QStringLiteral("list")},
        {QStringLiteral("mode"), QStringLiteral("zero (default) or mean."), QStringLiteral("mode"),
         QStringLiteral("zero")},
        {QStringLiteral("top"), QStringLiteral("Length of the new top list (default 5)."),
         QStringLiteral("k"), QStringLiteral("5")},
        jsonOption(),
        verboseOption(),
        backendOption(),
    };
    QString modeName;
    AblationMode mode = AblationMode::Zero;
    int topK = 0;
    command.checkArguments = [&](const QCommandLineParser& parser) {
        if (!parser.isSet(QStringLiteral("heads")))
            return QStringLiteral("--heads is required (e.g. --heads 3.2,5.7)");
        modeName = parser.value(QStringLiteral("mode"));
        if (modeName != QLatin1String("zero") && modeName != QLatin1String("mean"))
            return QStringLiteral("--mode must be zero or mean, not '%1'").arg(modeName);
        mode = modeName == QLatin1String("mean") ? AblationMode::Mean : AblationMode::Zero;
        bool ok = false;
        topK = parser.value(QStringLiteral("top")).toInt(&ok);
        return ok && topK >= 1 ? QString() : QStringLiteral("--top must be a positive integer");
    };
    command.run = [&](ModelCommandRun& run) {
        const TransformerModel& model = run.model();
        std::vector<std::vector<HeadAblation>> sets;
        for (const QString& list : run.parser().values(QStringLiteral("heads"))) {
            std::vector<HeadAblation> heads;
            QString error;
            if (!parseHeadList(list, model.config().layers, model.config().heads, mode, &heads, &error))
                throw CommandError(2, QStringLiteral("ablate: --heads: ") + error);
            sets.push_back(std::move(heads));
        }
        const ModelInput& input = run.input();
        AblationStudyOptions options;
        options.backend = run.backend();
        options.topK = topK;
        const AblationStudy study(model, input.ids, input.typeIds, options);
        std::vector<AblationEffect> effects;
        for (const std::vector<HeadAblation>& heads : sets)
            effects.push_back(study.ablate(heads));

        if (run.isSet("json")) {
            QJsonObject root = inputJson(run.modelArgument(), model, input);
            root.insert(QStringLiteral("mode"), modeName);
            QJsonArray positions, original;
            for (size_t r = 0; r < study.positions().size(); ++r) {
                positions.append(study.positions()[r]);
                original.append(topJson(study.originalTop()[r]));
            }
            root.insert(QStringLiteral("positions"), positions);
            root.insert(QStringLiteral("original_top"), original);
            QJsonArray ablations;
            for (const AblationEffect& e : effects) {
                QJsonArray deltas, tops;
                for (size_t r = 0; r < e.topProbDelta.size(); ++r) {
                    deltas.append(e.topProbDelta[r]);
                    tops.append(topJson(e.top[r]));
                }
                ablations.append(QJsonObject{{QStringLiteral("heads"), headsJson(e.heads)},
                                             {QStringLiteral("kl"), e.kl},
                                             {QStringLiteral("top_prob_delta"), deltas},
                                             {QStringLiteral("top"), tops}});
            }
            root.insert(QStringLiteral("ablations"), ablations);
            printOut(QString::fromUtf8(QJsonDocument(root).toJson(QJsonDocument::Indented)));
            return;
        }
        for (const AblationEffect& e : effects) {
            QStringList names;
            for (const HeadAblation& a : e.heads)
                names << QStringLiteral("%1.%2").arg(a.layer).arg(a.head);
            printOut(QStringLiteral("%1 ablation of %2: KL %3 nats\n")
                         .arg(modeName, names.join(QLatin1Char(',')))
                         .arg(e.kl, 0, 'g', 4));
            for (size_t r = 0; r < e.top.size(); ++r) {
                const int position = study.positions()[r];
                const PredictedToken& before = study.originalTop()[r].top.first();
                printOut(QStringLiteral("  position %1 (%2): top '%3' %4 -> %5; now:")
                             .arg(position)
                             .arg(input.tokens.value(position), before.text)
                             .arg(double(before.probability), 0, 'f', 4)
                             .arg(double(before.probability) + e.topProbDelta[r], 0, 'f', 4));
                for (const PredictedToken& t : e.top[r].top)
                    printOut(QStringLiteral(" %1 %2").arg(t.text).arg(double(t.probability), 0, 'f', 4));
                printOut(QStringLiteral("\n"));
            }
        }
    };
    return runModelCommand(command, arguments);
}

const CommandRegistration registration(Command{
    QStringLiteral("ablate"),
    QStringLiteral("Switch attention heads off; the prediction's change (KL, top-5)"), true,
    &runAblate}); // needsGui: GPU backends need the platform

} // namespace

} // namespace attnscope
