#pragma once

#include "render/colormap.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace attnscope {

enum class HeatmapScale {
    Absolute, // the probability itself on 0..1: the default, so sink mass is never hidden by rescaling
    RowMax,   // each row divided by its own maximum
    Log,      // log10 over [1e-4, 1]
};
QString heatmapScaleName(HeatmapScale scale);

// What one heatmap shows: a block of an attention matrix with its labels. Plain data, no painting.
struct HeatmapData
{
    int rows = 0;
    int cols = 0;
    std::vector<float> values; // row-major rows×cols
    QStringList rowLabels;     // query tokens
    QStringList colLabels;     // key tokens
    std::vector<bool> specialRows, specialCols; // [CLS], [SEP], BOS...: drawn marked
    bool causal = false;       // cells right of the diagonal are masked, drawn hatched
    int firstRow = 0;          // position of row 0 / col 0 in the whole matrix (for a zoomed block)
    int firstCol = 0;
    QString title;

    float value(int row, int col) const { return values[size_t(row) * size_t(cols) + size_t(col)]; }
    bool isMasked(int row, int col) const { return causal && firstCol + col > firstRow + row; }
    // Value mapped to the colour axis 0..1 under the given scale.
    double colorParameter(int row, int col, HeatmapScale scale) const;
};

struct HeatmapStyle
{
    ColorMapKind colorMap = ColorMapKind::Viridis;
    HeatmapScale scale = HeatmapScale::Absolute;
    double fontPointSize = 9.0;
    bool showColorBar = true;
    bool showTitle = true;
    bool showValues = false; // numbers in cells (lesson, small matrices)
    double lineWidth = 1.0;
};

} // namespace attnscope
