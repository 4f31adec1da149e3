#include "attention/attention.h"

#include "util/parallel.h"

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace attnscope {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Stride = Eigen::OuterStride<>;
using ConstHeadView = Eigen::Map<const RowMatrix, 0, Stride>;
using HeadView = Eigen::Map<RowMatrix, 0, Stride>;

constexpr float kNegativeInfinity = -std::numeric_limits<float>::infinity();

// Rows [first, first+count) of one head of x, as a (count, d) matrix view over the interleaved storage.
ConstHeadView headRows(const HeadTensor& x, int head, int first, int count)
{
    return ConstHeadView(x.vector(first, head), count, x.dim, Stride(x.tokenStride()));
}

HeadView headRows(HeadTensor& x, int head, int first, int count)
{
    return HeadView(x.vector(first, head), count, x.dim, Stride(x.tokenStride()));
}

int kvHeadFor(int head, int heads, int kvHeads)
{
    return head / (heads / kvHeads);
}

// Gemma 2's soft cap on scaled scores, applied before the mask: S = c · tanh(S / c).
template <typename Block> void softCapScores(Block&& scores, float cap)
{
    if (cap > 0.0f) scores = ((scores.array() / cap).tanh() * cap).matrix();
}

// Writes -inf into the masked cells of the score block whose top-left cell is (q0, k0).
void maskScores(RowMatrix& scores, int q0, int k0, const AttentionOptions& options)
{
    for (int r = 0; r < scores.rows(); ++r)
        for (int c = 0; c < scores.cols(); ++c)
            if (options.isMasked(q0 + r, k0 + c)) scores(r, c) = kNegativeInfinity;
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
    const bool anyMask = options.hasMask();

    parallelFor(q.heads, options.threads, [&](int head) {
        const int kvHead = kvHeadFor(head, q.heads, k.heads);
        RowMatrix scores(q.tokens, k.tokens); // S for this head, (n_q, n_k)
        if (k.tokens > 0)
            // Scale folded into Q, exactly as the tiled path does, so both see bit-identical scores.
            scores.noalias() = RowMatrix(headRows(q, head, 0, q.tokens) * scale) *
                               headRows(k, kvHead, 0, k.tokens).transpose();
        softCapScores(scores, options.softCap);
        if (anyMask) maskScores(scores, 0, 0, options);

        Eigen::Map<RowMatrix> probabilities(result.probabilities.data() + size_t(head) * q.tokens * k.tokens,
                                            q.tokens, k.tokens);
        for (int i = 0; i < q.tokens; ++i) {
            const float rowMax = k.tokens > 0 ? scores.row(i).maxCoeff() : kNegativeInfinity;
            if (rowMax == kNegativeInfinity) {
                probabilities.row(i).setZero(); // the row sees no key: P is 0
                continue;
            }
            probabilities.row(i) = (scores.row(i).array() - rowMax).exp();
            probabilities.row(i) /= probabilities.row(i).sum();
        }
        if (k.tokens > 0)
            headRows(result.output, head, 0, q.tokens).noalias() =
                probabilities * headRows(v, kvHead, 0, k.tokens);
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
    const bool anyMask = options.hasMask();

    parallelFor(q.heads * queryBlocks, options.threads, [&](int task) {
        // Heads vary fastest so that threads starting together share K/V blocks in cache.
        const int head = task % q.heads;
        const int q0 = (task / q.heads) * options.queryBlock;
        const int q1 = std::min(q.tokens, q0 + options.queryBlock);
        const int rows = q1 - q0;
        const int kvHead = kvHeadFor(head, q.heads, k.heads);
        const int keyEnd = causalKeyEnd(q1, k.tokens, options); // later key blocks are fully masked: skipped

        const RowMatrix scaledQueries = headRows(q, head, q0, rows) * scale;
        Eigen::VectorXf runningMax = Eigen::VectorXf::Constant(rows, kNegativeInfinity);
        Eigen::VectorXf runningSum = Eigen::VectorXf::Zero(rows);
        RowMatrix accumulator = RowMatrix::Zero(rows, q.dim);
        RowMatrix scores;

        for (int k0 = 0; k0 < keyEnd; k0 += options.keyBlock) {
            const int k1 = std::min(keyEnd, k0 + options.keyBlock);
            scores.noalias() = scaledQueries * headRows(k, kvHead, k0, k1 - k0).transpose();
            softCapScores(scores, options.softCap);
            const bool blockNeedsMask = !options.keyPadding.empty() || options.slidingWindow > 0 ||
                                        (options.causal && k1 - 1 > q0 + options.queryPositionOffset);
            if (anyMask && blockNeedsMask) maskScores(scores, q0, k0, options);

            for (int r = 0; r < rows; ++r) {
                const float blockMax = scores.row(r).maxCoeff();
                const float newMax = std::max(runningMax[r], blockMax);
                if (newMax == kNegativeInfinity) { // nothing visible yet in this row
                    scores.row(r).setZero();
                    continue;
                }
                const float rescale =
                    runningMax[r] == kNegativeInfinity ? 0.0f : std::exp(runningMax[r] - newMax);
                scores.row(r) = (scores.row(r).array() - newMax).exp();
                runningSum[r] = runningSum[r] * rescale + scores.row(r).sum();
                accumulator.row(r) *= rescale;
                runningMax[r] = newMax;
            }
            accumulator.noalias() += scores * headRows(v, kvHead, k0, k1 - k0);
        }

        HeadView out = headRows(result.output, head, q0, rows);
        for (int r = 0; r < rows; ++r) {
            double* lse = &result.logSumExp[size_t(head) * q.tokens + size_t(q0 + r)];
            if (runningSum[r] > 0.0f) {
                out.row(r) = accumulator.row(r) / runningSum[r];
                *lse = double(runningMax[r]) + std::log(double(runningSum[r]));
            } else {
                out.row(r).setZero();
                *lse = -std::numeric_limits<double>::infinity();
            }
        }
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
    const RowMatrix scaledQueries = headRows(q, head, q0, rows) * options.effectiveScale(q.dim);
    RowMatrix scores = scaledQueries * headRows(k, kvHead, k0, cols).transpose();
    softCapScores(scores, options.softCap);
    Eigen::Map<RowMatrix> out(tile.data(), rows, cols);
    for (int r = 0; r < rows; ++r) {
        const double lse = logSumExp[size_t(head) * q.tokens + size_t(q0 + r)];
        if (std::isinf(lse)) continue;
        for (int c = 0; c < cols; ++c)
            out(r, c) = options.isMasked(q0 + r, k0 + c) ? 0.0f : float(std::exp(double(scores(r, c)) - lse));
    }
    return tile;
}

} // namespace attnscope
