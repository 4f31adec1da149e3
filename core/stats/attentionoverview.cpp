#include "stats/attentionoverview.h"

#include <algorithm>

namespace attnscope {

AttentionOverview::AttentionOverview(int queries, int keys, int maxSize, Pooling pooling)
    : m_queries(std::max(0, queries)), m_keys(std::max(0, keys)), m_rows(std::clamp(queries, 1, std::max(1, maxSize))),
      m_cols(std::clamp(keys, 1, std::max(1, maxSize))), m_pooling(pooling)
{
    m_rowOf.resize(size_t(m_queries));
    for (int r = 0; r < m_rows; ++r)
        for (int q = firstQuery(r); q < firstQuery(r + 1); ++q)
            m_rowOf[size_t(q)] = r;
    m_colOf.resize(size_t(m_keys));
    for (int c = 0; c < m_cols; ++c)
        for (int k = firstKey(c); k < firstKey(c + 1); ++k)
            m_colOf[size_t(k)] = c;
    m_values.assign(size_t(m_rows) * size_t(m_cols), 0.0f);
}

void AttentionOverview::addRows(int q0, const float* rows, int count)
{
    for (int r = 0; r < count; ++r) {
        const int q = q0 + r;
        if (q < 0 || q >= m_queries)
            continue;
        float* out = m_values.data() + size_t(m_rowOf[size_t(q)]) * size_t(m_cols);
        const float* row = rows + size_t(r) * size_t(m_keys);
        if (m_pooling == Pooling::Max) {
            for (int k = 0; k < m_keys; ++k)
                out[m_colOf[size_t(k)]] = std::max(out[m_colOf[size_t(k)]], row[k]);
        } else {
            for (int k = 0; k < m_keys; ++k)
                out[m_colOf[size_t(k)]] += row[k];
        }
    }
}

void AttentionOverview::finish()
{
    if (m_pooling != Pooling::Mean)
        return;
    for (int r = 0; r < m_rows; ++r)
        for (int c = 0; c < m_cols; ++c) {
            const int cells = (firstQuery(r + 1) - firstQuery(r)) * (firstKey(c + 1) - firstKey(c));
            if (cells > 0)
                m_values[size_t(r) * size_t(m_cols) + size_t(c)] /= float(cells);
        }
}

} // namespace attnscope
