#include "render/headgriddata.h"

#include <QFontMetricsF>
#include <QPaintDevice>
#include <algorithm>
#include <cmath>

namespace attnscope {

QString headLabelSymbol(HeadLabel label)
{
    switch (label) {
    case HeadLabel::Sink:
        return QStringLiteral("⚓");
    case HeadLabel::NoOp:
        return QStringLiteral("∅");
    case HeadLabel::PreviousToken:
        return QStringLiteral("←");
    case HeadLabel::NextToken:
        return QStringLiteral("→");
    case HeadLabel::Self:
        return QStringLiteral("●");
    case HeadLabel::Broad:
        return QStringLiteral("≈");
    case HeadLabel::Mixed:
        return QStringLiteral("·");
    }
    return {};
}

QColor headLabelColor(HeadLabel label)
{
    // Okabe–Ito colours: distinguishable with the common colour-vision deficiencies.
    switch (label) {
    case HeadLabel::Sink:
        return QColor(0, 114, 178);
    case HeadLabel::NoOp:
        return QColor(213, 94, 0);
    case HeadLabel::PreviousToken:
        return QColor(0, 158, 115);
    case HeadLabel::NextToken:
        return QColor(204, 121, 167);
    case HeadLabel::Self:
        return QColor(240, 228, 66);
    case HeadLabel::Broad:
        return QColor(86, 180, 233);
    case HeadLabel::Mixed:
        return QColor(150, 150, 150);
    }
    return Qt::gray;
}

QColor headEffectColor(double fraction)
{
    const double t = std::clamp(fraction, 0.0, 1.0);
    const QColor low(255, 245, 200), mid(240, 120, 40), high(120, 0, 20);
    const auto mix = [](const QColor& a, const QColor& b, double u) {
        return QColor(int(a.red() + (b.red() - a.red()) * u), int(a.green() + (b.green() - a.green()) * u),
                      int(a.blue() + (b.blue() - a.blue()) * u));
    };
    return t < 0.5 ? mix(low, mid, t * 2) : mix(mid, high, (t - 0.5) * 2);
}

std::vector<LegendSlot> flowLegend(const std::vector<double>& entryWidths, double lineStart,
                                   double firstLineStart, double width, double gap)
{
    std::vector<LegendSlot> placed;
    double x = firstLineStart;
    int line = 0;
    bool lineEmpty = firstLineStart <= lineStart;
    for (double entry : entryWidths) {
        if (!lineEmpty && x + entry > lineStart + width) {
            ++line;
            x = lineStart;
        }
        placed.push_back(LegendSlot{x, line});
        x += entry + gap;
        lineEmpty = false;
    }
    return placed;
}

namespace {
QFont fontAtPixels(const QFont& base, double pixels, const QPaintDevice* device)
{
    QFont font = base;
    font.setPointSizeF(pixels * 72.0 / (device ? device->logicalDpiY() : 96.0));
    return font;
}
} // namespace

HeadBadgeFit fitHeadBadge(const QStringList& candidates, QSizeF room, double preferredPixelSize,
                          const QFont& base, const QPaintDevice* device)
{
    for (const QString& text : candidates)
        for (double pixels = std::max(preferredPixelSize, kMinimumBadgePixelSize);
             pixels >= kMinimumBadgePixelSize - 1e-9; pixels -= 0.5) {
            const QFontMetricsF metrics(fontAtPixels(base, pixels, device),
                                        const_cast<QPaintDevice*>(device));
            if (metrics.horizontalAdvance(text) + 2 <= room.width() &&
                metrics.ascent() + metrics.descent() <= room.height() * 0.6)
                return HeadBadgeFit{text, pixels};
        }
    return {};
}

double minimumBadgedThumbnailSize(int heads, const QFont& base, const QPaintDevice* device)
{
    const QFontMetricsF metrics(fontAtPixels(base, kMinimumBadgePixelSize, device),
                                const_cast<QPaintDevice*>(device));
    double widest = 0;
    for (int h = 0; h < heads; ++h)
        widest = std::max(widest, metrics.horizontalAdvance(QString::number(h)));
    // Whole pixels, rounded up: fitHeadBadge's tests (<=) then hold without floating-point doubt.
    return std::ceil(std::max(widest + 2, (metrics.ascent() + metrics.descent()) / 0.6));
}

QString headColumnHeader(int head, int heads, double pitch, const QFontMetricsF& metrics)
{
    double widestNumber = 0;
    for (int h = 0; h < heads; ++h)
        widestNumber = std::max(widestNumber, metrics.horizontalAdvance(QString::number(h)));
    // 2 px apart from the neighbours' headers.
    if (widestNumber + metrics.horizontalAdvance(QStringLiteral("H")) + 2 <= pitch)
        return QStringLiteral("H%1").arg(head);
    if (widestNumber + 2 <= pitch) return QString::number(head);
    return {};
}

int legendLineCount(const std::vector<LegendSlot>& placed)
{
    return placed.empty() ? 0 : placed.back().line + 1;
}

} // namespace attnscope
