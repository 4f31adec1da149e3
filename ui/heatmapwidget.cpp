#include "heatmapwidget.h"

#include "render/heatmappainter.h"

#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include <cmath>

namespace attnscope {

HeatmapWidget::HeatmapWidget(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumSize(240, 200);
    setAutoFillBackground(true);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, Qt::white);
    setPalette(pal);
}

void HeatmapWidget::setData(HeatmapData data)
{
    m_data = std::move(data);
    relayout();
    update();
}

void HeatmapWidget::setStyle(const HeatmapStyle& style)
{
    m_style = style;
    relayout();
    update();
}

void HeatmapWidget::fitToView()
{
    relayout();
    update();
}

void HeatmapWidget::relayout()
{
    QFont f = font();
    f.setPointSizeF(m_style.fontPointSize);
    m_geometry = HeatmapPainter(m_data, m_style).layout(QRectF(rect()).adjusted(8, 8, -8, -8), QFontMetricsF(f, this));
}

QString HeatmapWidget::hoverText(QPointF position) const
{
    const auto cell = m_geometry.cellAt(position);
    if (!cell)
        return {};
    const auto [row, col] = *cell;
    const QString query = row < m_data.rowLabels.size() ? m_data.rowLabels.at(row) : QString::number(row);
    const QString key = col < m_data.colLabels.size() ? m_data.colLabels.at(col) : QString::number(col);
    if (m_data.isMasked(row, col))
        return tr("%1 → %2: masked (causal)").arg(query, key);
    return tr("%1 → %2: %3").arg(query, key, QLocale().toString(double(m_data.value(row, col)), 'g', 4));
}

void HeatmapWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::TextAntialiasing);
    HeatmapPainter(m_data, m_style).paint(painter, QRectF(rect()).adjusted(8, 8, -8, -8), &m_geometry);
}

void HeatmapWidget::resizeEvent(QResizeEvent*)
{
    relayout();
}

void HeatmapWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (m_dragging) {
        m_geometry.panBy(event->position() - m_lastDrag);
        m_lastDrag = event->position();
        update();
    }
    Q_EMIT hoverChanged(hoverText(event->position()));
}

void HeatmapWidget::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        m_dragging = true;
        m_lastDrag = event->position();
    }
}

void HeatmapWidget::mouseReleaseEvent(QMouseEvent*)
{
    m_dragging = false;
}

void HeatmapWidget::mouseDoubleClickEvent(QMouseEvent*)
{
    fitToView();
}

void HeatmapWidget::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    m_geometry.zoomAt(event->position(), std::pow(1.25, steps));
    update();
    event->accept();
}

} // namespace attnscope
