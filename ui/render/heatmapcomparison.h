#pragma once

#include "render/heatmapdata.h"

#include <QStringList>
#include <utility>
#include <vector>

namespace attnscope {

// The plain data of the comparison tab's difference and aligned views: heatmaps in, heatmaps out, no
// widgets (ComparisonWidget shows them; tst_heatmap_comparison checks them by hand).

// a − b cell by cell, on the diverging map over ±(the largest |a − b|), so a real difference of 0.05 is not
// white; identical heads keep a colour bar of ±1. Everything else (labels, title, mask) is a's.
// `largest` (may be null) receives the largest |a − b| (0 for identical heads). a and b have one shape.
HeatmapData heatmapDifference(const HeatmapData& a, const HeatmapData& b, float* largest);

// One head of two runs on the tokens they share: `pairs` are (row of a, row of b), increasing in both
// (alignTokens); first and second are the m × m matrices of those rows and columns, labelled with each run's
// own tokens, the special marks of a's; difference is first − second (heatmapDifference), labelled "a/b"
// where the two tokens differ. Titles are left empty for the caller.
struct AlignedHeatmaps
{
    HeatmapData first, second, difference;
    float differenceRange = 0; // the largest |first − second|
};
AlignedHeatmaps alignHeatmaps(const HeatmapData& a, const QStringList& labelsA,
                              const std::vector<bool>& specialA, const HeatmapData& b,
                              const QStringList& labelsB, const std::vector<std::pair<int, int>>& pairs);

} // namespace attnscope
