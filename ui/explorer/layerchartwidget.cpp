#include "explorer/layerchartwidget.h"

#include "explorer/chartlegend.h"

#include <QFontMetricsF>
#include <QLocale>
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
    QRectF plot = plotRect(area);
    const double top = area.top();
    const QColor sinkColor(0, 114, 178), sepColor(213, 94, 0);
    const QString title = tr("Mean attention per layer");
    const QFontMetricsF metrics(painter.font(), painter.device());
    painter.setPen(Qt::black);
    painter.drawText(QRectF(plot.left(), top + 2, plot.width(), 20), Qt::AlignLeft | Qt::AlignVCenter,
                     metrics.elidedText(title, Qt::ElideRight, plot.width()));
    // The legend from measured widths (no overlap in any language); below the title when it does not fit.
    const QStringList labels{tr("sink (first token)"), tr("[SEP]")};
    const ChartLegendLayout legend =
        ChartLegendLayout::compute(metrics, labels, QRectF(plot.left(), top + 2, plot.width(), 20),
                                   std::min(metrics.horizontalAdvance(title), plot.width()));
    const QColor colors[] = {sinkColor, sepColor};
    for (size_t i = 0; i < legend.entries.size(); ++i) {
        painter.fillRect(legend.entries[i].swatch, colors[i]);
        painter.drawText(legend.entries[i].label, Qt::AlignLeft | Qt::AlignVCenter, labels[int(i)]);
    }
    plot.setTop(std::max(plot.top(), legend.bottom + 6));
    const LayerChartGeometry geometry(plot, int(m_summaries.size()));
    for (double v : {0.0, 0.25, 0.5, 0.75, 1.0}) {
        const double y = geometry.yFor(v);
        painter.setPen(QColor(220, 220, 220));
        painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        painter.setPen(Qt::black);
        painter.drawText(QRectF(area.left(), y - 8, plot.left() - area.left() - 4, 16),
                         Qt::AlignRight | Qt::AlignVCenter, QLocale().toString(v));
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
