#include "render/headgridpainter.h"

#include "render/colormap.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace attnscope {

namespace {
constexpr double kGap = 6.0;
constexpr double kColorBarWidth = 14.0;
} // namespace

HeadGridPainter::HeadGridPainter(const HeadGridData& data, const HeatmapStyle& style) : m_data(data), m_style(style) {}

HeadGridPainter::Layout HeadGridPainter::layout(QRectF target, const QFontMetricsF& metrics) const
{
    Layout l;
    const double titleHeight = m_style.showTitle && !m_data.title.isEmpty() ? metrics.height() * 1.6 : 0.0;
    const double rowLabelWidth = metrics.horizontalAdvance(QStringLiteral("L%1").arg(std::max(0, m_data.layers - 1))) + kGap;
    const double colLabelHeight = metrics.height() + kGap / 2;
    const double barSpace = m_style.showColorBar ? kColorBarWidth + metrics.horizontalAdvance(QStringLiteral("1e-4")) + 3 * kGap : 0.0;
    const QRectF area(target.left(), target.top() + titleHeight, std::max(1.0, target.width() - barSpace),
                      std::max(1.0, target.height() - titleHeight));
    l.grid = HeadGridLayout(m_data.layers, m_data.heads, area, rowLabelWidth, colLabelHeight);
    const QRectF last = l.grid.thumbnailRect(std::max(0, m_data.layers - 1), std::max(0, m_data.heads - 1));
    const QRectF first = l.grid.thumbnailRect(0, 0);
    l.colorBar = QRectF(last.right() + 2 * kGap, first.top(), kColorBarWidth, std::max(20.0, last.bottom() - first.top()));
    return l;
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
            line[c] = head.isMasked(r, c) ? qRgb(225, 225, 225) : colorMapColor(style.colorMap, head.colorParameter(r, c, style.scale));
    }
    return image;
}

void HeadGridPainter::paint(QPainter& painter, QRectF target) const
{
    QFont font = painter.font();
    font.setPointSizeF(m_style.fontPointSize);
    painter.setFont(font);
    const QFontMetricsF metrics(font, painter.device());
    const Layout l = layout(target, metrics);

    if (m_style.showTitle && !m_data.title.isEmpty()) {
        QFont titleFont = font;
        titleFont.setBold(true);
        painter.setFont(titleFont);
        painter.setPen(Qt::black);
        painter.drawText(QRectF(target.left(), target.top(), target.width(), metrics.height() * 1.5),
                         Qt::AlignLeft | Qt::AlignVCenter, metrics.elidedText(m_data.title, Qt::ElideRight, target.width()));
        painter.setFont(font);
    }
    painter.setPen(Qt::black);
    for (int h = 0; h < m_data.heads; ++h) {
        const QRectF slot = l.grid.thumbnailRect(0, h);
        painter.drawText(QRectF(slot.left(), slot.top() - metrics.height() - kGap / 2, slot.width(), metrics.height()),
                         Qt::AlignCenter, QStringLiteral("H%1").arg(h));
    }
    for (int layer = 0; layer < m_data.layers; ++layer)
        painter.drawText(l.grid.layerLabelRect(layer), Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("L%1").arg(layer));
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
    if (m_style.showColorBar) {
        const QRectF bar = l.colorBar;
        const int steps = 64;
        for (int i = 0; i < steps; ++i) {
            const double t = 1.0 - (i + 0.5) / steps;
            painter.fillRect(QRectF(bar.left(), bar.top() + bar.height() * i / steps, bar.width(), bar.height() / steps + 0.5),
                             QColor::fromRgb(colorMapColor(m_style.colorMap, t)));
        }
        painter.setPen(QPen(Qt::black, 0.5 * m_style.lineWidth));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(bar);
        auto tick = [&](double t, const QString& text) {
            const double y = bar.bottom() - t * bar.height();
            painter.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 3, y));
            painter.drawText(QRectF(bar.right() + 5, y - metrics.height() / 2, 200, metrics.height()),
                             Qt::AlignLeft | Qt::AlignVCenter, text);
        };
        switch (m_style.scale) {
        case HeatmapScale::Absolute:
            tick(0, QStringLiteral("0")), tick(0.5, QStringLiteral("0.5")), tick(1, QStringLiteral("1"));
            break;
        case HeatmapScale::RowMax:
            tick(0, QStringLiteral("0")), tick(1, QCoreApplication::translate("attnscope", "row max"));
            break;
        case HeatmapScale::Log:
            tick(0, QStringLiteral("1e-4")), tick(0.5, QStringLiteral("1e-2")), tick(1, QStringLiteral("1"));
            break;
        }
    }
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
