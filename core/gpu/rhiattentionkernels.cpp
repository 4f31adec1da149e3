#include "gpu/rhiattentionkernels.h"

#include "gpu/computeframe.h"
#include "gpu/rhidevice.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace attnscope {

namespace {

// Parameter blocks: std140 with scalars only, so members pack at 4 bytes as in the shaders.
struct RopeParams
{
    qint32 tokens, heads, dim, pairs, interleaved, invocations;
};
struct ForwardParams
{
    qint32 queries, keys, heads, kvHeads, dim, causal, queryOffset, hasPadding;
    float scale;
    qint32 chunkBegin, chunkEnd, lastChunk;
};
struct TileParams
{
    qint32 rows, cols, dim, q0, k0, causal, queryOffset, hasPadding;
    float scale;
};
struct OverviewParams
{
    qint32 queries, keys, dim, causal, queryOffset, hasPadding, rows, cols;
    float scale;
    qint32 pairBegin, pairEnd;
};
struct PoolParams
{
    qint32 queries, keys, rows, cols;
};
struct ColumnSumParams
{
    qint32 keys, rows;
};

int groupsFor(long long items, int groupSize)
{
    return int((items + groupSize - 1) / groupSize);
}

// One flag per key in [k0, k1) (1 = visible), or a single unused 1 without a padding mask.
std::vector<quint32> keyVisibility(const AttentionOptions& options, int k0, int k1)
{
    if (options.keyPadding.empty()) return {1u};
    std::vector<quint32> flags(size_t(k1 - k0));
    for (int j = k0; j < k1; ++j)
        flags[size_t(j - k0)] = options.keyPadding[size_t(j)] != 0 ? 1u : 0u;
    return flags;
}

// L as hi + lo, two floats whose sum carries the double; a row that sees no key gets a hi so large
// that exp(S − hi) is 0 (the shaders avoid infinities).
std::vector<float> splitLogSumExp(const std::vector<double>& logSumExp, size_t first, size_t count)
{
    std::vector<float> split(count * 2);
    for (size_t i = 0; i < count; ++i) {
        const double l = logSumExp[first + i];
        const float hi = std::isinf(l) ? 3.0e38f : float(l);
        split[2 * i] = hi;
        split[2 * i + 1] = std::isinf(l) ? 0.0f : float(l - double(hi));
    }
    return split;
}

// Rows [first, first + count) of one head as a contiguous (count, d) block.
std::vector<float> headBlock(const HeadTensor& x, int head, int first, int count)
{
    std::vector<float> block(size_t(count) * size_t(x.dim));
    for (int t = 0; t < count; ++t)
        std::memcpy(block.data() + size_t(t) * size_t(x.dim), x.vector(first + t, head),
                    sizeof(float) * size_t(x.dim));
    return block;
}

// cos and sin of every (token, pair) angle, [tokens, pairs, 2], computed as applyRope does.
std::vector<float> ropeAngles(const RopeConfig& rope, int headDim, int tokens, int firstPosition)
{
    const std::vector<float> inv = ropeInverseFrequencies(rope, headDim);
    std::vector<float> angles(size_t(tokens) * inv.size() * 2);
    for (int t = 0; t < tokens; ++t) {
        const float position = float(rope.positionOffset + firstPosition + t);
        for (size_t p = 0; p < inv.size(); ++p) {
            const float angle = position * inv[p];
            angles[(size_t(t) * inv.size() + p) * 2] = std::cos(angle);
            angles[(size_t(t) * inv.size() + p) * 2 + 1] = std::sin(angle);
        }
    }
    return angles;
}

int kvHeadFor(int head, int heads, int kvHeads)
{
    return head / (heads / kvHeads);
}

} // namespace

RhiAttentionKernels::RhiAttentionKernels(QRhi& rhi, int loopIterationLimit)
    : m_rhi(rhi), m_loopIterationLimit(loopIterationLimit)
{
    using A = StorageAccess;
    m_rope =
        std::make_unique<ComputeKernel>(rhi, QStringLiteral("rope"), std::vector<A>{A::LoadStore, A::Load});
    m_forward = std::make_unique<ComputeKernel>(
        rhi, QStringLiteral("attention_forward"),
        std::vector<A>{A::Load, A::Load, A::Load, A::Load, A::LoadStore, A::LoadStore});
    m_tile = std::make_unique<ComputeKernel>(rhi, QStringLiteral("probability_tile"),
                                             std::vector<A>{A::Load, A::Load, A::Load, A::Load, A::Store});
    m_overview = std::make_unique<ComputeKernel>(
        rhi, QStringLiteral("attention_overview"),
        std::vector<A>{A::Load, A::Load, A::Load, A::Load, A::LoadStore, A::LoadStore});
    m_pool = std::make_unique<ComputeKernel>(rhi, QStringLiteral("overview_pool"),
                                             std::vector<A>{A::Load, A::Store});
    m_columnSums = std::make_unique<ComputeKernel>(rhi, QStringLiteral("column_sums"),
                                                   std::vector<A>{A::Load, A::Store});
}

