#include "render/heatmapcomparison.h"

#include <QLatin1Char>
#include <algorithm>
#include <cmath>

namespace attnscope {

HeatmapData heatmapDifference(const HeatmapData& a, const HeatmapData& b, float* largest)
{
    HeatmapData diff = a;
    for (size_t i = 0; i < diff.values.size(); ++i)
        diff.values[i] = a.values[i] - b.values[i];
    float most = 0;
    for (float v : diff.values)
        most = std::max(most, std::abs(v));
    diff.signedValues = true;
    diff.signedRange = most > 0 ? most : 1.0f;
    if (largest) *largest = most;
    return diff;
}

AlignedHeatmaps alignHeatmaps(const HeatmapData& a, const QStringList& labelsA,
                              const std::vector<bool>& specialA, const HeatmapData& b,
                              const QStringList& labelsB, const std::vector<std::pair<int, int>>& pairs)
{
    const int m = int(pairs.size());
    AlignedHeatmaps out;
    HeatmapData &alignedA = out.first, &alignedB = out.second;
    for (HeatmapData* d : {&alignedA, &alignedB}) {
        d->rows = d->cols = m;
        d->values.resize(size_t(m) * size_t(m));
        d->causal = a.causal;
    }
    for (int i = 0; i < m; ++i) {
        const auto [ia, ib] = pairs[size_t(i)];
        alignedA.rowLabels << labelsA.value(ia);
        alignedB.rowLabels << labelsB.value(ib);
        const bool special = ia >= 0 && size_t(ia) < specialA.size() && specialA[size_t(ia)];
        alignedA.specialRows.push_back(special);
        alignedB.specialRows.push_back(special);
        for (int j = 0; j < m; ++j) {
            const auto [ja, jb] = pairs[size_t(j)];
            alignedA.values[size_t(i * m + j)] = a.value(ia, ja);
            alignedB.values[size_t(i * m + j)] = b.value(ib, jb);
        }
    }
    alignedA.colLabels = alignedA.rowLabels;
    alignedB.colLabels = alignedB.rowLabels;
    alignedA.specialCols = alignedA.specialRows;
    alignedB.specialCols = alignedB.specialRows;
    out.difference = heatmapDifference(alignedA, alignedB, &out.differenceRange);
    for (int i = 0; i < m; ++i)
        if (alignedA.rowLabels.at(i) != alignedB.rowLabels.at(i))
            out.difference.rowLabels[i] = out.difference.colLabels[i] =
                alignedA.rowLabels.at(i) + QLatin1Char('/') + alignedB.rowLabels.at(i);
    return out;
}

} // namespace attnscope
