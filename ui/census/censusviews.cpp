#include "census/censusviews.h"

#include "census/censusfigures.h"
#include "census/pointlabels.h"
#include "render/colormap.h"
#include "render/headgridpainter.h"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace attnscope {

CensusGridView::CensusGridView(QWidget* parent) : QWidget(parent)
{
    setMinimumSize(240, 180);
}

void CensusGridView::setData(const CensusAccumulator& sums, CensusMetric metric, const QString& title)
{
    m_grid = censusHeadGrid(sums, metric, title);
    if (!censusMetricIsShare(metric)) { // entropy in nats: shown over 0 .. the largest head's value
        float top = 0;
        for (const HeatmapData& cell : m_grid.thumbnails)
            top = std::max(top, cell.values.front());
        for (HeatmapData& cell : m_grid.thumbnails)
            cell.values.front() = top > 0 ? cell.values.front() / top : 0.0f;
        m_grid.title += tr(" (scaled to the largest)");
    }
    update();
}

void CensusGridView::setSelected(int layer, int head)
{
    m_layer = layer;
    m_head = head;
    update();
}

std::pair<int, int> CensusGridView::headAt(QPointF point) const
{
    if (m_grid.layers == 0) return {-1, -1};
    const QFontMetricsF metrics(font());
    const HeadGridPainter painter(m_grid, HeatmapStyle{});
    for (int l = 0; l < m_grid.layers; ++l)
        for (int h = 0; h < m_grid.heads; ++h)
            if (painter.thumbnailRect(target(), metrics, l, h).contains(point)) return {l, h};
    return {-1, -1};
}

void CensusGridView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), Qt::white);
    if (m_grid.layers == 0) return;
    const HeadGridPainter grid(m_grid, HeatmapStyle{});
    grid.paint(painter, target());
    if (m_layer >= 0 && m_head >= 0 && m_layer < m_grid.layers && m_head < m_grid.heads) {
        painter.setPen(QPen(QColor(230, 30, 30), 2.5));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(grid.thumbnailRect(target(), QFontMetricsF(painter.font()), m_layer, m_head)
                             .adjusted(-2, -2, 2, 2));
    }
}

void CensusGridView::mousePressEvent(QMouseEvent* event)
{
    const auto [layer, head] = headAt(event->position());
    if (layer >= 0) Q_EMIT headClicked(layer, head);
}

LayerCurvesView::LayerCurvesView(QWidget* parent) : QWidget(parent)
{
    setMinimumSize(240, 160);
}

void LayerCurvesView::setData(const CensusAccumulator& sums, const QString& title, LayerCurveMeasure measure)
{
    m_sums = sums;
    m_title = title;
    m_measure = measure;
    update();
}

void LayerCurvesView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), Qt::white);
    if (m_sums.inputs() == 0) return;
    paintLayerCurves(painter, QRectF(rect()).adjusted(6, 6, -6, -6),
                     clarkLayerCurves(m_sums, m_title, m_measure));
}

HeadMapView::HeadMapView(QWidget* parent) : QWidget(parent)
{
    setMinimumSize(200, 160);
}

void HeadMapView::setPoints(std::vector<HeadMapPoint> points)
{
    m_points = std::move(points);
    update();
}

void HeadMapView::setSelected(int layer, int head)
{
    m_layer = layer;
    m_head = head;
    update();
}

QPointF HeadMapView::position(const HeadMapPoint& point) const
{
    double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
    for (const HeadMapPoint& p : m_points) {
        x0 = std::min(x0, p.x), x1 = std::max(x1, p.x);
        y0 = std::min(y0, p.y), y1 = std::max(y1, p.y);
    }
    const QRectF area = QRectF(rect()).adjusted(30, 30, -60, -20 - keyHeight());
    const double sx = x1 > x0 ? area.width() / (x1 - x0) : 0, sy = y1 > y0 ? area.height() / (y1 - y0) : 0;
    return {area.left() + (point.x - x0) * sx, area.bottom() - (point.y - y0) * sy};
}

