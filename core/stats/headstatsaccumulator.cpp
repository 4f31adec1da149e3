#include "stats/headstatsaccumulator.h"

#include "kernels/cpukernelselection.h"

#include <algorithm>
#include <cmath>

namespace attnscope {

HeadStatsAccumulator::HeadStatsAccumulator(const TokenRoles& roles, int queries, int keys, bool withEntropy)
    : m_roles(roles), m_queries(queries), m_keys(keys), m_withEntropy(withEntropy)
{}

void HeadStatsAccumulator::addRows(int q0, const float* rows, int count)
{
    // This plain x86-64 loop (a libm log per cell) ran 5x slower after AVX code left the vector registers'
    // upper halves dirty (cpukernels.h); one vzeroupper per block keeps it at its own speed.
    kernels::cpuKernels().clearUpperVectorState();
    for (int r = 0; r < count; ++r) {
        const int query = q0 + r;
        const float* row = rows + size_t(r) * size_t(m_keys);
        // Each row once: the special rows' sums equal "all rows" whenever the fall-back is taken.
        addRow(query, row, m_roles.isSpecial(query) ? m_special : m_plain);
    }
}

void HeadStatsAccumulator::addRow(int query, const float* row, Sums& sums) const
{
    double total = 0, entropy = 0;
    for (int k = 0; k < m_keys; ++k) {
        const double p = row[k];
        total += p;
        if (m_withEntropy && p > 0) entropy -= p * std::log(p);
    }
    if (total <= 0) // a row that sees no key (padding) says nothing about the head
        return;
    ++sums.rows;
    sums.entropy += entropy;
    sums.learnedSink += 1.0 - total;
    // Visible keys from the mask structure, not from p > 0: far keys can underflow to 0 in float.
    const int visible = m_roles.causal ? std::min(query + 1, m_keys) : m_keys;
    if (visible >= 2) {
        sums.normalizedEntropy += entropy / std::log(double(visible));
        ++sums.normalizedRows;
    }
    if (m_keys > 0) sums.sink += row[0];
    double first4 = 0;
    for (int k = 0; k < std::min(4, m_keys); ++k)
        first4 += row[k];
    sums.sink4 += first4;
    for (int k : m_roles.sepPositions)
        if (k >= 0 && k < m_keys) sums.sep += row[k];
    for (int k : m_roles.clsPositions)
        if (k >= 0 && k < m_keys) sums.cls += row[k];
    for (int k : m_roles.punctuationPositions)
        if (k >= 0 && k < m_keys) sums.punct += row[k];
    if (query < m_keys) {
        sums.self += row[query];
        ++sums.selfRows;
    }
    if (query >= 1 && query - 1 < m_keys) {
        sums.previous += row[query - 1];
        ++sums.previousRows;
    }
    if (query + 1 < m_keys) {
        sums.next += row[query + 1];
        ++sums.nextRows;
    }
}

HeadStats HeadStatsAccumulator::finish(int layer, int head, const LabelThresholds& thresholds) const
{
    const Sums& s = m_plain.rows > 0 ? m_plain : m_special;
    auto mean = [](double sum, int n) { return n > 0 ? sum / n : 0.0; };
    HeadStats stats;
    stats.layer = layer;
    stats.head = head;
    stats.rowsUsed = s.rows;
    stats.entropy = mean(s.entropy, s.rows);
    stats.normalizedEntropy = mean(s.normalizedEntropy, s.normalizedRows);
    stats.sinkMass = mean(s.sink, s.rows);
    stats.learnedSinkMass = mean(s.learnedSink, s.rows);
    stats.sink4Mass = mean(s.sink4, s.rows);
    stats.sepMass = mean(s.sep, s.rows);
    stats.clsMass = mean(s.cls, s.rows);
    stats.punctMass = mean(s.punct, s.rows);
    stats.self = mean(s.self, s.selfRows);
    stats.previous = mean(s.previous, s.previousRows);
    stats.next = mean(s.next, s.nextRows);
    stats.label = classifyHead(stats, thresholds);
    return stats;
}

} // namespace attnscope
