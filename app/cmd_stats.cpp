// attnscope stats: per-head attention statistics (docs/metrics.md) for one input, as JSON or a table.

#include "analysis/contributions.h"
#include "analysis/headablation.h"
#include "analysis/modeltext.h"
#include "analysis/sinkcensus.h"
#include "analysiscommandline.h"
#include "attention/attentionmaps.h"
#include "command.h"
#include "explorer/analysisrunner.h"
#include "explorer/tokenlabels.h"
#include "explorer/workedexampleengine.h"
#include "model/modelerror.h"
#include "model/transformermodel.h"
#include "modelcommandline.h"
#include "stats/attentionanalysis.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace attnscope {

namespace {

QJsonObject headJson(const HeadStats& s)
{
    QJsonObject o;
    o.insert(QStringLiteral("layer"), s.layer);
    o.insert(QStringLiteral("head"), s.head);
    for (HeadMetric metric : allHeadMetrics())
        o.insert(headMetricId(metric), headMetricValue(s, metric));
    o.insert(QStringLiteral("learned_sink_mass"), s.learnedSinkMass); // beside sink_mass (first token)
    o.insert(QStringLiteral("rows_used"), s.rowsUsed);
    o.insert(QStringLiteral("label"), headLabelName(s.label));
    return o;
}

// contributions: the same statistics over the contribution shares (empty for the worked example).
QString table(const AttentionAnalysis& analysis, const AttentionAnalysis* contributions)
{
    QString out = QStringLiteral("layer head  label            entropy  sink   sink4  [SEP]  [CLS]  punct  "
                                 "self   prev   next   sink_n [SEP]_n\n");
    for (const HeadStats& s : analysis.stats)
        out += QStringLiteral("%1 %2  %3 %4 %5 %6 %7 %8 %9 %10 %11 %12")
                   .arg(s.layer, 5)
                   .arg(s.head, 4)
                   .arg(headLabelName(s.label), -16)
                   .arg(s.entropy, 7, 'f', 3)
                   .arg(s.sinkMass, 6, 'f', 3)
                   .arg(s.sink4Mass, 6, 'f', 3)
                   .arg(s.sepMass, 6, 'f', 3)
                   .arg(s.clsMass, 6, 'f', 3)
                   .arg(s.punctMass, 6, 'f', 3)
                   .arg(s.self, 6, 'f', 3)
                   .arg(s.previous, 6, 'f', 3)
                   .arg(s.next, 6, 'f', 3) +
               (contributions ? QStringLiteral(" %1 %2\n")
                                    .arg(contributions->at(s.layer, s.head).sinkMass, 6, 'f', 3)
                                    .arg(contributions->at(s.layer, s.head).sepMass, 7, 'f', 3)
                              : QStringLiteral("\n"));
    return out;
}

// The statistics of one input, whichever way it was run.
struct StatsInput
{
    QString model;
    QStringList tokens, labels;
    TokenRoles roles;
    std::shared_ptr<const AttentionMaps> maps;
    std::shared_ptr<const AttentionMaps> contributionShares; // null for the worked example (no W_O)
    std::vector<float> ablationKl;                           // [layers][heads], with --ablate-scan
};

// A model's input through the core (the explorer's TransformerEngine calls the same functions): one forward
// pass gives the weights, the contributions and the census; --ablate-scan adds one ablated pass per head.
StatsInput runModel(const QCommandLineParser& parser, bool ablateScan)
{
    const std::unique_ptr<TransformerModel> model = openModelArgument(parser.value(QStringLiteral("model")));
    StatsInput in;
    in.model = model->info().name;
    ModelText text;
    if (parser.isSet(QStringLiteral("ids"))) {
        std::vector<int> ids;
        QString error;
        if (!parseIdList(parser.value(QStringLiteral("ids")), &ids, &error)) throw ModelError(error);
        checkTokenCount(*model, qsizetype(ids.size()));
        text = idsForModel(*model, ids);
    } else {
        std::optional<QString> textB;
        if (parser.isSet(QStringLiteral("text-b"))) {
            if (model->config().isDecoder())
                throw CommandError(
                    2, QStringLiteral("stats: --text-b needs an encoder; %1 is not one").arg(in.model));
            textB = parser.value(QStringLiteral("text-b"));
        }
        text = encodeForModel(*model, parser.value(QStringLiteral("text")), textB);
    }
    const AttentionCapture capture = model->run(text.ids, text.typeIds);
    in.tokens = text.tokens;
    for (int i = 0; i < text.size(); ++i)
        in.labels << (text.roles.isSpecial(i) ? text.covered.at(i)
                                              : subwordLabel(text.tokens.at(i), text.covered.at(i)));
    in.roles = text.roles;
    in.roles.causal = capture.causal;
    in.maps = capture.maps;
    in.contributionShares = contributionMaps(capture, ContributionScale::Share);
    if (ablateScan) {
        const AblationStudy study(*model, text.ids, text.typeIds);
        const AblationScan scan = study.scan(AblationMode::Zero);
        for (const AblationEffect& e : scan.effects)
            in.ablationKl.push_back(float(e.kl));
    }
    return in;
}

int runStats(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Per-head attention statistics for one input: entropy (nats), sink mass (first token, first 4),\n"
        "[SEP] and [CLS] mass, self / previous / next-token scores and an automatic label; the sink and "
        "[SEP]\n"
        "shares of each head's contribution ||alpha f(x)|| (sink_mass_norm, sep_mass_norm); per token the "
        "sink\n"
        "score of Gu et al. 2025 (epsilon 0.3); with --ablate-scan each head's ablation_kl (zero ablation).\n"
        "Definitions: docs/metrics.md. Means run over non-special query rows."));
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("model"),
         QStringLiteral("Model folder, built-in model name, Hugging Face cache id or worked-example."),
         QStringLiteral("path")},
        {QStringLiteral("text"), QStringLiteral("Text A."), QStringLiteral("text")},
        {QStringLiteral("text-b"), QStringLiteral("Text B (encoders: a sentence pair)."),
         QStringLiteral("text")},
        {QStringLiteral("ids"), QStringLiteral("Comma-separated token ids, used as given."),
         QStringLiteral("ids")},
        {QStringLiteral("json"), QStringLiteral("Print JSON instead of a table.")},
        {QStringLiteral("ablate-scan"),
         QStringLiteral("Also ablate every head alone (zero) and report the prediction's KL (ablation_kl).")},
    });
    if (const std::optional<int> done = parseCommandLine(parser, arguments, QStringLiteral("stats")))
        return *done;
    const bool workedExample = parser.value(QStringLiteral("model")) == QLatin1String("worked-example");
    const bool hasText = parser.isSet(QStringLiteral("text")), hasIds = parser.isSet(QStringLiteral("ids"));
    if (!parser.isSet(QStringLiteral("model")) || (!hasText && !hasIds && !workedExample)) {
        printError(QStringLiteral("stats: --model and --text (or --ids) are required"));
        return 2;
    }
    if (hasText && hasIds) {
        printError(QStringLiteral("stats: give exactly one of --text or --ids"));
        return 2;
    }
    if (parser.isSet(QStringLiteral("text-b")) && !hasText) {
        printError(QStringLiteral("stats: --text-b needs --text"));
        return 2;
    }
    if (const QString empty = emptyTextProblem(parser); !empty.isEmpty()) {
        printError(QStringLiteral("stats: ") + empty);
        return 2;
    }
    const bool ablateScan = parser.isSet(QStringLiteral("ablate-scan"));
    if (workedExample && (hasIds || ablateScan)) {
        printError(
            QStringLiteral("stats: the worked example takes neither --ids nor --ablate-scan (it has no "
                           "vocabulary or prediction head)"));
        return 2;
    }
    try {
        StatsInput in;
        if (workedExample) {
            // The worked example (as `export --model worked-example` takes it): fixed tokens, so a --text
            // must be those tokens.
            const auto example = std::make_shared<WorkedExampleEngine>();
            const QString fixed = *example->fixedText();
            if (hasText && parser.value(QStringLiteral("text")).simplified() != fixed) {
                printError(QStringLiteral(
                               "stats: the worked example has fixed vectors for the text '%1' only; got '%2'")
                               .arg(fixed, parser.value(QStringLiteral("text"))));
                return 2;
            }
            if (parser.isSet(QStringLiteral("text-b"))) {
                printError(QStringLiteral("stats: --text-b needs an encoder; %1 is not one")
                               .arg(example->displayName()));
                return 2;
            }
            const AttentionRun run =
                example->run(parser.value(QStringLiteral("text")), std::nullopt, nullptr);
            in.model = example->displayName();
            in.tokens = run.tokens;
            in.labels = run.labels;
            in.roles = run.roles;
            in.maps = run.maps;
        } else {
            in = runModel(parser, ablateScan);
        }
        const std::optional<AttentionAnalysis> analysis = analyzeAttention(*in.maps, in.roles);
        std::optional<AttentionAnalysis> contributions;
        if (in.contributionShares) contributions = analyzeAttention(*in.contributionShares, in.roles);
        if (!analysis || (in.contributionShares && !contributions)) return 1;
        const SinkCensus census = sinkCensus(*in.maps);
        if (!parser.isSet(QStringLiteral("json"))) {
            QString gu;
            for (int k = 0; k < census.tokens; ++k)
                gu += QStringLiteral(" %1=%2")
                          .arg(in.labels.value(k))
                          .arg(census.sinkScore[size_t(k)], 0, 'f', 2);
            printOut(QStringLiteral("%1: %2 tokens\n").arg(in.model).arg(in.tokens.size()) +
                     table(*analysis, contributions ? &*contributions : nullptr) +
                     QStringLiteral("sink score (Gu et al., share of heads with alpha_k > %1):")
                         .arg(census.epsilon) +
                     gu + QLatin1Char('\n'));
            if (!in.ablationKl.empty()) {
                QString kl = QStringLiteral("ablation KL (zero, nats), layer x head:\n");
                for (const HeadStats& s : analysis->stats)
                    kl += QStringLiteral("%1%2")
                              .arg(in.ablationKl[size_t(s.layer * analysis->heads + s.head)], 8, 'f', 4)
                              .arg(s.head + 1 == analysis->heads ? QStringLiteral("\n") : QString());
                printOut(kl);
            }
            return 0;
        }
        QJsonObject root;
        root.insert(QStringLiteral("model"), in.model);
        root.insert(QStringLiteral("tokens"), QJsonArray::fromStringList(in.tokens));
        root.insert(QStringLiteral("labels"), QJsonArray::fromStringList(in.labels));
        root.insert(QStringLiteral("causal"), in.roles.causal);
        root.insert(QStringLiteral("entropy_unit"), QStringLiteral("nats"));
        QJsonArray heads;
        for (const HeadStats& s : analysis->stats) {
            QJsonObject head = headJson(s);
            if (contributions) {
                head.insert(QStringLiteral("sink_mass_norm"), contributions->at(s.layer, s.head).sinkMass);
                head.insert(QStringLiteral("sep_mass_norm"), contributions->at(s.layer, s.head).sepMass);
            }
            if (!in.ablationKl.empty())
                head.insert(QStringLiteral("ablation_kl"),
                            double(in.ablationKl[size_t(s.layer * analysis->heads + s.head)]));
            heads.append(head);
        }
        root.insert(QStringLiteral("heads"), heads);
        QJsonArray sinkScores;
        for (double score : census.sinkScore)
            sinkScores.append(score);
        root.insert(QStringLiteral("sink_score"), sinkScores);
        root.insert(QStringLiteral("sink_score_epsilon"), census.epsilon);
        QJsonArray layers;
        for (const LayerSummary& l : analysis->layerSummaries)
            layers.append(QJsonObject{{QStringLiteral("layer"), l.layer},
                                      {QStringLiteral("sink_mass"), l.sinkMass},
                                      {QStringLiteral("sink4_mass"), l.sink4Mass},
                                      {QStringLiteral("sep_mass"), l.sepMass},
                                      {QStringLiteral("cls_mass"), l.clsMass},
                                      {QStringLiteral("punct_mass"), l.punctMass},
                                      {QStringLiteral("entropy"), l.entropy}});
        root.insert(QStringLiteral("layer_means"), layers);
        const LabelThresholds t;
        root.insert(QStringLiteral("thresholds"),
                    QJsonObject{{QStringLiteral("sink"), t.sink},
                                {QStringLiteral("no-op"), t.noOp},
                                {QStringLiteral("previous-token"), t.previous},
                                {QStringLiteral("next-token"), t.next},
                                {QStringLiteral("self"), t.self},
                                {QStringLiteral("broad_entropy_norm"), t.broadEntropy}});
        printOut(QString::fromUtf8(QJsonDocument(root).toJson(QJsonDocument::Compact)) + QLatin1Char('\n'));
        return 0;
    } catch (const EngineError& e) {
        printError(QString::fromStdString(e.what()));
        return 1;
    } catch (...) {
        return reportFailure(QStringLiteral("stats"), std::current_exception(), ModelErrorText::AsIs);
    }
}

const CommandRegistration registration(Command{
    QStringLiteral("stats"), QStringLiteral("Per-head attention statistics (entropy, sinks, [SEP], labels)"),
    false, &runStats});

} // namespace

} // namespace attnscope