std::vector<std::optional<QRectF>> HeadMapView::labelBoxes() const
{
    const QFontMetricsF metrics(font());
    PointLabelRequest request;
    request.bounds = QRectF(rect()).adjusted(2, 26, -2, -2 - keyHeight()); // between the title and the key
    request.pointRadius = 6; // the selected point's disc; the others are 4
    for (size_t i = 0; i < m_points.size(); ++i) {
        const HeadMapPoint& p = m_points[i];
        request.points.push_back(position(p));
        request.sizes.push_back(metrics.size(Qt::TextSingleLine, headLabel(p)) + QSizeF(2, 0));
        if (p.layer == m_layer && p.head == m_head) request.first = int(i);
    }
    return placePointLabels(request);
}

double HeadMapView::keyHeight() const
{
    return QFontMetricsF(font()).height() + 8;
}

QString HeadMapView::headLabel(const HeadMapPoint& point)
{
    return QStringLiteral("L%1H%2").arg(point.layer).arg(point.head);
}

void HeadMapView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), Qt::white);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::black);
    painter.drawText(QRectF(6, 4, width() - 12, 20), Qt::AlignLeft | Qt::AlignVCenter,
                     tr("Heads by similarity (first two principal components of their census means)"));
    int layers = 1;
    for (const HeadMapPoint& p : m_points)
        layers = std::max(layers, p.layer + 1);
    const std::vector<std::optional<QRectF>> labels = labelBoxes();
    for (size_t i = 0; i < m_points.size(); ++i) {
        const HeadMapPoint& p = m_points[i];
        const QPointF at = position(p);
        const QColor color = layerColor(p.layer, layers);
        const bool selected = p.layer == m_layer && p.head == m_head;
        painter.setPen(selected ? QPen(QColor(230, 30, 30), 2.5) : QPen(color.darker(130), 1));
        painter.setBrush(color);
        painter.drawEllipse(at, selected ? 6 : 4, selected ? 6 : 4);
    }
    // Labels after every point, so that the selected head's label, which may lie over a crowd, stays
    // readable.
    for (size_t i = 0; i < m_points.size(); ++i) {
        if (!labels[i]) continue; // no free spot: the tooltip names it
        const HeadMapPoint& p = m_points[i];
        if (p.layer == m_layer && p.head == m_head) {
            painter.setPen(QPen(QColor(230, 30, 30), 1));
            painter.setBrush(QColor(255, 255, 255, 235));
            painter.drawRect(*labels[i]);
        }
        painter.setPen(Qt::black);
        painter.drawText(*labels[i], Qt::AlignCenter, headLabel(p));
    }
    // Colour key: one swatch per layer along the bottom right.
    if (m_points.empty()) return;
    const QFontMetricsF metrics(font());
    const QString caption = tr("layer");
    double x = width() - 6;
    const double y = height() - 4 - metrics.height();
    for (int layer = layers - 1; layer >= 0; --layer) {
        const QString number = QString::number(layer);
        const double w = metrics.horizontalAdvance(number) + 14;
        x -= w;
        painter.setPen(layerColor(layer, layers).darker(130));
        painter.setBrush(layerColor(layer, layers));
        painter.drawEllipse(QPointF(x + 4, y + metrics.height() / 2), 4, 4);
        painter.setPen(Qt::black);
        painter.drawText(QRectF(x + 10, y, w - 10, metrics.height()), Qt::AlignLeft | Qt::AlignVCenter,
                         number);
    }
    const double cw = metrics.horizontalAdvance(caption) + 6;
    painter.drawText(QRectF(x - cw, y, cw, metrics.height()), Qt::AlignLeft | Qt::AlignVCenter, caption);
}

QColor HeadMapView::layerColor(int layer, int layers)
{
    return QColor::fromRgb(colorMapColor(ColorMapKind::Viridis, 0.9 * layer / std::max(1, layers - 1)));
}

const HeadMapPoint* HeadMapView::pointAt(QPointF where) const
{
    double best = 12;
    const HeadMapPoint* nearest = nullptr;
    for (const HeadMapPoint& p : m_points) {
        const QPointF d = position(p) - where;
        const double distance = std::hypot(d.x(), d.y());
        if (distance < best) best = distance, nearest = &p;
    }
    return nearest;
}

bool HeadMapView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        if (const HeadMapPoint* p = pointAt(help->pos()))
            QToolTip::showText(help->globalPos(), tr("layer %1, head %2").arg(p->layer).arg(p->head), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void HeadMapView::mousePressEvent(QMouseEvent* event)
{
    if (const HeadMapPoint* nearest = pointAt(event->position()))
        Q_EMIT headClicked(nearest->layer, nearest->head);
}

} // namespace attnscope
