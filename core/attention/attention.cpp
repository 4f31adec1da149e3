#include "attention/attention.h"

#include "kernels/cpukernelselection.h"
#include "util/parallel.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

// The per-head arithmetic (scores, softmax, P·V, the online softmax) is in core/kernels/cpukernelvariant.cpp,
// compiled once per instruction-set level; this file checks the inputs, shapes the results and splits the
// work over threads, in plain x86-64 code.

namespace attnscope {

namespace {

// One head's rows [first, first+count) of x, as the kernels read them.
kernels::ConstRows headRows(const HeadTensor& x, int head, int first, int count)
{
    return {x.vector(first, head), count, x.dim, x.tokenStride()};
}

kernels::Rows headRows(HeadTensor& x, int head, int first, int count)
{
    return {x.vector(first, head), count, x.dim, x.tokenStride()};
}

// The mask of query head `head` (-1: no sink, for probabilityTile, whose L already includes it).
kernels::KeyMask keyMask(const AttentionOptions& options, int head = -1)
{
    kernels::KeyMask mask;
    mask.causal = options.causal;
    mask.queryPositionOffset = options.queryPositionOffset;
    mask.slidingWindow = options.slidingWindow;
    mask.keyPadding = options.keyPadding.empty() ? nullptr : options.keyPadding.data();
    if (head >= 0 && !options.sinks.empty()) {
        mask.hasSink = true;
        mask.sink = options.sinks[size_t(head)];
    }
    return mask;
}

int kvHeadFor(int head, int heads, int kvHeads)
{
    return head / (heads / kvHeads);
}

// Last key (exclusive) that any query in [q0, q1) may see under the causal mask.
int causalKeyEnd(int q1, int keys, const AttentionOptions& options)
{
    if (!options.causal) return keys;
    const long long end = (long long)(q1 - 1) + options.queryPositionOffset + 1;
    return int(std::max(0LL, std::min<long long>(keys, end)));
}

} // namespace

float AttentionOptions::effectiveScale(int headDim) const
{
    return scale ? *scale : 1.0f / std::sqrt(float(headDim));
}

void validateAttentionInputs(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v,
                             const AttentionOptions& options)
{
    auto fail = [](const std::string& what) { throw std::invalid_argument("attention: " + what); };
    if (q.heads <= 0 || k.heads <= 0) fail("Q and K need at least one head");
    if (q.dim != k.dim || k.dim != v.dim || q.dim <= 0)
        fail("Q, K and V must share one positive head dimension (got " + std::to_string(q.dim) + ", " +
             std::to_string(k.dim) + ", " + std::to_string(v.dim) + ")");
    if (k.tokens != v.tokens || k.heads != v.heads) fail("K and V must have the same tokens and heads");
    if (q.heads % k.heads != 0)
        fail(std::to_string(q.heads) + " query heads are not a multiple of " + std::to_string(k.heads) +
             " key/value heads");
    if (!options.keyPadding.empty() && int(options.keyPadding.size()) != k.tokens)
        fail("key padding has " + std::to_string(options.keyPadding.size()) + " flags for " +
             std::to_string(k.tokens) + " keys");
    if (q.values.size() != size_t(q.tokens) * size_t(q.heads) * size_t(q.dim) ||
        k.values.size() != size_t(k.tokens) * size_t(k.heads) * size_t(k.dim) ||
        v.values.size() != size_t(v.tokens) * size_t(v.heads) * size_t(v.dim))
        fail("tensor storage does not match its shape");
    if (options.queryBlock <= 0 || options.keyBlock <= 0) fail("block sizes must be positive");
    if (options.slidingWindow < 0) fail("the sliding window must not be negative");
    if (!(options.softCap >= 0.0f) || std::isinf(options.softCap))
        fail("the soft cap must be a finite number >= 0");
    if (!options.sinks.empty() && int(options.sinks.size()) != q.heads)
        fail(std::to_string(options.sinks.size()) + " sink logits for " + std::to_string(q.heads) +
             " query heads");
    for (float sink : options.sinks)
        if (!std::isfinite(sink)) fail("a sink logit is not a finite number");
}

RotatedQueryKey rotateForAttention(const HeadTensor& q, const HeadTensor& k, const AttentionOptions& options)
{
    RotatedQueryKey rotated{q, k};
    if (options.rope.enabled) {
        applyRope(rotated.queries, options.rope, options.queryPositionOffset);
        applyRope(rotated.keys, options.rope, 0);
    }
    return rotated;
}

// The reference: materialise S, mask, softmax, multiply. Parallel over heads only, kept plain on purpose.
FullAttentionResult attentionFull(const HeadTensor& qIn, const HeadTensor& kIn, const HeadTensor& v,
                                  const AttentionOptions& options)
{
    validateAttentionInputs(qIn, kIn, v, options);
    RotatedQueryKey rotated; // only with RoPE: without it the scores use Q and K as given, uncopied
    if (options.rope.enabled) rotated = rotateForAttention(qIn, kIn, options);
    const HeadTensor& q = options.rope.enabled ? rotated.queries : qIn;
    const HeadTensor& k = options.rope.enabled ? rotated.keys : kIn;

    FullAttentionResult result;
    result.heads = q.heads;
    result.queries = q.tokens;
    result.keys = k.tokens;
    result.output = HeadTensor(q.tokens, q.heads, q.dim);
    // Not zeroed here: each head's task writes every row of its own slice (in parallel).
    result.probabilities.resize(size_t(q.heads) * size_t(q.tokens) * size_t(k.tokens));
    if (q.tokens == 0) return result;
    const float scale = options.effectiveScale(q.dim);
    const kernels::CpuKernels& cpu = kernels::cpuKernels();

    parallelFor(q.heads, options.threads, [&](int head) {
        const int kvHead = kvHeadFor(head, q.heads, k.heads);
        const kernels::KeyMask mask = keyMask(options, head);
        cpu.fullAttentionHead(headRows(q, head, 0, q.tokens), headRows(k, kvHead, 0, k.tokens),
                              headRows(v, kvHead, 0, k.tokens), scale, options.softCap, &mask,
                              result.probabilities.data() + size_t(head) * q.tokens * k.tokens,
                              headRows(result.output, head, 0, q.tokens));
    });
    return result;
}

// FlashAttention on the CPU. One task is (head, block of queries); it streams over key blocks keeping
// per row the running max m, the running sum l of exp(s − m) and the unnormalised output.
// Only a (queryBlock, keyBlock) score tile exists at any time per thread.
TiledAttentionResult attentionTiled(const HeadTensor& qIn, const HeadTensor& kIn, const HeadTensor& v,
                                    const AttentionOptions& options)
{
    validateAttentionInputs(qIn, kIn, v, options);
    RotatedQueryKey rotated;
    if (options.rope.enabled) rotated = rotateForAttention(qIn, kIn, options);
    const HeadTensor& q = options.rope.enabled ? rotated.queries : qIn;
    const HeadTensor& k = options.rope.enabled ? rotated.keys : kIn;

    TiledAttentionResult result;
    result.output = HeadTensor(q.tokens, q.heads, q.dim);
    result.logSumExp.assign(size_t(q.heads) * size_t(q.tokens), -std::numeric_limits<double>::infinity());
    if (q.tokens == 0) return result;

    const float scale = options.effectiveScale(q.dim);
    const int queryBlocks = (q.tokens + options.queryBlock - 1) / options.queryBlock;
    const kernels::CpuKernels& cpu = kernels::cpuKernels();

    parallelFor(q.heads * queryBlocks, options.threads, [&](int task) {
        // Heads vary fastest so that threads starting together share K/V blocks in cache.
        const int head = task % q.heads;
        const int q0 = (task / q.heads) * options.queryBlock;
        const int q1 = std::min(q.tokens, q0 + options.queryBlock);
        const int kvHead = kvHeadFor(head, q.heads, k.heads);
        const int keyEnd = causalKeyEnd(q1, k.tokens, options); // later key blocks are fully masked: skipped
        const kernels::KeyMask mask = keyMask(options, head);
        cpu.tiledAttentionBlock(headRows(q, head, q0, q1 - q0), q0, headRows(k, kvHead, 0, keyEnd),
                                headRows(v, kvHead, 0, keyEnd), options.keyBlock, scale, options.softCap,
                                &mask, headRows(result.output, head, q0, q1 - q0),
                                &result.logSumExp[size_t(head) * q.tokens + size_t(q0)]);
    });
    return result;
}

std::vector<float> probabilityTile(const HeadTensor& q, const HeadTensor& k,
                                   const std::vector<double>& logSumExp, const AttentionOptions& options,
                                   int head, int q0, int q1, int k0, int k1)
{
    if (head < 0 || head >= q.heads || q0 < 0 || q1 > q.tokens || q0 > q1 || k0 < 0 || k1 > k.tokens ||
        k0 > k1)
        throw std::invalid_argument(
            "probabilityTile: rectangle [" + std::to_string(q0) + "," + std::to_string(q1) + ")x[" +
            std::to_string(k0) + "," + std::to_string(k1) + ") of head " + std::to_string(head) +
            " is outside the " + std::to_string(q.tokens) + "x" + std::to_string(k.tokens) + " matrix with " +
            std::to_string(q.heads) + " heads");
    if (logSumExp.size() != size_t(q.heads) * size_t(q.tokens))
        throw std::invalid_argument("probabilityTile: logsumexp does not match the queries");
    const int rows = q1 - q0, cols = k1 - k0;
    std::vector<float> tile(size_t(rows) * size_t(cols), 0.0f);
    if (rows == 0 || cols == 0) return tile;
    const int kvHead = kvHeadFor(head, q.heads, k.heads);
    const kernels::KeyMask mask = keyMask(options);
    kernels::cpuKernels().probabilityTile(headRows(q, head, q0, rows), q0, headRows(k, kvHead, k0, cols), k0,
                                          &logSumExp[size_t(head) * q.tokens + size_t(q0)],
                                          options.effectiveScale(q.dim), options.softCap, &mask, tile.data());
    return tile;
}

} // namespace attnscope
