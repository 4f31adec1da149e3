#pragma once

#include "stats/headstats.h"

namespace attnscope {

// Builds one head's HeadStats from its attention matrix fed in row blocks, so that n×n is never held:
// feed rows [q0, q0+count) of P (row-major count × keys) in any order, then finish().
class HeadStatsAccumulator
{
public:
    // Without entropy (withEntropy false) the entropies stay 0 and no log is taken: the census's
    // contribution shares read only the column masses, and the logs are most of the cost.
    HeadStatsAccumulator(const TokenRoles& roles, int queries, int keys, bool withEntropy = true);

    void addRows(int q0, const float* rows, int count);
    HeadStats finish(int layer, int head, const LabelThresholds& thresholds) const;

private:
    // Sums over the query rows of one kind: non-special rows, and special rows (the fall-back when no
    // non-special row sees a key; then they are all the rows that do).
    struct Sums
    {
        int rows = 0;
        double entropy = 0, sink = 0, sink4 = 0, sep = 0, cls = 0, punct = 0, self = 0, learnedSink = 0;
        int selfRows = 0;
        double normalizedEntropy = 0;
        int normalizedRows = 0;
        double previous = 0;
        int previousRows = 0;
        double next = 0;
        int nextRows = 0;
    };
    void addRow(int query, const float* row, Sums& sums) const;

    const TokenRoles& m_roles;
    int m_queries, m_keys;
    bool m_withEntropy = true;
    Sums m_plain, m_special;
};

} // namespace attnscope
