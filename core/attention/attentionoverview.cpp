#include "attention/attentionoverview.h"

#include "util/parallel.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace attnscope {

namespace {

// What one worker accumulates over its share of the query rows; merged at the end.
// Sums are kept in double so that the reference is more exact than any float32 implementation.
struct OverviewAccumulator
{
    std::vector<float> cellMax;    // [rows, cols]
    std::vector<double> cellSum;   // [rows, cols]
    std::vector<double> columnSum; // [n_k]

    OverviewAccumulator(int rows, int cols, int keys)
        : cellMax(size_t(rows) * size_t(cols), 0.0f), cellSum(size_t(rows) * size_t(cols), 0.0),
          columnSum(size_t(keys), 0.0)
    {}
};

constexpr int kQueryBlock = 64;
constexpr int kKeyBlock = 256;

} // namespace

AttentionOverview attentionOverview(const HeadTensor& q, const HeadTensor& k,
                                    const std::vector<double>& logSumExp, const AttentionOptions& options,
                                    int head, int maxCols, int maxRows)
{
    if (maxCols <= 0 || maxRows <= 0)
        throw std::invalid_argument("attentionOverview: the overview needs at least one cell (got " +
                                    std::to_string(maxCols) + "x" + std::to_string(maxRows) + ")");
    if (head < 0 || head >= q.heads)
        throw std::invalid_argument("attentionOverview: head " + std::to_string(head) + " of " +
                                    std::to_string(q.heads));
    if (logSumExp.size() != size_t(q.heads) * size_t(q.tokens))
        throw std::invalid_argument("attentionOverview: logsumexp does not match the queries");

    AttentionOverview overview = AttentionOverview::ofHead(head, q.tokens, k.tokens, maxCols, maxRows);
    overview.pooledMax.assign(size_t(overview.rows) * size_t(overview.cols), 0.0f);
    overview.pooledMean.assign(overview.pooledMax.size(), 0.0f);
    overview.columnSums.assign(size_t(k.tokens), 0.0f);
    overview.rowEntropies.assign(size_t(q.tokens), 0.0f);
    if (q.tokens == 0 || k.tokens == 0) return overview;
    const int rows = overview.rows, cols = overview.cols;

    // Contiguous runs of query blocks per worker, so each worker owns its rows' entropies outright.
    const int queryBlocks = (q.tokens + kQueryBlock - 1) / kQueryBlock;
    const int workers = std::min(queryBlocks, options.threads > 0 ? options.threads : defaultThreadCount());
    std::vector<OverviewAccumulator> partial(size_t(workers), OverviewAccumulator(rows, cols, k.tokens));

    parallelFor(workers, workers, [&](int worker) {
        OverviewAccumulator& acc = partial[size_t(worker)];
        const int firstBlock = int(static_cast<long long>(worker) * queryBlocks / workers);
        const int lastBlock = int(static_cast<long long>(worker + 1) * queryBlocks / workers);
        for (int block = firstBlock; block < lastBlock; ++block) {
            const int q0 = block * kQueryBlock, q1 = std::min(q.tokens, q0 + kQueryBlock);
            std::vector<double> entropy(size_t(q1 - q0), 0.0);
            for (int k0 = 0; k0 < k.tokens; k0 += kKeyBlock) {
                const int k1 = std::min(k.tokens, k0 + kKeyBlock);
                // P tile (q1−q0, k1−k0): exactly what the heatmap would show for this rectangle.
                const std::vector<float> tile =
                    probabilityTile(q, k, logSumExp, options, head, q0, q1, k0, k1);
                for (int i = q0; i < q1; ++i) {
                    const float* p = tile.data() + size_t(i - q0) * size_t(k1 - k0);
                    const size_t cellRow =
                        size_t(AttentionOverview::cellOf(i, q.tokens, rows)) * size_t(cols);
                    for (int j = k0; j < k1; ++j) {
                        const float pij = p[j - k0];
                        const size_t cell = cellRow + size_t(AttentionOverview::cellOf(j, k.tokens, cols));
                        acc.cellMax[cell] = std::max(acc.cellMax[cell], pij);
                        acc.cellSum[cell] += pij;
                        acc.columnSum[size_t(j)] += pij;
                        if (pij > 0.0f) entropy[size_t(i - q0)] -= double(pij) * std::log(double(pij));
                    }
                }
            }
            for (int i = q0; i < q1; ++i)
                overview.rowEntropies[size_t(i)] = float(entropy[size_t(i - q0)]);
        }
    });

    std::vector<double> cellSum(overview.pooledMax.size(), 0.0), columnSum(size_t(k.tokens), 0.0);
    for (const OverviewAccumulator& acc : partial) {
        for (size_t c = 0; c < cellSum.size(); ++c) {
            overview.pooledMax[c] = std::max(overview.pooledMax[c], acc.cellMax[c]);
            cellSum[c] += acc.cellSum[c];
        }
        for (size_t j = 0; j < columnSum.size(); ++j)
            columnSum[j] += acc.columnSum[j];
    }
    for (int r = 0; r < rows; ++r) {
        const int cellQueries = AttentionOverview::cellStart(r + 1, q.tokens, rows) -
                                AttentionOverview::cellStart(r, q.tokens, rows);
        for (int c = 0; c < cols; ++c) {
            const int cellKeys = AttentionOverview::cellStart(c + 1, k.tokens, cols) -
                                 AttentionOverview::cellStart(c, k.tokens, cols);
            const size_t cell = size_t(r) * size_t(cols) + size_t(c);
            overview.pooledMean[cell] = float(cellSum[cell] / (double(cellQueries) * double(cellKeys)));
        }
    }
    for (size_t j = 0; j < columnSum.size(); ++j)
        overview.columnSums[j] = float(columnSum[j]);
    return overview;
}

} // namespace attnscope
