// attnscope stream: the StreamingLLM experiment on a long text. The decoder reads the text token by token
// under each KV-cache policy (full, sliding window with re-computation, window and k sinks + window) and
// every token's negative log-likelihood is written, with each policy's perplexity (core/generation/
// streamingevaluation.h has the definitions).

#include "command.h"
#include "generation/paragraphinput.h"
#include "generation/streamingevaluation.h"
#include "model/transformermodel.h"
#include "modelcommand.h"
#include "modelcommandline.h"
#include "tokenizer/tokenizer.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <cstdio>

namespace attnscope {

namespace {

QJsonValue number(double value)
{
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
}

bool parseSinks(const QString& text, int cache, std::vector<int>* sinks, QString* error)
{
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int k = part.trimmed().toInt(&ok);
        if (!ok || k < 0 || k >= cache) {
            *error =
                QStringLiteral("--sinks: '%1' is not a number of sinks from 0 to %2 (the cache minus one)")
                    .arg(part.trimmed())
                    .arg(cache - 1);
            return false;
        }
        sinks->push_back(k);
    }
    return true;
}

int runStream(const QStringList& arguments)
{
    ModelCommand command(
        QStringLiteral("stream"),
        QStringLiteral(
            "The StreamingLLM experiment (Xiao et al. 2024): per-token negative log-likelihood (nats) and "
            "perplexity "
            "of a long text under KV-cache policies: full attention (up to the model's positions), sliding "
            "window "
            "with re-computation over --cache tokens, and a cache of --cache entries holding k sinks (the "
            "first "
            "k "
            "tokens) and the most recent ones, positions assigned inside the cache (k = 0: window only). "
            "Progress on stderr."));
    command.options = {
        {QStringLiteral("cache"),
         QStringLiteral("KV-cache entries, the current token included (default 256)."), QStringLiteral("n"),
         QStringLiteral("256")},
        {QStringLiteral("sinks"),
         QStringLiteral("Sink counts, one sinks+window policy each (default 0,1,2,4,8)."),
         QStringLiteral("k,..."), QStringLiteral("0,1,2,4,8")},
        {QStringLiteral("policies"),
         QStringLiteral("Which to run: full, recompute, sinks (default all three)."), QStringLiteral("list"),
         QStringLiteral("full,recompute,sinks")},
        {QStringLiteral("max-tokens"), QStringLiteral("Read only the first n tokens."), QStringLiteral("n")},
        {QStringLiteral("paragraphs"),
         QStringLiteral(
             "One paragraph per line, fed in the model's training format (its attnscope.json "
             "\"paragraphs\": \"eos\", the default, each paragraph followed by the end-of-text token: <s> "
             "p1 </s> p2 </s> ...; \"space\", the lines joined by one space: <s> p1 p2 ...) instead of the "
             "text as one piece.")},
        {QStringLiteral("json"), QStringLiteral("Print JSON (the default).")},
        {QStringLiteral("csv"),
         QStringLiteral("Print CSV: one row per predicted token, one NLL column per policy.")},
        {QStringLiteral("quiet"), QStringLiteral("No progress on stderr.")},
    };
    command.inputRule = QStringLiteral("give --model and exactly one of --text-file, --text or --ids");
    command.namesModelErrors = true;
    int cache = 0, maxTokens = 0;
    std::vector<CachePolicy> policies;
    bool quiet = false;
    command.checkArguments = [&](const QCommandLineParser& parser) {
        QString error;
        if (parser.isSet(QStringLiteral("json")) && parser.isSet(QStringLiteral("csv")))
            return QStringLiteral("give --json or --csv, not both");
        bool ok = false;
        cache = parser.value(QStringLiteral("cache")).toInt(&ok);
        if (!ok || cache < 2) return QStringLiteral("--cache must be an integer of at least 2");
        std::vector<int> sinks;
        if (!parseSinks(parser.value(QStringLiteral("sinks")), cache, &sinks, &error)) return error;
        for (const QString& name :
             parser.value(QStringLiteral("policies")).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const QString p = name.trimmed();
            if (p == QLatin1String("full")) {
                policies.push_back(CachePolicy::full());
            } else if (p == QLatin1String("recompute")) {
                policies.push_back(CachePolicy::recompute(cache));
            } else if (p == QLatin1String("sinks")) {
                for (int k : sinks)
                    policies.push_back(CachePolicy::sinksWindow(cache, k));
            } else {
                return QStringLiteral("--policies: unknown policy '%1' (full, recompute, sinks)").arg(p);
            }
        }
        if (parser.isSet(QStringLiteral("max-tokens"))) {
            maxTokens = parser.value(QStringLiteral("max-tokens")).toInt(&ok);
            if (!ok || maxTokens < 2) return QStringLiteral("--max-tokens must be an integer of at least 2");
        }
        quiet = parser.isSet(QStringLiteral("quiet"));
        return QString();
    };
    command.run = [&](ModelCommandRun& run) {
        TransformerModel* const model = &run.model();
        // Every policy against the model before any work: a cache larger than the model's positions was
        // refused only after the whole full-attention policy had run.
        for (const CachePolicy& policy : policies)
            checkStreamPolicy(*model, policy);
        std::vector<int> ids;
        const bool paragraphs = run.isSet("paragraphs");
        const ParagraphJoin join =
            paragraphs ? paragraphJoinFromSetting(
                             model->info().paragraphs,
                             QDir(model->info().path).filePath(QStringLiteral("attnscope.json")))
                       : ParagraphJoin::EndOfText;
        if (paragraphs && run.isSet("text")) {
            if (!model->tokenizer()) throw ModelError(model->tokenizerError());
            ids = paragraphIds(*model->tokenizer(), run.value("text"), join);
        } else {
            ids = run.input(PositionLimit::None).ids; // read with a moving window
        }
        if (maxTokens > 0 && int(ids.size()) > maxTokens) ids.resize(size_t(maxTokens));
        if (!quiet)
            std::fprintf(stderr, "stream: %zu tokens, cache %d, model positions %d\n", ids.size(), cache,
                         model->config().maxPositions);

        std::vector<StreamEvaluation> results;
        for (const CachePolicy& policy : policies) {
            StreamOptions options;
            const QByteArray label =
                (policy.kind == CachePolicyKind::SinksWindow ? QStringLiteral("%1 (%2 + %3)")
                                                                   .arg(policy.name())
                                                                   .arg(policy.sinks)
                                                                   .arg(policy.window())
                                                             : policy.name())
                    .toUtf8();
            int lastPercent = -1;
            if (!quiet)
                options.progress = [&](const StreamProgress& p) {
                    const int percent = p.total > 0 ? 100 * p.done / p.total : 100;
                    if (percent / 10 == lastPercent / 10 && p.done != p.total) return;
                    lastPercent = percent;
                    std::fprintf(stderr, "stream: %s %d/%d (%d%%)\n", label.constData(), p.done, p.total,
                                 percent);
                };
            results.push_back(evaluateStream(*model, ids, policy, options));
            if (!quiet)
                std::fprintf(stderr, "stream: %s perplexity %.3f (%.1f s)\n", label.constData(),
                             results.back().perplexity(), results.back().seconds);
        }

        if (run.isSet("csv")) {
            QString csv = QStringLiteral("target");
            for (const StreamEvaluation& r : results)
                csv += QLatin1Char(',') +
                       (r.policy.kind == CachePolicyKind::SinksWindow
                            ? QStringLiteral("sinks%1+window%2").arg(r.policy.sinks).arg(r.policy.window())
                            : r.policy.name());
            csv += QLatin1Char('\n');
            for (size_t i = 0; i + 1 < ids.size(); ++i) {
                csv += QString::number(i + 1);
                for (const StreamEvaluation& r : results)
                    csv += QLatin1Char(',') +
                           (i < r.nll.size() ? QString::fromLatin1(floatText(r.nll[i])) : QString());
                csv += QLatin1Char('\n');
            }
            printOut(csv);
            return;
        }
        QJsonArray policyJson;
        for (const StreamEvaluation& r : results) {
            QJsonObject o{{QStringLiteral("policy"), r.policy.kind == CachePolicyKind::SinksWindow
                                                         ? QStringLiteral("sinks+window")
                                                         : r.policy.name()},
                          {QStringLiteral("predictions"), int(r.nll.size())},
                          {QStringLiteral("perplexity"), number(r.perplexity())},
                          {QStringLiteral("mean_nll"), number(std::log(r.perplexity()))},
                          {QStringLiteral("seconds"), std::round(r.seconds * 100) / 100}};
            if (r.policy.kind == CachePolicyKind::SinksWindow) {
                o.insert(QStringLiteral("sinks"), r.policy.sinks);
                o.insert(QStringLiteral("window"), r.policy.window());
            }
            if (r.policy.kind == CachePolicyKind::Recompute)
                o.insert(QStringLiteral("window"), r.policy.cacheSize);
            if (r.policy.kind == CachePolicyKind::Full)
                o.insert(QStringLiteral("within_positions"), model->config().maxPositions);
            // Predictions made with a full cache (index >= cache − 1): where eviction begins.
            o.insert(QStringLiteral("full_cache_from"), r.fullCacheFrom);
            o.insert(QStringLiteral("perplexity_full_cache"),
                     number(r.fullCacheFrom >= 0 ? r.perplexity(r.fullCacheFrom) : NAN));
            QJsonArray nll;
            for (float value : r.nll)
                nll.append(double(value));
            o.insert(QStringLiteral("nll"), nll);
            policyJson.append(o);
        }
        QJsonObject root{
            {QStringLiteral("model"), model->info().name},
            {QStringLiteral("tokens"), int(ids.size())},
            {QStringLiteral("cache"), cache},
            {QStringLiteral("model_positions"), model->config().maxPositions},
            {QStringLiteral("format"), paragraphs ? QStringLiteral("paragraphs") : QStringLiteral("plain")},
            {QStringLiteral("policies"), policyJson}};
        if (paragraphs) root.insert(QStringLiteral("paragraph_join"), paragraphJoinName(join));
        printOut(QString::fromUtf8(QJsonDocument(root).toJson(QJsonDocument::Indented)));
    };
    return runModelCommand(command, arguments);
}

const CommandRegistration registration(Command{
    QStringLiteral("stream"), QStringLiteral("StreamingLLM: perplexity under KV-cache policies"), false,
    &runStream});

} // namespace

} // namespace attnscope