RhiAttentionKernels::~RhiAttentionKernels() = default;

TiledAttentionResult RhiAttentionKernels::forward(const HeadTensor& q, const HeadTensor& k,
                                                  const HeadTensor& v, const AttentionOptions& options)
{
    ComputeFrame frame(m_rhi);
    QRhiBuffer* queries = frame.upload(q.values);
    QRhiBuffer* keys = frame.upload(k.values);
    QRhiBuffer* values = frame.upload(v.values);
    QRhiBuffer* visible = frame.upload(keyVisibility(options, 0, k.tokens));

    if (options.rope.enabled) {
        // A pass over Q and over K before attention, in place on the uploaded copies.
        const int pairs = options.rope.effectiveRotaryDim(q.dim) / 2;
        auto rotate = [&](const HeadTensor& x, QRhiBuffer* buffer, int firstPosition) {
            const int groups = std::min(groupsFor((long long)x.tokens * x.heads * pairs, 64), 4096);
            const RopeParams p{
                x.tokens,   x.heads, x.dim, pairs, options.rope.pairing == RopePairing::Interleaved ? 1 : 0,
                groups * 64};
            QRhiBuffer* angles = frame.upload(ropeAngles(options.rope, x.dim, x.tokens, firstPosition));
            frame.dispatch(*m_rope, frame.params(p), {buffer, angles}, groups);
        };
        rotate(q, queries, options.queryPositionOffset);
        rotate(k, keys, 0);
    }

    const size_t outputBytes = q.values.size() * sizeof(float);
    const size_t stateBytes = size_t(q.heads) * size_t(q.tokens) * 2 * sizeof(float);
    QRhiBuffer* output = frame.output(outputBytes);
    QRhiBuffer* rowState = frame.output(stateBytes);
    // Keys per dispatch: all of them, or as many as keep one invocation under the driver's loop limit
    // (per block of 16 keys an invocation runs about 34·d/4 loop iterations over vec4s: scores, output,
    // staging).
    int chunk = k.tokens;
    if (m_loopIterationLimit > 0)
        chunk = std::max(1, (m_loopIterationLimit - q.dim) / (34 * (q.dim / 4) + 64)) * 16;
    for (int begin = 0; begin < k.tokens; begin += chunk) {
        const int end = std::min(k.tokens, begin + chunk);
        const ForwardParams p{q.tokens,
                              k.tokens,
                              q.heads,
                              k.heads,
                              q.dim,
                              options.causal ? 1 : 0,
                              options.queryPositionOffset,
                              options.keyPadding.empty() ? 0 : 1,
                              options.effectiveScale(q.dim),
                              begin,
                              end == k.tokens ? (end + 15) / 16 * 16 : end,
                              end == k.tokens ? 1 : 0};
        frame.dispatch(*m_forward, frame.params(p), {queries, keys, values, visible, output, rowState},
                       groupsFor(q.tokens, 64), q.heads);
    }
    const std::vector<QByteArray> data = frame.submit({{output, outputBytes}, {rowState, stateBytes}});

    TiledAttentionResult result;
    result.output = HeadTensor(q.tokens, q.heads, q.dim);
    std::memcpy(result.output.values.data(), data[0].constData(), outputBytes);
    // L = m + ln l from the running max and sum, in double as the CPU computes it.
    const float* state = reinterpret_cast<const float*>(data[1].constData());
    result.logSumExp.resize(size_t(q.heads) * size_t(q.tokens));
    for (size_t i = 0; i < result.logSumExp.size(); ++i) {
        const float m = state[2 * i], l = state[2 * i + 1];
        result.logSumExp[i] =
            l > 0.0f ? double(m) + std::log(double(l)) : -std::numeric_limits<double>::infinity();
    }
    return result;
}

