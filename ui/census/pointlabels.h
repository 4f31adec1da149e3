#pragma once

// Labels for a scatter of points (the Corpus window's head map) that never cover one another or another
// point. With 48 heads or 144 (BERT-base) many points crowd together; printing every label there gives an
// unreadable pile ("L4H7L2H1…"), so a label goes where it fits or is left out (the point's tooltip still
// names it).

#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <optional>
#include <vector>

namespace attnscope {

struct PointLabelRequest
{
    std::vector<QPointF> points; // centres, widget coordinates
    std::vector<QSizeF> sizes;   // each label's text box
    QRectF bounds;               // labels stay inside
    double pointRadius = 4;      // a label may not cover any point's disc (its bounding square)
    double gap = 3;              // between a point's disc and its own label
    int first = -1;              // placed first, whatever its neighbourhood (the selected head), or -1
};

// For each point, its label's box, or nothing where no candidate spot is free. Candidates, in order: right
// of the point (above, then below its centre line), left of it, then centred above and below. Points are
// labelled first-requested first, then the least crowded ones (fewest other points within a label's width),
// so isolated heads, which are easy to read and usually the interesting ones, always get their names. The
// requested point's label is never left out while a candidate spot lies inside the bounds: in a crowd it may
// cover other points (draw it on an opaque box).
std::vector<std::optional<QRectF>> placePointLabels(const PointLabelRequest& request);

} // namespace attnscope
