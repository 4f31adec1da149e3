#pragma once

#include "render/heatmapdata.h"

#include <QString>

#include <vector>

namespace attnscope {

// Every head of a model for one input, as small matrices: the layer × head grid. Plain data.
// thumbnails[layer * heads + head] holds that head's (possibly downsampled) matrix.
struct HeadGridData
{
    int layers = 0;
    int heads = 0;
    std::vector<HeatmapData> thumbnails;
    QString title;

    const HeatmapData& at(int layer, int head) const { return thumbnails[size_t(layer) * size_t(heads) + size_t(head)]; }
};

} // namespace attnscope
