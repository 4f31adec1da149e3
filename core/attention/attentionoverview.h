#pragma once

// A whole head of P at a glance, computed tile by tile from Q, K and the row logsumexp: the n×n
// matrix is never held. This is the CPU reference the GPU overview kernel is checked against.
//
// Cells: the (n_q, n_k) matrix is pooled to rows × cols cells with rows = min(n_q, maxRows) and
// cols = min(n_k, maxCols). Query i falls in cell row floor(i · rows / n_q), key j in cell column
// floor(j · cols / n_k), so every cell covers at least one query and one key.

#include "attention/attention.h"

#include <algorithm>
#include <vector>

namespace attnscope {

struct AttentionOverview
{
    int head = 0;
    int queries = 0, keys = 0;
    int rows = 0, cols = 0;
    std::vector<float> pooledMax;    // [rows, cols] largest P in the cell
    std::vector<float> pooledMean;   // [rows, cols] mean of P over the cell; masked entries count as 0
    std::vector<float> columnSums;   // [n_k] Σ_i P(i, j): attention received by key j (sink mass)
    std::vector<float> rowEntropies; // [n_q] −Σ_j P(i, j) ln P(i, j), in nats; 0 for a row that sees no key

    // The overview of `head` sized as the file's opening comment says, its vectors still empty.
    static AttentionOverview ofHead(int head, int queries, int keys, int maxCols, int maxRows)
    {
        AttentionOverview overview;
        overview.head = head;
        overview.queries = queries;
        overview.keys = keys;
        overview.rows = std::min(queries, maxRows);
        overview.cols = std::min(keys, maxCols);
        return overview;
    }

    // First index of cell `cell` when `count` items are split into `cells` cells: ceil(cell · count / cells).
    static int cellStart(int cell, int count, int cells)
    {
        return int((static_cast<long long>(cell) * count + cells - 1) / cells);
    }
    static int cellOf(int index, int count, int cells)
    {
        return int(static_cast<long long>(index) * cells / count);
    }
};

// Shapes: rotatedQueries [n_q, H, d] and rotatedKeys [n_k, H_kv, d] after RoPE (rotateForAttention),
// logSumExp [H, n_q] from attentionTiled. maxCols and maxRows must be positive.
AttentionOverview attentionOverview(const HeadTensor& rotatedQueries, const HeadTensor& rotatedKeys,
                                    const std::vector<double>& logSumExp, const AttentionOptions& options,
                                    int head, int maxCols, int maxRows);

} // namespace attnscope
