#pragma once

#include "attention/attentionmaps.h"
#include "render/headgriddata.h"
#include "render/heatmapdata.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace attnscope {

// Everything an export needs to know about one run of a model on one input: the attention of every
// head, the token labels, which tokens are special, and where it came from (for titles and metadata).
struct AttentionExportSource
{
    std::shared_ptr<const AttentionMaps> maps;
    QStringList tokens;           // one label per position (queries and keys are the same sequence)
    std::vector<bool> special;    // [CLS], [SEP], BOS...
    bool causal = false;
    bool discountSpecial = false; // renormalise each row without the special keys, as exBERT does
    QString model;
    QString text;
    QString textB;

    // One head's whole matrix as the heatmap view shows it (special tokens discounted when asked).
    HeatmapData heatmap(int layer, int head) const;
    // All heads, for the grid.
    HeadGridData grid() const;
    // "model · layer 2, head 5 · “text”": the title of an exported heatmap (head < 0: the grid).
    QString title(int layer, int head) const;
};

// Renormalises every row over the non-special keys and zeroes the special columns. A row whose mass is
// all on special keys stays all zero. The title is left to the caller.
void discountSpecialTokens(HeatmapData& data);

// The block [row0,row1)×[col0,col1) of data, labels and special marks included, with firstRow/firstCol
// set so that masking stays right: what a zoomed view shows.
HeatmapData cropHeatmap(const HeatmapData& data, int row0, int row1, int col0, int col1);

} // namespace attnscope
