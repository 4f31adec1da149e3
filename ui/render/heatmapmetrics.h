#pragma once

// Spacing and font sizes HeatmapPainter's two files share (heatmappainter.cpp: layout, cells, bars;
// heatmaplabels.cpp: the axis labels).

#include <QFont>
#include <cmath>

class QPaintDevice;

namespace attnscope::heatmapmetrics {

inline constexpr double kGap = 6.0;              // between the cells, their labels and the bars
inline const double kSin60 = std::sin(M_PI / 3); // key labels are slanted at 60°

double dpiOf(const QPaintDevice* device); // 96 without a device
// `font` at a size in pixels on `device`.
QFont fontAtPixels(QFont font, double pixels, const QPaintDevice* device);

} // namespace attnscope::heatmapmetrics
