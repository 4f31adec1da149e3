#include "render/headgridpainter.h"

#include "render/colorbar.h"
#include "render/colormap.h"
#include "render/headlabelframe.h"
#include "render/headnames.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QLocale>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace attnscope {

namespace {
constexpr double kLegendGap = 12.0;
constexpr double kLegendSwatchLine =
    1.5; // the legend's frames: thin enough for a double line in a line's height
double legendSwatchSide(const QFontMetricsF& metrics)
{
    return metrics.height();
}
constexpr double kGap = 6.0;
constexpr double kColorBarWidth = 14.0;

} // namespace

HeadGridPainter::HeadGridPainter(const HeadGridData& data, const HeatmapStyle& style)
    : m_data(data), m_style(style)
{}

HeadGridPainter::Layout HeadGridPainter::layout(QRectF target, const QFontMetricsF& metrics,
                                                const QPaintDevice* device) const
{
    Layout l;
    const double titleHeight = m_style.showTitle && !m_data.title.isEmpty() ? metrics.height() * 1.6 : 0.0;
    const double rowLabelWidth =
        metrics.horizontalAdvance(QStringLiteral("L%1").arg(std::max(0, m_data.layers - 1))) + kGap;
    const double colLabelHeight = metrics.height() + kGap / 2;
    const double barSpace = m_style.showColorBar
                                ? kColorBarWidth + tickLabelWidth(metrics) + 3 * kGap +
                                      (m_data.colorBarCaption.isEmpty() ? 0.0 : metrics.height() + kGap)
                                : 0.0;
    // The label legend wraps onto as many lines as the page's width needs (no entry dropped).
    const double labelsHeight =
        m_data.labels.empty()
            ? 0.0
            : std::max(1, legendLineCount(flowLegend(legendEntryWidths(metrics), target.left(), target.left(),
                                                     target.width(), kLegendGap))) *
                  metrics.height() * 1.6;
    const double effectHeight = m_data.effect.empty() ? 0.0 : metrics.height() * 1.6;
    const double legendHeight = labelsHeight + effectHeight;
    const QRectF area(target.left(), target.top() + titleHeight, std::max(1.0, target.width() - barSpace),
                      std::max(1.0, target.height() - titleHeight - legendHeight));
    l.grid = HeadGridLayout(m_data.layers, m_data.heads, area, rowLabelWidth, colLabelHeight,
                            minimumSlot(metrics, device));
    const QRectF last = l.grid.thumbnailRect(std::max(0, m_data.layers - 1), std::max(0, m_data.heads - 1));
    const QRectF first = l.grid.thumbnailRect(0, 0);
    l.colorBar = QRectF(last.right() + 2 * kGap, first.top(), kColorBarWidth,
                        std::max(20.0, last.bottom() - first.top()));
    if (labelsHeight > 0)
        l.legend = QRectF(target.left(), last.bottom() + kGap / 2, target.width(), labelsHeight - kGap / 2);
    if (effectHeight > 0)
        l.effectLegend = QRectF(target.left(), last.bottom() + labelsHeight + kGap / 2, target.width(),
                                effectHeight - kGap / 2);
    return l;
}

double HeadGridPainter::minimumSlot(const QFontMetricsF& metrics, const QPaintDevice* device) const
{
    // Rows at least a line of text apart (the layer labels "L0", "L1" must not overlap), and with badges
    // (labels) each thumbnail keeps at least its head's number.
    if (!m_keepNumbersReadable) return 4.0;
    const double rows = metrics.height();
    if (m_data.labels.empty() || m_data.heads <= 0) return rows;
    QFont font;
    font.setPointSizeF(m_style.fontPointSize);
    return std::max(rows, minimumBadgedThumbnailSize(m_data.heads, font, device));
}

