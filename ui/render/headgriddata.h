#pragma once

#include "render/heatmapdata.h"
#include "stats/headstats.h"

#include <QColor>
#include <QFont>
#include <QFontMetricsF>
#include <QSizeF>
#include <QString>
#include <QStringList>
#include <vector>

namespace attnscope {

// Every head of a model for one input, as small matrices: the layer × head grid. Plain data.
// thumbnails[layer * heads + head] holds that head's (possibly downsampled) matrix.
struct HeadGridData
{
    int layers = 0;
    int heads = 0;
    std::vector<HeatmapData> thumbnails;
    QString title;
    // Each head's automatic label (same order as thumbnails), or empty: then no badges and no legend.
    std::vector<HeadLabel> labels;
    // What the colour bar's 0..1 axis means (the measure: "share of the row's attention weight α", ...),
    // written along the bar; empty: no caption.
    QString colorBarCaption;
    // A number per head (same order as thumbnails; the ablation scan's KL) drawn over each thumbnail on
    // 0 .. its largest value (headEffectColor), with effectCaption ("ablation KL, nats (zero)") and that
    // scale in a legend line under the grid; empty: none.
    std::vector<double> effect;
    QString effectCaption;

    const HeatmapData& at(int layer, int head) const
    {
        return thumbnails[size_t(layer) * size_t(heads) + size_t(head)];
    }
};

// How a head label looks everywhere (grid on screen, exported grid, legends): a short symbol for the
// thumbnail's badge and a colour-blind-safe colour (Okabe–Ito) for its ring.
QString headLabelSymbol(HeadLabel label);
QColor headLabelColor(HeadLabel label);
// An effect's colour at `fraction` of the largest effect (0..1): pale yellow to dark red, apart from the
// thumbnails' colour maps.
QColor headEffectColor(double fraction);

// Legend entries flowed into lines no wider than `width`, left to right: each entry's left edge and line
// (0 = the first). The first line starts at `firstLineStart` (after what precedes it on that line), the
// others at `lineStart`; an entry wider than a whole line gets a line of its own. No entry is dropped.
struct LegendSlot
{
    double x = 0;
    int line = 0;
};
std::vector<LegendSlot> flowLegend(const std::vector<double>& entryWidths, double lineStart,
                                   double firstLineStart, double width, double gap);
// A thumbnail's head badge: the first of `candidates` ("H3 ≈", "H3", "3": most to least said) that fits
// `room` (a thumbnail: at most 60% of its height, 1 px either side of the text) at the largest font from
// `preferredPixelSize` down to kMinimumBadgePixelSize; an empty text when not even the last one fits.
inline constexpr double kMinimumBadgePixelSize = 6.0;
struct HeadBadgeFit
{
    QString text;
    double pixelSize = 0;
};
HeadBadgeFit fitHeadBadge(const QStringList& candidates, QSizeF room, double preferredPixelSize,
                          const QFont& base, const QPaintDevice* device);
// The smallest square thumbnail (px, whole) on which fitHeadBadge keeps every head's number ("0" ..
// "heads-1", the shortest badge) at kMinimumBadgePixelSize: the widest number plus its 1-px margins, and
// the text's height within 60% of the side. Grids never shrink thumbnails below it (they scroll instead).
double minimumBadgedThumbnailSize(int heads, const QFont& base, const QPaintDevice* device);

// The column header's text for head `head` when each column is `pitch` wide: "H3" when every header
// ("H0" .. "H<heads-1>") fits its column, else "3" when every number does, else none (the badges carry the
// numbers).
QString headColumnHeader(int head, int heads, double pitch, const QFontMetricsF& metrics);

int legendLineCount(const std::vector<LegendSlot>& placed); // 0 for no entries

} // namespace attnscope
