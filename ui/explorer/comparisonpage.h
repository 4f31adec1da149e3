#pragma once

#include "render/heatmapgeometry.h"

#include <QRectF>
#include <QSize>
#include <QString>
#include <vector>

class QPainter;
class QPaintDevice;
class QWidget;

namespace attnscope {

class HeatmapWidget;

// The comparison tab as an exported page (PNG, SVG, PDF): a title line, then the shown panes, each painted
// afresh for the page at its resolution. ComparisonWidget's paintPanes, pageLayout and exportPageSize are
// these, given its panes.

// Where the page puts one pane and the cell geometry it paints it with.
struct ComparisonPagePane
{
    const HeatmapWidget* pane = nullptr;
    QRectF rect;
    HeatmapGeometry geometry;
};

// The title line's rectangle at the top of `area`.
QRectF comparisonPageTitleRect(const QPaintDevice* device, const QRectF& area);
// The shown panes in the grid shape that makes them largest while each keeps every label (else the largest);
// empty for long inputs (tiled panes) and when no pane is shown.
std::vector<ComparisonPagePane> comparisonPageLayout(const std::vector<HeatmapWidget*>& panes,
                                                     const QPaintDevice* device, const QRectF& area);
// `page` widened until every pane keeps every label (at most to 3× its width), then cut to end a margin under
// the square matrices where the cells stay as large; `page` itself when nothing keeps every label.
QSize comparisonExportPageSize(const std::vector<HeatmapWidget*>& panes, QSize page);
// The page on a white `area`: `title`, then the panes (long inputs: as drawn in `host`, scaled to fit); with
// no pane shown, `emptyNote` in the middle.
void paintComparisonPage(QPainter& painter, const QRectF& area, const std::vector<HeatmapWidget*>& panes,
                         const QWidget* host, const QString& title, const QString& emptyNote);

} // namespace attnscope
