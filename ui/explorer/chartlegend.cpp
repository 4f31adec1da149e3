#include "explorer/chartlegend.h"

#include <QFontMetricsF>
#include <algorithm>

namespace attnscope {

ChartLegendLayout ChartLegendLayout::compute(const QFontMetricsF& metrics, const QStringList& labels,
                                             const QRectF& area, double reservedWidth)
{
    const double lineHeight = metrics.height() * 1.3;
    const double swatchSide = std::min(10.0, metrics.height() * 0.8);
    const double gapAfterSwatch = 4, gapBetween = metrics.averageCharWidth() * 2;
    std::vector<double> widths; // swatch + gap + label, per entry
    for (const QString& label : labels)
        widths.push_back(swatchSide + gapAfterSwatch + metrics.horizontalAdvance(label));
    double total = 0;
    for (double w : widths)
        total += w;
    total += gapBetween * double(std::max<qsizetype>(0, labels.size() - 1));

    ChartLegendLayout layout;
    // Lines of entries, right-aligned; the first line shares the title's row when everything fits there.
    const bool besideTitle = total <= area.width() - reservedWidth - gapBetween;
    double top = besideTitle ? area.top() : area.top() + lineHeight;
    size_t first = 0;
    while (first < widths.size()) {
        size_t last = first;
        double lineWidth = widths[first];
        while (last + 1 < widths.size() && lineWidth + gapBetween + widths[last + 1] <= area.width()) {
            ++last;
            lineWidth += gapBetween + widths[last];
        }
        double x = area.right() - lineWidth;
        for (size_t i = first; i <= last; ++i) {
            ChartLegendLayout::Entry entry;
            entry.swatch = QRectF(x, top + (lineHeight - swatchSide) / 2, swatchSide, swatchSide);
            entry.label = QRectF(x + swatchSide + gapAfterSwatch, top,
                                 widths[i] - swatchSide - gapAfterSwatch, lineHeight);
            layout.entries.push_back(entry);
            x += widths[i] + gapBetween;
        }
        top += lineHeight;
        first = last + 1;
    }
    layout.bottom = besideTitle && !widths.empty() ? area.top() + lineHeight : top;
    return layout;
}

} // namespace attnscope
