#include "explorer/layerchartwidget.h"

#include "explorer/chartlegend.h"
#include "render/axisticks.h"

#include <QFontMetricsF>
#include <QLocale>
#include <QPaintDevice>
#include <QPainter>
#include <algorithm>
#include <cmath>

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

void LayerChartWidget::setShowSep(bool show)
{
    m_showSep = show;
    update();
}

namespace {
QFont chartFont()
{
    QFont font;
    font.setPointSizeF(9);
    return font;
}

double chartDpiScale(const QPaintDevice* device)
{
    return device ? device->logicalDpiY() / 96.0 : 1.0;
}
} // namespace

QRectF LayerChartWidget::plotRect(const QRectF& area)
{
    const QFontMetricsF metrics(chartFont());
    const double line = metrics.height();
    const double axisWidth = metrics.horizontalAdvance(QStringLiteral("0.75")) + 10;
    // Title line, legend line, then the plot (its top tick's text reaches half a line above it); layer
    // names below it.
    return area.adjusted(axisWidth, 2 * line * 1.3 + line * 0.5 + 8, -10, -(line + 8));
}

void LayerChartWidget::paintChart(QPainter& painter, const QRectF& area) const
{
    painter.save();
    painter.fillRect(area, Qt::white);
    QFont font = chartFont();
    font.setPointSizeF(font.pointSizeF() / chartDpiScale(painter.device())); // the same pixels on any device
    painter.setFont(font);
    const QFontMetricsF metrics(font, painter.device());
    const double line = metrics.height();
    QRectF plot = plotRect(area);
    const QColor sinkColor(0, 114, 178), sepColor(213, 94, 0);
    const QString title = tr("Mean attention per layer");
    painter.setPen(Qt::black);
    QFont titleFont = font;
    titleFont.setBold(true);
    painter.setFont(titleFont);
    const QFontMetricsF titleMetrics(titleFont, painter.device());
    const QRectF titleRect(area.left() + 4, area.top() + 2, area.width() - 8, line * 1.3);
    painter.drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter,
                     titleMetrics.elidedText(title, Qt::ElideRight, titleRect.width()));
    painter.setFont(font);
    // The legend from measured widths (no overlap in any language): beside the title when it fits there,
    // else on lines of its own below it.
    QStringList labels{tr("sink (first token)")};
    if (m_showSep) labels << tr("[SEP]");
    const ChartLegendLayout legend =
        ChartLegendLayout::compute(metrics, labels, titleRect,
                                   std::min(titleMetrics.horizontalAdvance(title), titleRect.width()));
    const QColor colors[] = {sinkColor, sepColor};
    for (size_t i = 0; i < legend.entries.size(); ++i) {
        painter.fillRect(legend.entries[i].swatch, colors[i]);
        painter.drawText(legend.entries[i].label, Qt::AlignLeft | Qt::AlignVCenter, labels[int(i)]);
    }
    plot.setTop(std::max(plot.top(), legend.bottom + line * 0.5 + 2));
    const LayerChartGeometry geometry(plot, int(m_summaries.size()));
    // Quarters, fewer where their labels would touch (render/axisticks.h).
    m_yTickLabels.clear();
    for (double v : linearAxisTicks(0.0, 1.0, plot.height(), line)) {
        const double y = geometry.yFor(v);
        painter.setPen(QColor(220, 220, 220));
        painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        painter.setPen(Qt::black);
        const QString text = QLocale().toString(v);
        const double width = metrics.horizontalAdvance(text) + 1;
        const QRectF label(plot.left() - 6 - width, y - line / 2, width, line);
        painter.drawText(label, Qt::AlignRight | Qt::AlignVCenter, text);
        m_yTickLabels.push_back(label);
    }
    // Layer names every k-th layer when they would touch (24 layers in a narrow chart).
    const double group = plot.width() / std::max<size_t>(1, m_summaries.size());
    const double widest =
        metrics.horizontalAdvance(tr("L%1").arg(std::max<size_t>(1, m_summaries.size()) - 1)) + 6;
    const int nameStep = std::max(1, int(std::ceil(widest / std::max(1e-6, group))));
    for (const LayerSummary& s : m_summaries) {
        painter.fillRect(geometry.barRect(s.layer, 0, s.sinkMass), sinkColor);
        if (m_showSep) painter.fillRect(geometry.barRect(s.layer, 1, s.sepMass), sepColor);
        const QRectF slot = geometry.barRect(s.layer, 0, 0);
        const QString name = tr("L%1").arg(s.layer);
        const double width = metrics.horizontalAdvance(name) + 1;
        const double centre = m_showSep ? slot.right() : slot.center().x();
        painter.setPen(Qt::black);
        if (s.layer % nameStep == 0)
            painter.drawText(QRectF(centre - width / 2, plot.bottom() + 3, width, line), Qt::AlignCenter,
                             name);
    }
    painter.setPen(Qt::black);
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    painter.restore();
}

} // namespace attnscope
