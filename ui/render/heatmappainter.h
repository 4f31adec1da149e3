#pragma once

#include "render/axislabels.h"
#include "render/heatmapdata.h"
#include "render/heatmapgeometry.h"

#include <QFont>
#include <QFontMetricsF>
#include <QImage>
#include <QLineF>
#include <QPolygonF>
#include <QRectF>
#include <QTransform>
#include <vector>

class QPainter;
class QPaintDevice;

namespace attnscope {

// Lays out and paints one heatmap (title, key labels on top, query labels on the left, cells,
// colour bar) into a rectangle. The same code draws on screen and into PNG/SVG/PDF exports,
// so an export is exactly what the view shows.
class HeatmapPainter
{
public:
    HeatmapPainter(const HeatmapData& data, const HeatmapStyle& style);

    // Computes the layout for the target rectangle on a device (its dpi sizes the fonts: null = 96 dpi);
    // returns the geometry of the cell area (fitted). `font` is the base font; the style sets its size.
    HeatmapGeometry layout(QRectF target, const QFont& font, const QPaintDevice* device) const;
    // Paints everything. When geometry is given (zoomed view), it is used for the cells; else fit.
    // The data's rows × cols set the geometry and labels; `cells`, when given, is the block of values to
    // draw (a long input's exact tile or pooled overview, placed by its firstRow/rowStarts), else the data.
    void paint(QPainter& painter, QRectF target, const HeatmapGeometry* geometry = nullptr,
               const HeatmapData* cells = nullptr) const;
    // Colour of one cell of `cells` under this style (masked and excluded cells have their own greys).
    QRgb cellColor(const HeatmapData& cells, int row, int col) const;

    static QRgb maskedColor() { return qRgb(236, 236, 236); }
    static QRgb excludedColor() { return qRgb(214, 218, 232); }

    // Which labels are drawn, at what size, for a layout on a device (tests check every label up to 64
    // tokens and the special tokens always).
    struct LabelLayout
    {
        AxisLabelPlan rows, cols;
    };
    LabelLayout labelLayout(const HeatmapGeometry& geometry, const QPaintDevice* device,
                            const QFont& base) const;
    // One axis label as paint() draws it: `text` (elided where the room is short) in `box`, a box in the
    // frame `transform` maps to the target's device (a key label's frame is turned -60° about the top of
    // its column); a lane-1 label's leader line runs along `leader` in the same frame.
    struct PlacedLabel
    {
        int index = 0;
        bool row = true; // a query label left of the cells; false: a key label above them
        QString text;
        double pixelSize = 0;
        QRectF box;
        QTransform transform;
        QLineF leader; // null when in lane 0
        QPolygonF outline() const { return transform.map(QPolygonF(box)); }
    };
    // The labels paint() draws for a layout in `target` (the rectangle paint() is given; tests check that
    // none leaves the widget or covers another).
    std::vector<PlacedLabel> placedLabels(const HeatmapGeometry& geometry, QRectF target, const QFont& base,
                                          const QPaintDevice* device) const;
    // Whether a layout on a device keeps every label (one or two lanes, font at or above the minimum).
    bool labelsEveryToken(const HeatmapGeometry& geometry, const QPaintDevice* device,
                          const QFont& base) const;
    // The narrowest target width, at this height, whose layout keeps every label (whole pixels, at most
    // `widest`); 0 when even `widest` thins them (long inputs, which are thinned by design). Comparison
    // panes ask this for the room they need.
    double minimumWidthForEveryLabel(double height, const QFont& base, const QPaintDevice* device,
                                     double widest) const;
    // The smallest label font the layout keeps before two lanes, then thinning (the style's, else the
    // default).
    double minimumLabelPixels() const;
    // The narrowest target width, at this height, whose fitted matrix is at least `side` pixels across and
    // down (whole pixels, at most `widest`); 0 when even `widest` is too narrow or the height too low.
    // Comparison panes ask it so that three panes draw matrices as large as two side by side do.
    double minimumWidthForMatrix(double side, double height, const QFont& base, const QPaintDevice* device,
                                 double widest) const;
    // Whether the per-row side bar (attention to the first token and to [SEP]) is drawn.
    bool showsSideBar() const;
    // What the side bar's colours mean, in the interface's language; empty without a side bar. It is drawn
    // as one line under the matrix, in sideBarLegendRect (inside `target`, below the cells and their labels).
    QString sideBarLegend() const;
    QRectF sideBarLegendRect(const HeatmapGeometry& geometry, QRectF target, const QFont& base,
                             const QPaintDevice* device) const;
    static constexpr int kSideBarMinimumRows = 65; // longer inputs get the side bar

private:
    void paintCells(QPainter& painter, const HeatmapGeometry& geometry, const HeatmapData& cells) const;
    void paintCellImage(QPainter& painter, const HeatmapGeometry& geometry, const HeatmapData& cells) const;
    void paintMaskHatch(QPainter& painter, const HeatmapGeometry& geometry) const;
    // Labels longer than the room left of / above the cells (at most 30% of the target) are elided.
    void paintLabels(QPainter& painter, const HeatmapGeometry& geometry, QRectF target,
                     const QFont& base) const;
    // `room`: the target below the title (the headers are slanted into it like the key labels).
    void paintSideBar(QPainter& painter, const HeatmapGeometry& geometry, double left, QRectF room) const;
    // A side bar value on the colour bar's axis under the style's scale (row: its query row).
    double sideBarParameter(double value, int row) const;
    QStringList sideBarHeaders() const; // one per side bar column
    double sideBarWidth(double lineHeight) const;
    static double sideBarPitch(double lineHeight);
    QColor ink() const;
    void paintColorBar(QPainter& painter, QRectF bar) const;
    // The height the colour bar takes under the cells (HeatmapStyle::colorBarBelow), 0 beside them.
    double colorBarBelowHeight(const QFontMetricsF& metrics) const;

    const HeatmapData& m_data;
    HeatmapStyle m_style;
};

// Convenience for exports and tests: a w×h image of the heatmap on a white background.
QImage renderHeatmapImage(const HeatmapData& data, const HeatmapStyle& style, int width, int height);

} // namespace attnscope
