#include "generation/serieschart.h"

#include "explorer/chartlegend.h"
#include "render/axisticks.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <limits>

namespace attnscope {

namespace {
QString trChart(const char* text)
{
    return QCoreApplication::translate("attnscope::SeriesChart", text);
}

// Colour-blind safe (Okabe–Ito), in policy order.
QColor curveColor(int index)
{
    static const QColor colors[] = {{0, 114, 178}, {213, 94, 0},   {0, 158, 115}, {204, 121, 167},
                                    {230, 159, 0}, {86, 180, 233}, {0, 0, 0},     {120, 120, 120}};
    return colors[index % 8];
}

QFont chartFont()
{
    QFont font;
    font.setPointSizeF(9);
    return font;
}
} // namespace

SeriesChartGeometry::SeriesChartGeometry(QRectF plot, const SeriesChartData& data)
    : m_plot(plot), m_xCount(std::max(1, data.xCount)), m_log(data.logY), m_yMin(data.yMin), m_yMax(data.yMax)
{
    if (m_log) {
        m_yMin = std::log10(std::max(1e-12, m_yMin));
        m_yMax = std::log10(std::max(1e-12, m_yMax));
    }
    if (!(m_yMax > m_yMin)) m_yMax = m_yMin + 1;
}

double SeriesChartGeometry::xFor(double x) const
{
    return m_xCount <= 1 ? m_plot.left() : m_plot.left() + m_plot.width() * x / double(m_xCount - 1);
}

double SeriesChartGeometry::yFor(double value) const
{
    double v = m_log ? std::log10(std::max(1e-12, value)) : value;
    v = std::clamp(v, m_yMin, m_yMax);
    return m_plot.bottom() - m_plot.height() * (v - m_yMin) / (m_yMax - m_yMin);
}

int SeriesChartGeometry::indexAt(double pixelX) const
{
    if (m_xCount <= 1) return 0;
    const double x = (pixelX - m_plot.left()) / m_plot.width() * double(m_xCount - 1);
    return std::clamp(int(std::lround(x)), 0, m_xCount - 1);
}

QString policyLabel(const CachePolicy& policy)
{
    switch (policy.kind) {
    case CachePolicyKind::Full:
        return trChart(QT_TRANSLATE_NOOP("attnscope::SeriesChart", "full"));
    case CachePolicyKind::Recompute:
        return trChart(QT_TRANSLATE_NOOP("attnscope::SeriesChart", "recompute %1")).arg(policy.cacheSize);
    case CachePolicyKind::SinksWindow:
        if (policy.sinks == 0)
            return trChart(QT_TRANSLATE_NOOP("attnscope::SeriesChart", "window %1")).arg(policy.cacheSize);
        return QCoreApplication::translate("attnscope::SeriesChart", "%n sink(s) + %1", nullptr, policy.sinks)
            .arg(policy.window());
    }
    return policy.name();
}

SeriesChartData streamChartData(const std::vector<StreamEvaluation>& evaluations)
{
    SeriesChartData data;
    data.title = trChart(QT_TRANSLATE_NOOP("attnscope::SeriesChart", "Running perplexity"));
    data.xLabel = trChart(QT_TRANSLATE_NOOP("attnscope::SeriesChart", "token"));
    data.logY = true;
    double low = std::numeric_limits<double>::infinity(), high = 0;
    int firstFull = -1;
    for (size_t i = 0; i < evaluations.size(); ++i) {
        const StreamEvaluation& e = evaluations[i];
        SeriesCurve curve;
        curve.name = policyLabel(e.policy);
        curve.color = curveColor(int(i));
        curve.values = e.runningPerplexity();
        curve.firstX = 1; // nll[i] predicts token i + 1
        for (double v : curve.values)
            if (std::isfinite(v) && v > 0) {
                low = std::min(low, v);
                high = std::max(high, v);
            }
        data.xCount = std::max(data.xCount, int(curve.values.size()) + 1);
        if (e.fullCacheFrom >= 0 && (firstFull < 0 || e.fullCacheFrom < firstFull))
            firstFull = e.fullCacheFrom;
        data.curves.push_back(std::move(curve));
    }
    if (firstFull >= 0)
        data.marks.push_back({double(firstFull + 1),
                              trChart(QT_TRANSLATE_NOOP("attnscope::SeriesChart", "eviction begins")),
                              QColor(120, 120, 120)});
    if (high > 0) {
        // Whole decades around the values, so the log axis has labelled ticks.
        data.yMin = std::pow(10.0, std::floor(std::log10(low)));
        data.yMax = std::pow(10.0, std::ceil(std::log10(high)));
        if (data.yMax <= data.yMin) data.yMax = data.yMin * 10;
    } else {
        data.yMin = 1;
        data.yMax = 10;
    }
    return data;
}

SeriesChartData sinkShareChartData(const SinkShareSeries& series, int layer, int head, int steps)
{
    SeriesChartData data;
    data.title =
        trChart(QT_TRANSLATE_NOOP("attnscope::SeriesChart", "Attention to the first token per step"));
    data.xLabel = trChart(QT_TRANSLATE_NOOP("attnscope::SeriesChart", "step"));
    data.yMin = 0;
    data.yMax = 1;
    data.xCount = std::max(steps, int(series.meanOverHeads.size()));
    data.curves.push_back({trChart(QT_TRANSLATE_NOOP("attnscope::SeriesChart", "mean over heads")),
                           curveColor(0), series.meanOverHeads, 0});
    data.curves.push_back(
        {trChart(QT_TRANSLATE_NOOP("attnscope::SeriesChart", "L%1 H%2")).arg(layer).arg(head), curveColor(1),
         series.chosenHead, 0});
    return data;
}

QRectF SeriesChartPainter::plotRect(const QRectF& area)
{
    const QFontMetricsF metrics(chartFont());
    const double line = metrics.height();
    const double axisWidth = metrics.horizontalAdvance(QStringLiteral("10000")) + 10;
    return area.adjusted(axisWidth, 2 * line * 1.3 + line * 0.5 + 8, -14, -(2 * line + 8));
}

void SeriesChartPainter::paint(QPainter& painter, const QRectF& area, int highlightedX) const
{
    painter.save();
    painter.fillRect(area, Qt::white);
    QFont font = chartFont();
    painter.setFont(font);
    const QFontMetricsF metrics(font, painter.device());
    const double line = metrics.height();
    QRectF plot = plotRect(area);
    QFont titleFont = font;
    titleFont.setBold(true);
    painter.setFont(titleFont);
    const QFontMetricsF titleMetrics(titleFont, painter.device());
    const QRectF titleRect(area.left() + 4, area.top() + 2, area.width() - 8, line * 1.3);
    painter.setPen(Qt::black);
    painter.drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter,
                     titleMetrics.elidedText(m_data.title, Qt::ElideRight, titleRect.width()));
    painter.setFont(font);
    QStringList names;
    for (const SeriesCurve& c : m_data.curves)
        names << c.name;
    const ChartLegendLayout legend = ChartLegendLayout::compute(
        metrics, names, titleRect, std::min(titleMetrics.horizontalAdvance(m_data.title), titleRect.width()));
    for (size_t i = 0; i < legend.entries.size() && i < m_data.curves.size(); ++i) {
        painter.fillRect(legend.entries[i].swatch, m_data.curves[i].color);
        painter.drawText(legend.entries[i].label, Qt::AlignLeft | Qt::AlignVCenter, names[int(i)]);
    }
    plot.setTop(std::max(plot.top(), legend.bottom + line * 0.5 + 2));
    if (plot.height() < 10 || plot.width() < 10) {
        painter.restore();
        return;
    }
    const SeriesChartGeometry geometry(plot, m_data);
    // Y ticks: decades on a log axis, quarters on a linear one; fewer where the labels would touch.
    const std::vector<double> ticks = m_data.logY
                                          ? decadeAxisTicks(m_data.yMin, m_data.yMax, plot.height(), line)
                                          : linearAxisTicks(m_data.yMin, m_data.yMax, plot.height(), line);
    m_yTickLabels.clear();
    for (double v : ticks) {
        const double y = geometry.yFor(v);
        painter.setPen(QColor(220, 220, 220));
        painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        painter.setPen(Qt::black);
        // Decades in full ("10 000", not "1E+04"); fractions as they are.
        const QString text = v >= 1 ? QLocale().toString(v, 'f', 0) : QLocale().toString(v, 'g', 3);
        const double width = metrics.horizontalAdvance(text) + 1;
        const QRectF label(plot.left() - 6 - width, y - line / 2, width, line);
        painter.drawText(label, Qt::AlignRight | Qt::AlignVCenter, text);
        m_yTickLabels.push_back(label);
    }
    // X: the ends and the middle, and the axis name.
    painter.setPen(Qt::black);
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    painter.drawLine(plot.bottomLeft(), plot.topLeft());
    m_xTickLabels.clear();
    if (m_data.xCount > 0) {
        std::vector<int> steps{0, (m_data.xCount - 1) / 2, m_data.xCount - 1};
        steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
        for (int x : steps) {
            const QString text = QLocale().toString(x);
            const double width = metrics.horizontalAdvance(text) + 2;
            // Centred under its step, but inside the area: the last step's label ("1,999") sits at the
            // plot's right edge, and half of it ran past the 14 px margin there.
            const double left = std::clamp(geometry.xFor(x) - width / 2, area.left(),
                                           std::max(area.left(), area.right() - width));
            const QRectF label(left, plot.bottom() + 3, width, line);
            painter.drawText(label, Qt::AlignCenter, text);
            m_xTickLabels.push_back(label);
        }
        painter.drawText(QRectF(plot.left(), plot.bottom() + 3 + line, plot.width(), line), Qt::AlignCenter,
                         m_data.xLabel);
    }
    painter.setClipRect(plot.adjusted(-1, -1, 1, 1));
    for (const ChartMark& mark : m_data.marks) {
        const double x = geometry.xFor(mark.x);
        painter.setPen(QPen(mark.color, 1, Qt::DashLine));
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        painter.setPen(mark.color);
        const double width = metrics.horizontalAdvance(mark.label) + 4;
        const bool left = x + width > plot.right();
        painter.drawText(QRectF(left ? x - width - 2 : x + 3, plot.top() + 1, width, line),
                         Qt::AlignLeft | Qt::AlignVCenter, mark.label);
    }
    if (highlightedX >= 0) {
        const double x = geometry.xFor(highlightedX);
        painter.setPen(QPen(QColor(60, 60, 60), 1.5));
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    }
    painter.setRenderHint(QPainter::Antialiasing);
    for (const SeriesCurve& curve : m_data.curves) {
        QPainterPath path;
        bool started = false;
        for (size_t i = 0; i < curve.values.size(); ++i) {
            const double v = curve.values[i];
            if (!std::isfinite(v)) {
                started = false;
                continue;
            }
            const QPointF p(geometry.xFor(double(i) + curve.firstX), geometry.yFor(v));
            if (started)
                path.lineTo(p);
            else
                path.moveTo(p);
            started = true;
        }
        painter.setPen(QPen(curve.color, 1.6));
        painter.drawPath(path);
        if (curve.values.size() == 1 && std::isfinite(curve.values[0]))
            painter.drawEllipse(QPointF(geometry.xFor(curve.firstX), geometry.yFor(curve.values[0])), 2, 2);
    }
    painter.restore();
}

SeriesChartWidget::SeriesChartWidget(QWidget* parent) : QWidget(parent)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void SeriesChartWidget::setData(SeriesChartData data)
{
    m_data = std::move(data);
    update();
}

void SeriesChartWidget::setHighlightedX(int x)
{
    m_highlighted = x;
    update();
}

void SeriesChartWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    const SeriesChartPainter chart(m_data);
    chart.paint(painter, rect(), m_highlighted);
    m_yTickLabels = chart.yTickLabels();
    m_xTickLabels = chart.xTickLabels();
}

void SeriesChartWidget::mousePressEvent(QMouseEvent* event)
{
    if (m_data.isEmpty()) return;
    const SeriesChartGeometry geometry(SeriesChartPainter::plotRect(rect()), m_data);
    Q_EMIT xClicked(geometry.indexAt(event->position().x()));
}

} // namespace attnscope
