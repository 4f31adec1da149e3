#include "render/colorbar.h"

#include "render/numberformat.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <algorithm>

namespace attnscope {

std::vector<ColorBarTick> colorBarTicks(HeatmapScale scale)
{
    switch (scale) {
    case HeatmapScale::Absolute:
        return {{0, formatShort(0)}, {0.5, formatShort(0.5)}, {1, formatShort(1)}};
    case HeatmapScale::RowMax:
        return {{0, formatShort(0)}, {1, QCoreApplication::translate("attnscope", "row max")}};
    case HeatmapScale::Log:
        return {{0, formatShort(1e-4)}, {0.5, formatShort(0.01)}, {1, formatShort(1)}};
    }
    return {};
}

std::vector<ColorBarTick> signedColorBarTicks(double range)
{
    return {{0, QStringLiteral("−") + formatShort(range)},
            {0.5, QStringLiteral("0")},
            {1, QStringLiteral("+") + formatShort(range)}};
}

void paintColorBar(QPainter& painter, QRectF bar, const ColorBarStyle& style,
                   const std::vector<ColorBarTick>& ticks, const QString& caption)
{
    const int steps = 64;
    for (int i = 0; i < steps; ++i) {
        const double t = 1.0 - (i + 0.5) / steps;
        painter.fillRect(
            QRectF(bar.left(), bar.top() + bar.height() * i / steps, bar.width(), bar.height() / steps + 0.5),
            QColor::fromRgb(style.colorAt(t)));
    }
    painter.setPen(QPen(style.ink, 0.5 * style.lineWidth));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(bar);
    const QFontMetricsF metrics(painter.font(), painter.device());
    for (const ColorBarTick& tick : ticks) {
        const double y = bar.bottom() - tick.position * bar.height();
        painter.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 3, y));
        const double top = std::clamp(y - metrics.height() / 2, bar.top() - metrics.height() / 2,
                                      bar.bottom() - metrics.height() / 2);
        painter.drawText(
            QRectF(bar.right() + 5, top, metrics.horizontalAdvance(tick.text) + 1, metrics.height()),
            Qt::AlignLeft | Qt::AlignVCenter, tick.text);
    }
    if (caption.isEmpty()) return;
    painter.save();
    painter.translate(bar.right() + style.captionOffset, bar.bottom());
    painter.rotate(-90);
    painter.drawText(QRectF(0, 0, bar.height(), metrics.height()), Qt::AlignCenter,
                     metrics.elidedText(caption, Qt::ElideRight, bar.height()));
    painter.restore();
}

void paintColorBarAcross(QPainter& painter, QRectF bar, const ColorBarStyle& style,
                         const std::vector<ColorBarTick>& ticks, const QString& caption)
{
    const int steps = 64;
    for (int i = 0; i < steps; ++i) {
        const double t = (i + 0.5) / steps;
        painter.fillRect(
            QRectF(bar.left() + bar.width() * i / steps, bar.top(), bar.width() / steps + 0.5, bar.height()),
            QColor::fromRgb(style.colorAt(t)));
    }
    painter.setPen(QPen(style.ink, 0.5 * style.lineWidth));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(bar);
    const QFontMetricsF metrics(painter.font(), painter.device());
    for (const ColorBarTick& tick : ticks) {
        const double x = bar.left() + tick.position * bar.width();
        painter.drawLine(QPointF(x, bar.bottom()), QPointF(x, bar.bottom() + 3));
        const double width = metrics.horizontalAdvance(tick.text) + 1;
        const double left = std::clamp(x - width / 2, bar.left(), std::max(bar.left(), bar.right() - width));
        painter.drawText(QRectF(left, bar.bottom() + 3, width, metrics.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, tick.text);
    }
    if (caption.isEmpty()) return;
    painter.drawText(QRectF(bar.left(), bar.bottom() + 3 + metrics.height(), bar.width(), metrics.height()),
                     Qt::AlignLeft | Qt::AlignVCenter,
                     metrics.elidedText(caption, Qt::ElideRight, bar.width()));
}

} // namespace attnscope
