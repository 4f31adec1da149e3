#pragma once

#include "render/headgriddata.h"
#include "render/headgridlayout.h"

#include <QFontMetricsF>
#include <QImage>
#include <QRectF>
#include <optional>
#include <utility>

class QPainter;

namespace attnscope {

// Paints the layer × head grid: one thumbnail per head, layers down, heads across, with "L0".."H0"
// labels, a title and a colour bar; with the heads' labels, each thumbnail also gets the explorer's badge
// ("H3 ⚓") and a ring in its label's colour, and a legend of the labels present goes under the grid. Each
// thumbnail is drawn as an image of one pixel per cell scaled up without smoothing, so a grid of 144 heads
// stays small in SVG and PDF.
class HeadGridPainter
{
public:
    HeadGridPainter(const HeadGridData& data, const HeatmapStyle& style);

    // Thumbnails never smaller than minimumSlot (the exported page is grown to minimumTargetSize); off
    // (views that paint into a fixed widget): they shrink to fit the target, badges shortened or dropped.
    void setKeepNumbersReadable(bool on) { m_keepNumbersReadable = on; }

    void paint(QPainter& painter, QRectF target) const;
    // Where the thumbnail of (layer, head) goes inside target (same layout as paint()).
    QRectF thumbnailRect(QRectF target, const QFontMetricsF& metrics, int layer, int head) const;
    // One pixel per cell of a head's matrix in the style's colour map; masked cells light grey.
    // The smallest target in which no thumbnail goes below minimumSlot (the grid, its labels, colour
    // bar, title and legends): a smaller target lets the grid run past its right and bottom edges.
    QSizeF minimumTargetSize(const QFontMetricsF& metrics, const QPaintDevice* device) const;
    static QImage thumbnailImage(const HeatmapData& head, const HeatmapStyle& style);

private:
    struct Layout
    {
        HeadGridLayout grid; // the explorer grid's own layout: same slots on screen and in exports
        QRectF colorBar;
        QRectF legend;       // the head labels' legend under the grid (empty without labels)
        QRectF effectLegend; // the effect's scale under that (empty without an effect)
    };
    void paintBadgesAndLegend(QPainter& painter, const Layout& layout, const QFontMetricsF& metrics) const;
    std::vector<HeadLabel> legendLabels() const; // the labels this grid has, in the legend's order
    std::vector<double> legendEntryWidths(const QFontMetricsF& metrics) const;
    void paintColorBar(QPainter& painter, const Layout& layout, const QFontMetricsF& metrics) const;
    // The effect over each thumbnail (its value written where there is room) and its legend line.
    void paintEffect(QPainter& painter, const Layout& layout, const QFontMetricsF& metrics) const;
    // The widest tick label of the colour bar under the style's scale.
    double tickLabelWidth(const QFontMetricsF& metrics) const;
    Layout layout(QRectF target, const QFontMetricsF& metrics, const QPaintDevice* device = nullptr) const;
    // The thumbnails' smallest side (when keeping numbers readable): a line of the labels' text, and with
    // badges what every head's number needs.
    double minimumSlot(const QFontMetricsF& metrics, const QPaintDevice* device) const;

    const HeadGridData& m_data;
    HeatmapStyle m_style;
    bool m_keepNumbersReadable = false;
};

QImage renderHeadGridImage(const HeadGridData& data, const HeatmapStyle& style, int width, int height);

} // namespace attnscope
