#pragma once

#include <vector>

namespace attnscope {

// Which labels along one heatmap axis are drawn, and how big. Plain data, tested without a window.
//  1. Every label at the preferred size when the cells are far enough apart.
//  2. Else every label, the font shrunk to fit, down to a readable minimum.
//  3. Else the minimum size, thinned evenly (every k-th index of the whole matrix, so panning does not
//     shuffle them), with the special tokens ([CLS], [SEP], the first token) always kept and ordinary
//     labels that would touch a special one dropped.
struct AxisLabelPlan
{
    double pixelSize = 0;   // the font's pixel size
    std::vector<int> shown; // matrix indices drawn, ascending
    int step = 1;           // 1: every label; k: every k-th ordinary label
};

struct AxisLabelRequest
{
    int first = 0;               // matrix index of centers[0]
    std::vector<double> centers; // pixel centre of each visible cell along the axis, ascending
    std::vector<bool> special;   // per matrix index (may be shorter: the rest are ordinary)
    double preferredPixelSize = 12;
    double minimumPixelSize = 7;
    double lineHeightPerPixel = 1.17; // a label's line height for a font of pixel size 1
    double spacingFactor = 1.0; // share of the centre distance a line may use (sin 60° for slanted keys)
};

AxisLabelPlan planAxisLabels(const AxisLabelRequest& request);

// The smallest font pixel size at which the heatmap still writes labels, and the pixels a special cell
// keeps (its label fits beside the next one even when slanted at 60°).
inline constexpr double kMinimumLabelPixelSize = 7.0;
double specialCellMinimum(double lineHeightPerPixel);

} // namespace attnscope
