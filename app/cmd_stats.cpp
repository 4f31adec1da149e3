// attnscope stats: per-head attention statistics (docs/metrics.md) for one input, as JSON or a table.

#include "attention/attentionmaps.h"
#include "command.h"
#include "explorer/analysisrunner.h"
#include "explorer/transformerengine.h"
#include "explorer/workedexampleengine.h"
#include "model/modelcatalog.h"
#include "model/modelerror.h"
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
    o.insert(QStringLiteral("rows_used"), s.rowsUsed);
    o.insert(QStringLiteral("label"), headLabelName(s.label));
    return o;
}

QString table(const AttentionAnalysis& analysis)
{
    QString out = QStringLiteral(
        "layer head  label            entropy  sink   sink4  [SEP]  [CLS]  self   prev   next\n");
    for (const HeadStats& s : analysis.stats)
        out += QStringLiteral("%1 %2  %3 %4 %5 %6 %7 %8 %9 %10 %11\n")
                   .arg(s.layer, 5)
                   .arg(s.head, 4)
                   .arg(headLabelName(s.label), -16)
                   .arg(s.entropy, 7, 'f', 3)
                   .arg(s.sinkMass, 6, 'f', 3)
                   .arg(s.sink4Mass, 6, 'f', 3)
                   .arg(s.sepMass, 6, 'f', 3)
                   .arg(s.clsMass, 6, 'f', 3)
                   .arg(s.self, 6, 'f', 3)
                   .arg(s.previous, 6, 'f', 3)
                   .arg(s.next, 6, 'f', 3);
    return out;
}

int runStats(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Per-head attention statistics for one input: entropy (nats), sink mass (first token, first 4),\n"
        "[SEP] and [CLS] mass, self / previous / next-token scores and an automatic label.\n"
        "Definitions: docs/metrics.md. Means run over non-special query rows."));
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("model"),
         QStringLiteral("Model folder, built-in model name, Hugging Face cache id or worked-example."),
         QStringLiteral("path")},
        {QStringLiteral("text"), QStringLiteral("Text A."), QStringLiteral("text")},
        {QStringLiteral("text-b"), QStringLiteral("Text B (encoders: a sentence pair)."),
         QStringLiteral("text")},
        {QStringLiteral("json"), QStringLiteral("Print JSON instead of a table.")},
    });
    if (const std::optional<int> done = parseCommandLine(parser, arguments, QStringLiteral("stats")))
        return *done;
    const bool workedExample = parser.value(QStringLiteral("model")) == QLatin1String("worked-example");
    if (!parser.isSet(QStringLiteral("model")) || (!parser.isSet(QStringLiteral("text")) && !workedExample)) {
        printError(QStringLiteral("stats: --model and --text are required"));
        return 2;
    }
    try {
        // The worked example (as `export --model worked-example` takes it): fixed tokens, so a --text must
        // be those tokens.
        std::shared_ptr<const AttentionEngine> engine;
        if (workedExample) {
            const auto example = std::make_shared<WorkedExampleEngine>();
            const QString fixed = *example->fixedText();
            if (parser.isSet(QStringLiteral("text")) &&
                parser.value(QStringLiteral("text")).simplified() != fixed) {
                printError(QStringLiteral(
                               "stats: the worked example has fixed vectors for the text '%1' only; got '%2'")
                               .arg(fixed, parser.value(QStringLiteral("text"))));
                return 2;
            }
            engine = example;
        } else {
            engine = TransformerEngine::open(ModelCatalog::resolve(parser.value(QStringLiteral("model"))));
        }
        std::optional<QString> textB;
        if (parser.isSet(QStringLiteral("text-b"))) {
            if (!engine->supportsTextB()) {
                printError(QStringLiteral("stats: --text-b needs an encoder; %1 is not one")
                               .arg(engine->displayName()));
                return 2;
            }
            textB = parser.value(QStringLiteral("text-b"));
        }
        const AttentionRun run = engine->run(parser.value(QStringLiteral("text")), textB, nullptr);
        const std::optional<AttentionAnalysis> analysis = analyzeAttention(*run.maps, run.roles);
        if (!analysis) return 1;
        if (!parser.isSet(QStringLiteral("json"))) {
            printOut(QStringLiteral("%1: %2 tokens\n").arg(engine->displayName()).arg(run.tokens.size()) +
                     table(*analysis));
            return 0;
        }
        QJsonObject root;
        root.insert(QStringLiteral("model"), engine->displayName());
        root.insert(QStringLiteral("tokens"), QJsonArray::fromStringList(run.tokens));
        root.insert(QStringLiteral("labels"), QJsonArray::fromStringList(run.labels));
        root.insert(QStringLiteral("causal"), run.roles.causal);
        root.insert(QStringLiteral("entropy_unit"), QStringLiteral("nats"));
        QJsonArray heads;
        for (const HeadStats& s : analysis->stats)
            heads.append(headJson(s));
        root.insert(QStringLiteral("heads"), heads);
        QJsonArray layers;
        for (const LayerSummary& l : analysis->layerSummaries)
            layers.append(QJsonObject{{QStringLiteral("layer"), l.layer},
                                      {QStringLiteral("sink_mass"), l.sinkMass},
                                      {QStringLiteral("sink4_mass"), l.sink4Mass},
                                      {QStringLiteral("sep_mass"), l.sepMass},
                                      {QStringLiteral("cls_mass"), l.clsMass},
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
    } catch (const ModelError& e) {
        printError(e.message());
    } catch (const EngineError& e) {
        printError(QString::fromStdString(e.what()));
    } catch (const std::exception& e) {
        printError(QStringLiteral("stats: ") + QString::fromStdString(e.what()));
    }
    return 1;
}

const CommandRegistration registration(Command{
    QStringLiteral("stats"), QStringLiteral("Per-head attention statistics (entropy, sinks, [SEP], labels)"),
    false, &runStats});

} // namespace

} // namespace attnscope
