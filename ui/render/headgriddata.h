#pragma once

#include "render/heatmapdata.h"
#include "stats/headstats.h"

#include <QColor>
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
    // Each head's automatic label (same order as thumbnails), or empty: then no badges and no legend.
    std::vector<HeadLabel> labels;

    const HeatmapData& at(int layer, int head) const
    {
        return thumbnails[size_t(layer) * size_t(heads) + size_t(head)];
    }
};

// How a head label looks everywhere (grid on screen, exported grid, legends): a short symbol for the
// thumbnail's badge and a colour-blind-safe colour (Okabe–Ito) for its ring.
QString headLabelSymbol(HeadLabel label);
QColor headLabelColor(HeadLabel label);

} // namespace attnscope
