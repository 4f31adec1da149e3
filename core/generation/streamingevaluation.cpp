#include "generation/streamingevaluation.h"

#include "generation/keyvaluecache.h"
#include "model/modelerror.h"
#include "model/transformermodel.h"
#include "util/operationcancelled.h"
#include "util/parallel.h"

#include <QDir>
#include <QElapsedTimer>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace attnscope {

namespace {

// −ln softmax(logits)[target], in double.
float negativeLogLikelihood(const float* logits, int vocab, int target)
{
    const double largest = *std::max_element(logits, logits + vocab);
    double sum = 0;
    for (int i = 0; i < vocab; ++i)
        sum += std::exp(double(logits[i]) - largest);
    return float(std::log(sum) + largest - double(logits[target]));
}

class StreamRun
{
public:
    StreamRun(const TransformerModel& model, const std::vector<int>& ids, const StreamOptions& options,
              StreamEvaluation& result, int total)
        : m_model(model), m_ids(ids), m_options(options), m_result(result), m_total(total),
          m_vocab(model.config().vocabSize)
    {
        m_result.nll.reserve(size_t(total));
    }

    RunOptions runOptions() const
    {
        RunOptions run;
        run.threads = m_options.threads;
        run.cancel = m_options.cancel;
        return run;
    }
    // Records the NLL of ids[target] from one row of logits.
    void record(const float* logits, int target)
    {
        m_result.nll.push_back(negativeLogLikelihood(logits, m_vocab, m_ids[size_t(target)]));
        const int done = int(m_result.nll.size());
        if (m_options.progress && (done % std::max(1, m_options.progressEvery) == 0 || done == m_total))
            m_options.progress({done, m_total, &m_result.nll});
        throwIfCancelled(m_options.cancel);
    }

    void full(int length)
    {
        // Chunks over a growing cache: the same as one pass (tests/core/tst_generation), with progress,
        // cancellation and logits for `chunk` rows at a time.
        const int chunk = std::max(1, m_options.fullChunk);
        KeyValueCache cache;
        for (int start = 0; start < length; start += chunk) {
            const int end = std::min(length, start + chunk);
            RunOptions run = runOptions();
            run.keepKeyValues = true;
            run.keepLogits = LogitRows::All;
            run.denseLimit = 0; // P is not needed: tiles, never a dense [heads, chunk, keys] per layer
            if (!cache.empty()) run.past = &cache.layers();
            const AttentionCapture c =
                m_model.run(std::vector<int>(m_ids.begin() + start, m_ids.begin() + end), {}, run);
            for (int t = start; t < end && t + 1 < length; ++t)
                record(c.logits.data() + size_t(t - start) * size_t(m_vocab), t + 1);
            cache.append(c.keyValues, start);
        }
    }

    void recompute(int window)
    {
        const int n = int(m_ids.size());
        const int head = std::min(window, n);
        RunOptions run = runOptions();
        run.denseLimit = 0; // no capture: the tiled core, never P [heads, window, window] per layer
        const std::vector<float> first =
            m_model.logits(std::vector<int>(m_ids.begin(), m_ids.begin() + head), run, LogitRows::All);
        for (int t = 0; t + 1 < head; ++t)
            record(first.data() + size_t(t) * size_t(m_vocab), t + 1);
        // The windows are independent passes, so threads take whole windows, one thread each: a pass of a
        // few hundred tokens split over threads op by op scales poorly (small products, a thread start per
        // op). Batches of a few windows per thread keep progress and cancellation prompt; the NLLs are
        // recorded in order.
        const int threads = m_options.threads > 0 ? m_options.threads : defaultThreadCount();
        RunOptions onePass = run;
        onePass.threads = 1;
        const int batch = 4 * threads;
        std::vector<std::vector<float>> last(static_cast<size_t>(batch));
        for (int t0 = window; t0 < n; t0 += batch) {
            const int count = std::min(batch, n - t0);
            parallelFor(count, threads, [&](int i) {
                const int t = t0 + i; // predicted from ids[t − window .. t − 1]
                last[size_t(i)] =
                    m_model.logits(std::vector<int>(m_ids.begin() + (t - window), m_ids.begin() + t), onePass,
                                   LogitRows::Last);
            });
            for (int i = 0; i < count; ++i)
                record(last[size_t(i)].data(), t0 + i);
        }
    }

    void sinksWindow(int cacheSize, int sinks)
    {
        const int n = int(m_ids.size());
        KeyValueCache cache;
        for (int t = 0; t + 1 < n; ++t) {
            if (cache.size() + 1 > cacheSize) cache.evict(sinks); // the oldest entry that is not a sink
            cache.assignSlotPositions();
            RunOptions run = runOptions();
            run.keepKeyValues = true;
            run.keepLogits = LogitRows::Last;
            run.positions = {cache.size()}; // the query's slot
            if (!cache.empty()) run.past = &cache.layers();
            const AttentionCapture c = m_model.run({m_ids[size_t(t)]}, {}, run);
            cache.append(c.keyValues, t);
            record(c.logits.data(), t + 1);
        }
    }

private:
    const TransformerModel& m_model;
    const std::vector<int>& m_ids;
    const StreamOptions& m_options;
    StreamEvaluation& m_result;
    const int m_total;
    const int m_vocab;
};

} // namespace

