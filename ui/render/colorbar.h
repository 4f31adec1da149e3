#pragma once

// The colour bar beside a heatmap and a head grid (and in their exports): the gradient from 0 at the bottom
// to 1 at the top, ticks for the scale, and an optional caption along the bar naming the measure. One
// painter, so that every view labels its colours alike.

#include "render/heatmapdata.h"

#include <QColor>
#include <QRectF>
#include <QString>
#include <QtGui/qrgb.h>
#include <functional>
#include <vector>

class QPainter;

namespace attnscope {

struct ColorBarTick
{
    double position = 0; // 0 = the bar's bottom, 1 = its top
    QString text;
};

// The ticks of a scale, in the locale's numbers and never with an exponent: 0 / 0.5 / 1, 0 / "row max", or
// log 0.0001 / 0.01 / 1.
std::vector<ColorBarTick> colorBarTicks(HeatmapScale scale);
// A signed (difference) bar: −range / 0 / +range.
std::vector<ColorBarTick> signedColorBarTicks(double range);

struct ColorBarStyle
{
    std::function<QRgb(double)> colorAt; // the colour at 0..1
    QColor ink = Qt::black;              // outline, ticks and text
    double lineWidth = 1;
    // Where the caption runs, from the bar's right edge: past the widest tick label.
    double captionOffset = 0;
};

// Paints in the painter's current font. Tick texts stay within the bar's height (the end ticks do not stick
// out above or below it); the caption, if any, reads bottom to top, elided to the bar's height.
void paintColorBar(QPainter& painter, QRectF bar, const ColorBarStyle& style,
                   const std::vector<ColorBarTick>& ticks, const QString& caption);
// The same bar lying across (under a heatmap): 0 at the left, 1 at the right, the tick labels under it
// and within its width, the caption on the line below them, elided to the bar's width.
void paintColorBarAcross(QPainter& painter, QRectF bar, const ColorBarStyle& style,
                         const std::vector<ColorBarTick>& ticks, const QString& caption);

} // namespace attnscope