QSizeF HeadGridPainter::minimumTargetSize(const QFontMetricsF& metrics, const QPaintDevice* device) const
{
    const double rowLabelWidth =
        metrics.horizontalAdvance(QStringLiteral("L%1").arg(std::max(0, m_data.layers - 1))) + kGap;
    const double colLabelHeight = metrics.height() + kGap / 2;
    const QSizeF grid = HeadGridLayout::minimumArea(m_data.layers, m_data.heads, minimumSlot(metrics, device),
                                                    rowLabelWidth, colLabelHeight);
    const double barSpace = m_style.showColorBar
                                ? kColorBarWidth + tickLabelWidth(metrics) + 3 * kGap +
                                      (m_data.colorBarCaption.isEmpty() ? 0.0 : metrics.height() + kGap)
                                : 0.0;
    const double width = grid.width() + barSpace;
    const double titleHeight = m_style.showTitle && !m_data.title.isEmpty() ? metrics.height() * 1.6 : 0.0;
    const double labelsHeight =
        m_data.labels.empty()
            ? 0.0
            : std::max(1, legendLineCount(flowLegend(legendEntryWidths(metrics), 0, 0, width, kLegendGap))) *
                  metrics.height() * 1.6;
    const double effectHeight = m_data.effect.empty() ? 0.0 : metrics.height() * 1.6;
    return {std::ceil(width), std::ceil(grid.height() + titleHeight + labelsHeight + effectHeight)};
}

double HeadGridPainter::tickLabelWidth(const QFontMetricsF& metrics) const
{
    // Wide enough for any scale's ticks, so that switching the scale does not move the grid.
    double width = 0;
    for (const HeatmapScale scale : {HeatmapScale::Absolute, HeatmapScale::Log, m_style.scale})
        for (const ColorBarTick& tick : colorBarTicks(scale))
            width = std::max(width, metrics.horizontalAdvance(tick.text) + 1);
    return width;
}

QRectF HeadGridPainter::thumbnailRect(QRectF target, const QFontMetricsF& metrics, int layer, int head) const
{
    return layout(target, metrics).grid.thumbnailRect(layer, head);
}

QImage HeadGridPainter::thumbnailImage(const HeatmapData& head, const HeatmapStyle& style)
{
    QImage image(std::max(1, head.cols), std::max(1, head.rows), QImage::Format_RGB32);
    image.fill(QColor(245, 245, 245));
    for (int r = 0; r < head.rows; ++r) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(r));
        for (int c = 0; c < head.cols; ++c)
            line[c] = head.isMasked(r, c)
                          ? qRgb(225, 225, 225)
                          : colorMapColor(style.colorMap, head.colorParameter(r, c, style.scale));
    }
    return image;
}

void HeadGridPainter::paint(QPainter& painter, QRectF target) const
{
    QFont font = painter.font();
    font.setPointSizeF(m_style.fontPointSize);
    painter.setFont(font);
    const QFontMetricsF metrics(font, painter.device());
    const Layout l = layout(target, metrics, painter.device());

    if (m_style.showTitle && !m_data.title.isEmpty()) {
        QFont titleFont = font;
        titleFont.setBold(true);
        painter.setFont(titleFont);
        painter.setPen(Qt::black);
        // Elided in the bold font it is drawn in (the regular font's width let it run off the page).
        const QFontMetricsF titleMetrics(titleFont, painter.device());
        painter.drawText(QRectF(target.left(), target.top(), target.width(), metrics.height() * 1.5),
                         Qt::AlignLeft | Qt::AlignVCenter,
                         titleMetrics.elidedText(m_data.title, Qt::ElideRight, target.width()));
        painter.setFont(font);
    }
    painter.setPen(Qt::black);
    // Headers as long as the columns allow ("H3", "3" or none: the badges carry the numbers too).
    const double pitch = m_data.heads > 1
                             ? l.grid.thumbnailRect(0, 1).left() - l.grid.thumbnailRect(0, 0).left()
                             : target.width();
    for (int h = 0; h < m_data.heads; ++h) {
        const QRectF slot = l.grid.thumbnailRect(0, h);
        const QString header = headColumnHeader(h, m_data.heads, pitch, metrics);
        if (header.isEmpty()) continue;
        painter.drawText(QRectF(slot.center().x() - pitch / 2, slot.top() - metrics.height() - kGap / 2,
                                pitch, metrics.height()),
                         Qt::AlignCenter, header);
    }
    for (int layer = 0; layer < m_data.layers; ++layer)
        painter.drawText(l.grid.layerLabelRect(layer), Qt::AlignRight | Qt::AlignVCenter,
                         QStringLiteral("L%1").arg(layer));
    for (int layer = 0; layer < m_data.layers; ++layer) {
        for (int h = 0; h < m_data.heads; ++h) {
            const QRectF rect = l.grid.thumbnailRect(layer, h);
            const QImage image = thumbnailImage(m_data.at(layer, h), m_style);
            painter.save();
            painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
            // PDF would otherwise store the tiny image as JPEG, whose chroma subsampling smears the cells.
            painter.setRenderHint(QPainter::LosslessImageRendering, true);
            painter.drawImage(rect, image);
            painter.restore();
        }
    }
    paintEffect(painter, l, metrics);
    paintBadgesAndLegend(painter, l, metrics);
    if (m_style.showColorBar) {
        painter.setFont(font); // the legends may have left another
        paintColorBar(painter, l, metrics);
    }
}