QString CachePolicy::name() const
{
    switch (kind) {
    case CachePolicyKind::Full:
        return QStringLiteral("full");
    case CachePolicyKind::Recompute:
        return QStringLiteral("recompute");
    case CachePolicyKind::SinksWindow:
        return sinks == 0 ? QStringLiteral("window") : QStringLiteral("sinks+window");
    }
    return {};
}

double StreamEvaluation::perplexity(int first) const
{
    if (first < 0 || first >= int(nll.size())) return std::numeric_limits<double>::quiet_NaN();
    double sum = 0;
    for (size_t i = size_t(first); i < nll.size(); ++i)
        sum += double(nll[i]);
    return std::exp(sum / double(nll.size() - size_t(first)));
}

std::vector<double> StreamEvaluation::runningPerplexity() const
{
    std::vector<double> running(nll.size());
    double sum = 0;
    for (size_t i = 0; i < nll.size(); ++i) {
        sum += double(nll[i]);
        running[i] = std::exp(sum / double(i + 1));
    }
    return running;
}

void checkStreamPolicy(const TransformerModel& model, const CachePolicy& policy)
{
    const QString where = QDir::toNativeSeparators(model.folder());
    const ModelConfig& config = model.config();
    if (!config.isDecoder())
        throw ModelError(where, QStringLiteral("only decoders read a text token by token (this is a %1 "
                                               "encoder)")
                                    .arg(config.modelType));
    if (policy.kind != CachePolicyKind::Full) {
        if (policy.cacheSize < 2 || policy.cacheSize > config.maxPositions)
            throw ModelError(where, QStringLiteral("a cache of %1 entries: it must hold 2 to %2 (the "
                                                   "model's positions)")
                                        .arg(policy.cacheSize)
                                        .arg(config.maxPositions));
        if (policy.sinks < 0 || policy.sinks >= policy.cacheSize)
            throw ModelError(where, QStringLiteral("%1 sinks in a cache of %2 entries leave no room for "
                                                   "the recent tokens")
                                        .arg(policy.sinks)
                                        .arg(policy.cacheSize));
    }
}

StreamEvaluation evaluateStream(const TransformerModel& model, const std::vector<int>& ids,
                                const CachePolicy& policy, const StreamOptions& options)
{
    checkStreamPolicy(model, policy);
    const QString where = QDir::toNativeSeparators(model.folder());
    const ModelConfig& config = model.config();
    if (ids.size() < 2) throw ModelError(where, QStringLiteral("the text needs at least two tokens"));
    for (size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < 0 || ids[i] >= config.vocabSize)
            throw ModelError(where, QStringLiteral("token id %1 at position %2 is outside the vocabulary of "
                                                   "%3 ids")
                                        .arg(ids[i])
                                        .arg(i)
                                        .arg(config.vocabSize));

    QElapsedTimer timer;
    timer.start();
    StreamEvaluation result;
    result.policy = policy;
    result.tokens = int(ids.size());
    const int n = int(ids.size());
    const int length = policy.kind == CachePolicyKind::Full ? std::min(n, config.maxPositions) : n;
    StreamRun run(model, ids, options, result, length - 1);
    // Every policy but Full runs one pass per token: converting F16 weights once, not once a pass, saves
    // about a tenth of a re-computation pass and more of a one-token step. The budget bounds the copies for
    // a large model (their values are a fresh conversion's either way).
    const auto keepWeights = model.keepConvertedWeights(qint64(256) << 20);
    switch (policy.kind) {
    case CachePolicyKind::Full:
        run.full(length);
        break;
    case CachePolicyKind::Recompute:
        run.recompute(policy.cacheSize);
        break;
    case CachePolicyKind::SinksWindow:
        run.sinksWindow(policy.cacheSize, policy.sinks);
        break;
    }
    if (policy.kind != CachePolicyKind::Full && policy.cacheSize - 1 < int(result.nll.size()))
        result.fullCacheFrom = policy.cacheSize - 1;
    result.seconds = double(timer.nsecsElapsed()) * 1e-9;
    return result;
}

std::vector<int> sinksWindowContents(const CachePolicy& policy, int t)
{
    std::vector<int> contents;
    const int size = std::min(t + 1, policy.cacheSize);
    if (t + 1 <= policy.cacheSize) {
        contents.resize(size_t(size));
        std::iota(contents.begin(), contents.end(), 0);
        return contents;
    }
    for (int s = 0; s < policy.sinks; ++s)
        contents.push_back(s);
    for (int i = t - (policy.cacheSize - policy.sinks) + 1; i <= t; ++i)
        contents.push_back(i);
    return contents;
}

} // namespace attnscope