std::vector<float> RhiAttentionKernels::probabilityTile(const HeadTensor& q, const HeadTensor& k,
                                                        const std::vector<double>& logSumExp,
                                                        const AttentionOptions& options, int head, int q0,
                                                        int q1, int k0, int k1)
{
    const int rows = q1 - q0, cols = k1 - k0;
    const int kvHead = kvHeadFor(head, q.heads, k.heads);
    ComputeFrame frame(m_rhi);
    QRhiBuffer* queries = frame.upload(headBlock(q, head, q0, rows));
    QRhiBuffer* keys = frame.upload(headBlock(k, kvHead, k0, cols));
    QRhiBuffer* lse =
        frame.upload(splitLogSumExp(logSumExp, size_t(head) * size_t(q.tokens) + size_t(q0), size_t(rows)));
    QRhiBuffer* visible = frame.upload(keyVisibility(options, k0, k1));
    const size_t tileBytes = size_t(rows) * size_t(cols) * sizeof(float);
    QRhiBuffer* tile = frame.output(tileBytes);
    const TileParams p{rows,
                       cols,
                       q.dim,
                       q0,
                       k0,
                       options.causal ? 1 : 0,
                       options.queryPositionOffset,
                       options.keyPadding.empty() ? 0 : 1,
                       options.effectiveScale(q.dim)};
    frame.dispatch(*m_tile, frame.params(p), {queries, keys, lse, visible, tile}, groupsFor(cols, 16),
                   groupsFor(rows, 16));
    const QByteArray data = frame.submit({{tile, tileBytes}}).front();
    std::vector<float> result(size_t(rows) * size_t(cols));
    std::memcpy(result.data(), data.constData(), tileBytes);
    return result;
}

AttentionOverview RhiAttentionKernels::overview(const HeadTensor& q, const HeadTensor& k,
                                                const std::vector<double>& logSumExp,
                                                const AttentionOptions& options, int head, int maxCols,
                                                int maxRows)
{
    AttentionOverview overview = AttentionOverview::ofHead(head, q.tokens, k.tokens, maxCols, maxRows);
    const int rows = overview.rows, cols = overview.cols;

    ComputeFrame frame(m_rhi);
    QRhiBuffer* queries = frame.upload(headBlock(q, head, 0, q.tokens));
    QRhiBuffer* keys = frame.upload(headBlock(k, kvHeadFor(head, q.heads, k.heads), 0, k.tokens));
    QRhiBuffer* lse =
        frame.upload(splitLogSumExp(logSumExp, size_t(head) * size_t(q.tokens), size_t(q.tokens)));
    QRhiBuffer* visible = frame.upload(keyVisibility(options, 0, k.tokens));
    QRhiBuffer* keyPartial = frame.output(size_t(rows) * size_t(k.tokens) * 2 * sizeof(float));
    const size_t pooledBytes = size_t(rows) * size_t(cols) * 2 * sizeof(float);
    const size_t entropyBytes = size_t(q.tokens) * sizeof(float);
    const size_t columnBytes = size_t(k.tokens) * sizeof(float);
    QRhiBuffer* pooled = frame.output(pooledBytes);
    QRhiBuffer* entropy = frame.output(entropyBytes);
    QRhiBuffer* columnSums = frame.output(columnBytes);

    // Work per cell row: (tile of 16 queries, block of 64 keys) pairs, split into dispatches where the
    // driver limits one invocation's loop iterations (about 17·d + 150 per pair).
    const int maxTiles = groupsFor(groupsFor(q.tokens, rows), 16);
    const int maxPairs = maxTiles * groupsFor(k.tokens, 64);
    int chunk = maxPairs;
    if (m_loopIterationLimit > 0)
        chunk = std::max(1, (m_loopIterationLimit - k.tokens / 64 - 64) / (17 * q.dim + 150));
    for (int begin = 0; begin < maxPairs; begin += chunk) {
        const OverviewParams p{q.tokens,
                               k.tokens,
                               q.dim,
                               options.causal ? 1 : 0,
                               options.queryPositionOffset,
                               options.keyPadding.empty() ? 0 : 1,
                               rows,
                               cols,
                               options.effectiveScale(q.dim),
                               begin,
                               std::min(maxPairs, begin + chunk)};
        frame.dispatch(*m_overview, frame.params(p), {queries, keys, lse, visible, keyPartial, entropy},
                       rows);
    }
    const PoolParams pool{q.tokens, k.tokens, rows, cols};
    frame.dispatch(*m_pool, frame.params(pool), {keyPartial, pooled}, rows);
    const ColumnSumParams c{k.tokens, rows};
    frame.dispatch(*m_columnSums, frame.params(c), {keyPartial, columnSums}, groupsFor(k.tokens, 64));
    const std::vector<QByteArray> data =
        frame.submit({{pooled, pooledBytes}, {entropy, entropyBytes}, {columnSums, columnBytes}});

    const float* cells = reinterpret_cast<const float*>(data[0].constData());
    overview.pooledMax.resize(size_t(rows) * size_t(cols));
    overview.pooledMean.resize(overview.pooledMax.size());
    for (size_t i = 0; i < overview.pooledMax.size(); ++i) {
        overview.pooledMax[i] = cells[2 * i];
        overview.pooledMean[i] = cells[2 * i + 1];
    }
    overview.rowEntropies.resize(size_t(q.tokens));
    std::memcpy(overview.rowEntropies.data(), data[1].constData(), entropyBytes);
    overview.columnSums.resize(size_t(k.tokens));
    std::memcpy(overview.columnSums.data(), data[2].constData(), columnBytes);
    return overview;
}

} // namespace attnscope
