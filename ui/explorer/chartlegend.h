#pragma once

#include <QColor>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <vector>

class QFontMetricsF;

namespace attnscope {

// Where a chart's legend entries (a colour swatch, then its label) go: laid out from the measured label
// widths, so that no two entries overlap in any language. Entries sit right-aligned on the first line
// beside `reserved` (the chart's title) when they fit there, else on lines of their own below it.
struct ChartLegendLayout
{
    struct Entry
    {
        QRectF swatch;
        QRectF label;
    };
    std::vector<Entry> entries;
    double bottom = 0; // below the last line of entries

    static ChartLegendLayout compute(const QFontMetricsF& metrics, const QStringList& labels,
                                     const QRectF& area, double reservedWidth);
};

} // namespace attnscope