void HeadGridPainter::paintColorBar(QPainter& painter, const Layout& l, const QFontMetricsF& metrics) const
{
    ColorBarStyle style;
    style.colorAt = [this](double t) { return colorMapColor(m_style.colorMap, t); };
    style.lineWidth = m_style.lineWidth;
    style.captionOffset = 5 + tickLabelWidth(metrics) + kGap; // right of the tick labels
    attnscope::paintColorBar(painter, l.colorBar, style, colorBarTicks(m_style.scale),
                             m_data.colorBarCaption);
}

void HeadGridPainter::paintEffect(QPainter& painter, const Layout& l, const QFontMetricsF& metrics) const
{
    if (m_data.effect.size() != size_t(m_data.layers) * size_t(m_data.heads) || m_data.effect.empty()) return;
    painter.save();
    const double max = *std::max_element(m_data.effect.begin(), m_data.effect.end());
    const QLocale locale;
    for (int layer = 0; layer < m_data.layers; ++layer)
        for (int h = 0; h < m_data.heads; ++h) {
            const double value = m_data.effect[size_t(layer) * size_t(m_data.heads) + size_t(h)];
            const double fraction = max > 0 ? value / max : 0.0;
            const QRectF rect = l.grid.thumbnailRect(layer, h);
            QColor colour = headEffectColor(fraction);
            colour.setAlpha(190); // the head's pattern still shows through
            painter.fillRect(rect, colour);
            // The value at the bottom, clear of the badge strip at the top.
            const QString text = locale.toString(value, 'g', 2);
            if (metrics.horizontalAdvance(text) + 2 <= rect.width() &&
                rect.height() >= metrics.height() * 2.5) {
                painter.setPen(fraction > 0.55 ? Qt::white : Qt::black);
                painter.drawText(
                    QRectF(rect.left(), rect.bottom() - metrics.height() - 1, rect.width(), metrics.height()),
                    Qt::AlignHCenter | Qt::AlignVCenter, text);
            }
        }
    // Legend: "<caption>: 0 [scale] max".
    const QRectF line = l.effectLegend;
    const QString maxText = locale.toString(max, 'g', 3);
    const double barWidth = std::min(80.0, line.width() / 4);
    const double fixed = metrics.horizontalAdvance(QStringLiteral("0")) + barWidth +
                         metrics.horizontalAdvance(maxText) + 3 * kGap + 2;
    const QString name = metrics.elidedText(m_data.effectCaption + QStringLiteral(":"), Qt::ElideRight,
                                            std::max(0.0, line.width() - fixed));
    double x = line.left();
    painter.setPen(Qt::black);
    const double nameWidth = metrics.horizontalAdvance(name) + 1;
    painter.drawText(QRectF(x, line.top(), nameWidth, line.height()), Qt::AlignLeft | Qt::AlignVCenter, name);
    x += nameWidth + kGap;
    const double zeroWidth = metrics.horizontalAdvance(QStringLiteral("0")) + 1;
    painter.drawText(QRectF(x, line.top(), zeroWidth, line.height()), Qt::AlignLeft | Qt::AlignVCenter,
                     QStringLiteral("0"));
    x += zeroWidth + kGap / 2;
    const QRectF bar(x, line.center().y() - metrics.ascent() * 0.4, barWidth, metrics.ascent() * 0.8);
    const int steps = 40;
    for (int i = 0; i < steps; ++i)
        painter.fillRect(
            QRectF(bar.left() + bar.width() * i / steps, bar.top(), bar.width() / steps + 0.5, bar.height()),
            headEffectColor((i + 0.5) / steps));
    x = bar.right() + kGap / 2;
    painter.drawText(QRectF(x, line.top(), metrics.horizontalAdvance(maxText) + 1, line.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, maxText);
    painter.restore();
}

void HeadGridPainter::paintBadgesAndLegend(QPainter& painter, const Layout& l,
                                           const QFontMetricsF& metrics) const
{
    if (m_data.labels.size() != size_t(m_data.layers) * size_t(m_data.heads)) return;
    painter.save();
    // The explorer's badge: the head's number and its label's symbol, white on a dark strip (readable over
    // bright cells and the grey causal mask alike), in a smaller font; a ring in the label's colour.
    // Small thumbnails get shorter badges in a smaller font ("H3", then "3", down to 6 px), as on screen;
    // the layout keeps every thumbnail large enough for the number (minimumSlot).
    const QFont base = painter.font();
    const double dpi = painter.device() ? painter.device()->logicalDpiY() : 96.0;
    const double preferredPixels = std::max(5.0, m_style.fontPointSize * 0.85) * dpi / 72.0;
    for (int layer = 0; layer < m_data.layers; ++layer)
        for (int h = 0; h < m_data.heads; ++h) {
            const HeadLabel label = m_data.labels[size_t(layer) * size_t(m_data.heads) + size_t(h)];
            const QRectF rect = l.grid.thumbnailRect(layer, h);
            paintHeadLabelFrame(painter, rect, label, 2 * m_style.lineWidth);
            const HeadBadgeFit badge =
                fitHeadBadge({QStringLiteral("H%1 %2").arg(h).arg(headLabelSymbol(label)),
                              QStringLiteral("H%1").arg(h), QString::number(h)},
                             rect.size(), preferredPixels, base, painter.device());
            if (badge.text.isEmpty()) continue;
            QFont badgeFont = base;
            badgeFont.setPointSizeF(badge.pixelSize * 72.0 / dpi);
            const QFontMetricsF badgeMetrics(badgeFont, painter.device());
            const QRectF strip(rect.left(), rect.top(),
                               std::min(rect.width(), badgeMetrics.horizontalAdvance(badge.text) + 2),
                               badgeMetrics.ascent() + badgeMetrics.descent());
            painter.fillRect(strip, QColor(0, 0, 0, 150));
            painter.setPen(Qt::white);
            painter.setFont(badgeFont);
            painter.drawText(strip.adjusted(1, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, badge.text);
        }
    // The legend: only the labels this grid has, in a fixed order, wrapped onto the lines the layout made.
    QFont legendFont = painter.font();
    legendFont.setPointSizeF(m_style.fontPointSize);
    painter.setFont(legendFont);
    const std::vector<HeadLabel> labels = legendLabels();
    const std::vector<double> widths = legendEntryWidths(metrics);
    const std::vector<LegendSlot> placed =
        flowLegend(widths, l.legend.left(), l.legend.left(), l.legend.width(), kLegendGap);
    const double box = legendSwatchSide(metrics);
    const double line = metrics.height() * 1.6;
    for (size_t i = 0; i < placed.size(); ++i) {
        const double top = l.legend.top() + placed[i].line * line;
        const double x = placed[i].x;
        // The swatch is the label's frame in small (its shape, not only its colour).
        paintHeadLabelFrame(painter, QRectF(x, top + (line - kGap / 2) / 2 - box / 2, box, box), labels[i],
                            kLegendSwatchLine);
        painter.setPen(Qt::black);
        painter.drawText(QRectF(x + box + 4, top, widths[i] - box - 4, line - kGap / 2),
                         Qt::AlignLeft | Qt::AlignVCenter,
                         headLabelSymbol(labels[i]) + QLatin1Char(' ') + headLabelDisplayName(labels[i]));
    }
    painter.restore();
}

std::vector<HeadLabel> HeadGridPainter::legendLabels() const
{
    std::vector<HeadLabel> out;
    for (HeadLabel label : {HeadLabel::Sink, HeadLabel::NoOp, HeadLabel::PreviousToken, HeadLabel::NextToken,
                            HeadLabel::Self, HeadLabel::Broad, HeadLabel::Mixed})
        if (std::find(m_data.labels.begin(), m_data.labels.end(), label) != m_data.labels.end())
            out.push_back(label);
    return out;
}

std::vector<double> HeadGridPainter::legendEntryWidths(const QFontMetricsF& metrics) const
{
    // A swatch, a gap, the symbol and the label's name.
    std::vector<double> widths;
    for (HeadLabel label : legendLabels())
        widths.push_back(legendSwatchSide(metrics) + 4 +
                         metrics.horizontalAdvance(headLabelSymbol(label) + QLatin1Char(' ') +
                                                   headLabelDisplayName(label)) +
                         1);
    return widths;
}

QImage renderHeadGridImage(const HeadGridData& data, const HeatmapStyle& style, int width, int height)
{
    QImage image(width, height, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::TextAntialiasing);
    HeadGridPainter(data, style).paint(painter, QRectF(8, 8, width - 16, height - 16));
    return image;
}

} // namespace attnscope
