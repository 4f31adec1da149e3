#include "explorer/layerchartwidget.h"

#include <QPainter>
#include <algorithm>

namespace attnscope {

LayerChartGeometry::LayerChartGeometry(QRectF plot, int layers) : m_plot(plot), m_layers(std::max(1, layers))
{}

double LayerChartGeometry::yFor(double value) const
{
    return m_plot.bottom() - std::clamp(value, 0.0, 1.0) * m_plot.height();
}

QRectF LayerChartGeometry::barRect(int layer, int series, double value) const
{
    const double group = m_plot.width() / m_layers;
    const double bar = group * 0.38;
    const double left = m_plot.left() + layer * group + group * 0.12 + series * bar;
    return QRectF(QPointF(left, yFor(value)), QPointF(left + bar, m_plot.bottom()));
}

LayerChartWidget::LayerChartWidget(QWidget* parent) : QWidget(parent)
{
    setMinimumSize(240, 140);
}

void LayerChartWidget::setSummaries(std::vector<LayerSummary> summaries)
{
    m_summaries = std::move(summaries);
    update();
}

void LayerChartWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    paintChart(painter, rect());
}

QRectF LayerChartWidget::plotRect(const QRectF& area)
{
    return area.adjusted(40, 26, -10, -24);
}

void LayerChartWidget::paintChart(QPainter& painter, const QRectF& area) const
{
    painter.save();
    painter.fillRect(area, Qt::white);
    const QRectF plot = plotRect(area);
    const double top = area.top();
    const LayerChartGeometry geometry(plot, int(m_summaries.size()));
    const QColor sinkColor(0, 114, 178), sepColor(213, 94, 0);
    painter.setPen(Qt::black);
    painter.drawText(QRectF(plot.left(), top + 2, plot.width(), 20), Qt::AlignLeft | Qt::AlignVCenter,
                     tr("Mean attention per layer"));
    painter.fillRect(QRectF(plot.right() - 200, top + 8, 10, 10), sinkColor);
    painter.drawText(QPointF(plot.right() - 186, top + 17), tr("sink (first token)"));
    painter.fillRect(QRectF(plot.right() - 80, top + 8, 10, 10), sepColor);
    painter.drawText(QPointF(plot.right() - 66, top + 17), tr("[SEP]"));
    for (double v : {0.0, 0.25, 0.5, 0.75, 1.0}) {
        const double y = geometry.yFor(v);
        painter.setPen(QColor(220, 220, 220));
        painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        painter.setPen(Qt::black);
        painter.drawText(QRectF(area.left(), y - 8, plot.left() - area.left() - 4, 16), Qt::AlignRight | Qt::AlignVCenter,
                         QString::number(v));
    }
    for (const LayerSummary& s : m_summaries) {
        painter.fillRect(geometry.barRect(s.layer, 0, s.sinkMass), sinkColor);
        painter.fillRect(geometry.barRect(s.layer, 1, s.sepMass), sepColor);
        const QRectF slot = geometry.barRect(s.layer, 0, 0);
        painter.setPen(Qt::black);
        painter.drawText(QRectF(slot.left(), plot.bottom() + 2, slot.width() * 2, 18), Qt::AlignCenter,
                         tr("L%1").arg(s.layer));
    }
    painter.setPen(Qt::black);
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    painter.restore();
}

} // namespace attnscope
