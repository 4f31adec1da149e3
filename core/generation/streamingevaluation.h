#pragma once

// The StreamingLLM experiment (Xiao et al., "Efficient Streaming Language Models with Attention Sinks",
// ICLR 2024): a decoder reads a long text token by token under a KV-cache policy, and each token's negative
// log-likelihood is recorded. The policies:
//
//   full          one pass with every earlier token, up to the model's positions (the text is cut there)
//   recompute     sliding window with re-computation: token t is predicted by a fresh pass over the
//                 previous `cacheSize` tokens at positions 0 .. cacheSize − 1 (the costly gold standard)
//   sinks+window  a KV cache of `cacheSize` entries, the current token included: the first `sinks` tokens
//                 and the most recent cacheSize − sinks; once full, the oldest non-sink entry is evicted
//                 before the new token's keys and values are added. Positions are assigned inside the
//                 cache (slot 0 .. size − 1; keys are cached before RoPE and rotated at their slot), as the
//                 paper does. sinks = 0 is window attention with eviction.
//
// The same definitions as tools/train-builtin-models/check_streaming.py (its "recompute", "window" and
// "sinks+window"; its "dense" extrapolates past the model's positions, which this runtime refuses).
// Off the GUI thread: options.cancel stops a run between tokens (OperationCancelled), options.progress
// reports each prediction (with the NLL so far, to plot as it goes).

#include <QString>
#include <atomic>
#include <functional>
#include <vector>

namespace attnscope {

class TransformerModel;

enum class CachePolicyKind { Full, Recompute, SinksWindow };

struct CachePolicy
{
    CachePolicyKind kind = CachePolicyKind::SinksWindow;
    int cacheSize = 256; // entries (recompute: tokens of context); unused by Full
    int sinks = 0;       // SinksWindow: initial tokens kept; 0 = window only

    static CachePolicy full() { return {CachePolicyKind::Full, 0, 0}; }
    static CachePolicy recompute(int cacheSize) { return {CachePolicyKind::Recompute, cacheSize, 0}; }
    static CachePolicy sinksWindow(int cacheSize, int sinks)
    {
        return {CachePolicyKind::SinksWindow, cacheSize, sinks};
    }
    // Recent entries kept besides the sinks.
    int window() const { return cacheSize - sinks; }
    // "full", "recompute", "window" (sinks 0), "sinks+window".
    QString name() const;
};

struct StreamProgress
{
    int done = 0;                            // predictions made
    int total = 0;                           // predictions this policy makes
    const std::vector<float>* nll = nullptr; // the NLL so far (done entries)
};

struct StreamOptions
{
    int threads = 0;                           // 0 = all cores
    const std::atomic<bool>* cancel = nullptr; // checked between tokens (and layers)
    std::function<void(const StreamProgress&)> progress;
    int progressEvery = 16; // predictions between two progress calls (the last one is always reported)
    int fullChunk = 128;    // Full: tokens per pass over the growing cache
};

struct StreamEvaluation
{
    CachePolicy policy;
    int tokens = 0; // the text's tokens
    // nll[i] = −ln p(ids[i + 1] | what the policy keeps of ids[0 .. i]), in nats. Full: only the predictions
    // within the model's positions (min(tokens, maxPositions) − 1 of them).
    std::vector<float> nll;
    // First index of nll made with a full cache (cacheSize − 1), where eviction (or re-computation over a
    // sliding window) begins; −1 when it never does (Full, or a text shorter than the cache).
    int fullCacheFrom = -1;
    double seconds = 0;

    // exp(mean nll) over nll[first ..]; NaN when that is empty.
    double perplexity(int first = 0) const;
    // exp(mean nll[0 .. i]) for each i: the running perplexity a plot shows.
    std::vector<double> runningPerplexity() const;
};

// Throws ModelError when `model` cannot run `policy` (not a decoder, a cache of fewer than 2 or more than the
// model's positions, sinks outside [0, cacheSize)): callers check every policy before running the first.
void checkStreamPolicy(const TransformerModel& model, const CachePolicy& policy);

// Throws ModelError for a model that cannot (not a decoder, no LM head, a cache larger than its positions,
// fewer than two tokens, sinks outside [0, cacheSize)), OperationCancelled.
StreamEvaluation evaluateStream(const TransformerModel& model, const std::vector<int>& ids,
                                const CachePolicy& policy, const StreamOptions& options = {});

// The sequence indices a sinks+window cache holds while token t is the query (t included), in cache order.
std::vector<int> sinksWindowContents(const CachePolicy& policy, int t);

} // namespace attnscope
