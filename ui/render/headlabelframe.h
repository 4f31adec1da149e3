#pragma once

#include "stats/headstats.h"

#include <QColor>
#include <QRectF>

class QPainter;

namespace attnscope {

// The frame a head label draws around its thumbnail (grid on screen, exported grid, both legends). Labels
// differ in shape as well as colour: a line pattern, and the sink head a double line. Colour alone did not
// carry on a washed-out projector or in greyscale (sink and broad are two blues).
struct HeadLabelFrame
{
    QColor color;      // headLabelColor
    Qt::PenStyle line; // solid, dashed, dotted, ...
    double weight;     // times the base line width
    bool doubled;      // a second, inner line
};
HeadLabelFrame headLabelFrame(HeadLabel label);

// Draws `label`'s frame just inside `rect` with lines `lineWidth` wide (the doubled frame's inner line one
// line's gap further in).
void paintHeadLabelFrame(QPainter& painter, QRectF rect, HeadLabel label, double lineWidth);

} // namespace attnscope
