#pragma once

#include <vector>

namespace attnscope {

// A small picture of an n_q × n_k attention matrix: each output cell pools a block of rows and columns
// (max keeps a one-token-wide diagonal visible at 2,048 tokens; mean preserves mass). Fed in row blocks
// like HeadStatsAccumulator, so n×n is never held. When n_q, n_k fit, cells are the exact values.
class AttentionOverview
{
public:
    enum class Pooling { Max, Mean };

    AttentionOverview(int queries, int keys, int maxSize, Pooling pooling = Pooling::Max);

    int rows() const { return m_rows; }
    int cols() const { return m_cols; }
    int queries() const { return m_queries; }
    int keys() const { return m_keys; }
    // Matrix rows [firstQuery(r), firstQuery(r+1)) pool into overview row r; same for columns.
    int firstQuery(int row) const { return int((long long)row * m_queries / m_rows); }
    int firstKey(int col) const { return int((long long)col * m_keys / m_cols); }

    void addRows(int q0, const float* rows, int count);
    const std::vector<float>& values() const { return m_values; } // row-major rows × cols (after finish for Mean)
    void finish();

private:
    int m_queries, m_keys, m_rows, m_cols;
    Pooling m_pooling;
    std::vector<int> m_rowOf, m_colOf;
    std::vector<float> m_values;
};

} // namespace attnscope
