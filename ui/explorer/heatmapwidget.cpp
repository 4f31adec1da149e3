#include "explorer/heatmapwidget.h"

#include "render/heatmappainter.h"
#include "render/numberformat.h"

#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace attnscope {

HeatmapWidget::HeatmapWidget(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(240, 200);
    setAutoFillBackground(true);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, Qt::white);
    setPalette(pal);
}

void HeatmapWidget::setData(HeatmapData data)
{
    m_placeholder.clear();
    m_hoverRow = m_hoverCol = -1;
    Q_EMIT hoverChanged(QString()); // a read-out of the previous matrix would describe another run
    m_fetch = nullptr;
    m_overview = {};
    m_block = {};
    m_original = std::move(data);
    applyDiscount();
    relayout();
    update();
}

void HeatmapWidget::setTiledData(HeatmapData frame, TileFetcher fetch, HeatmapData overview)
{
    m_placeholder.clear();
    m_hoverRow = m_hoverCol = -1;
    Q_EMIT hoverChanged(QString());
    m_fetch = std::move(fetch);
    m_original = std::move(frame);
    m_overview = std::move(overview);
    m_block = {};
    applyDiscount();
    relayout();
    update();
}

void HeatmapWidget::clear(const QString& reason)
{
    setData(HeatmapData{});
    m_placeholder = reason;
    update();
}

void HeatmapWidget::setStale(const QString& text)
{
    m_stale = text;
    update();
}

void HeatmapWidget::setStyle(const HeatmapStyle& style)
{
    m_style = style;
    QPalette pal = palette();
    pal.setColor(QPalette::Window, style.dark ? Qt::black : Qt::white);
    pal.setColor(QPalette::WindowText, style.dark ? QColor(235, 235, 235) : QColor(Qt::black));
    setPalette(pal);
    relayout();
    update();
}

void HeatmapWidget::setDiscountSpecial(bool discount)
{
    if (discount == m_discount) return;
    m_discount = discount;
    m_block = {};
    applyDiscount();
    update();
}

void HeatmapWidget::applyDiscount()
{
    m_data = m_original;
    bool anySpecial = false;
    for (int c = 0; c < m_data.cols && !anySpecial; ++c)
        anySpecial = m_data.isDiscountable(c);
    if (!m_discount || !anySpecial) return;
    if (m_fetch) {
        m_data.discounted = true;
        m_data.title += tr(" · special tokens discounted (exact when zoomed in)");
    } else {
        discountSpecialTokens(m_data, tr(" · special tokens discounted"));
    }
}

void HeatmapWidget::fitToView()
{
    relayout();
    update();
    emitView();
}

void HeatmapWidget::relayout()
{
    m_geometry = HeatmapPainter(m_data, m_style).layout(QRectF(rect()).adjusted(8, 8, -8, -8), font(), this);
}

void HeatmapWidget::setView(QPointF origin, double cellWidth, double cellHeight)
{
    m_geometry.setView(origin, cellWidth, cellHeight);
    update();
}

void HeatmapWidget::setHoverCell(int row, int col)
{
    m_hoverRow = row;
    m_hoverCol = col;
    update();
}

void HeatmapWidget::emitView()
{
    Q_EMIT viewChanged(m_geometry.origin(), m_geometry.cellWidth(), m_geometry.cellHeight());
}

std::vector<float> HeatmapWidget::shownRow(int row) const
{
    std::vector<float> values = m_fetch(row, row + 1, 0, m_data.cols);
    if (m_data.discounted) {
        HeatmapData one;
        one.rows = 1;
        one.cols = m_data.cols;
        one.values = values;
        one.specialCols = m_data.specialCols;
        one.discountCols = m_data.discountCols;
        discountSpecialTokens(one, QString());
        values = one.values;
    }
    return values;
}

float HeatmapWidget::valueAt(int row, int col) const
{
    if (row < 0 || col < 0 || row >= m_data.rows || col >= m_data.cols) return 0.0f;
    if (!m_fetch) return m_data.value(row, col);
    if (row >= m_block.firstRow && row < m_block.firstRow + m_block.rows && m_block.cols == m_data.cols)
        return m_block.value(row - m_block.firstRow, col);
    return shownRow(row)[size_t(col)];
}

QString HeatmapWidget::cellText(int row, int col) const
{
    const QString query = row < m_data.rowLabels.size() ? m_data.rowLabels.at(row) : QString::number(row);
    const QString key = col < m_data.colLabels.size() ? m_data.colLabels.at(col) : QString::number(col);
    if (m_data.isMasked(row - m_data.firstRow, col - m_data.firstCol))
        return tr("%1 → %2: masked (causal)").arg(query, key);
    if (m_data.isExcluded(col)) return tr("%1 → %2: special token, discounted").arg(query, key);
    const double value = double(valueAt(row, col));
    if (size_t(row) < m_data.rowTotals.size() && !m_data.discounted)
        return tr("%1 → %2: ‖αf(x)‖ %3 (%4 of the row)")
            .arg(query, key, QLocale().toString(value * double(m_data.rowTotals[size_t(row)]), 'g', 3),
                 formatAttention(value));
    return tr("%1 → %2: %3").arg(query, key, formatAttention(value));
}

QString HeatmapWidget::hoverText(QPointF position) const
{
    const auto cell = m_geometry.cellAt(position);
    if (!cell) return {};
    return cellText(cell->first, cell->second);
}

bool HeatmapWidget::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = hoverText(help->pos());
        if (text.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), text, this);
        }
        return true;
    }
    return QWidget::event(event);
}

void HeatmapWidget::updateExactBlock()
{
    int row0, row1, col0, col1;
    m_geometry.visibleRange(row0, row1, col0, col1);
    if (row1 - row0 > exactTileLimit() || col1 - col0 > exactTileLimit()) {
        m_block = {};
        return;
    }
    // Whole rows: the per-row max and the discount need every key of a row.
    if (m_block.rows > 0 && m_block.firstRow <= row0 && m_block.firstRow + m_block.rows >= row1) return;
    // Half a view of margin above and below, so that panning rarely needs a new fetch.
    const int margin = (row1 - row0) / 2;
    row0 = std::max(0, row0 - margin);
    row1 = std::min(m_data.rows, row1 + margin);
    HeatmapData block;
    block.rows = row1 - row0;
    block.cols = m_data.cols;
    block.firstRow = row0;
    block.values = m_fetch(row0, row1, 0, m_data.cols);
    block.causal = m_data.causal;
    block.specialCols = m_data.specialCols;
    block.discountCols = m_data.discountCols;
    if (m_data.discounted) discountSpecialTokens(block, QString());
    block.rowMax.resize(size_t(block.rows));
    for (int r = 0; r < block.rows; ++r) {
        const float* begin = block.values.data() + size_t(r) * size_t(block.cols);
        block.rowMax[size_t(r)] = *std::max_element(begin, begin + block.cols);
    }
    m_block = std::move(block);
}

void HeatmapWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::TextAntialiasing);
    if (m_data.rows <= 0 || m_data.cols <= 0) {
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(rect().adjusted(16, 16, -16, -16), Qt::AlignCenter | Qt::TextWordWrap,
                         m_placeholder);
        return;
    }
    const HeatmapData* cells = nullptr;
    if (m_fetch) {
        updateExactBlock();
        cells = m_block.rows > 0 ? &m_block : &m_overview;
    }
    HeatmapPainter(m_data, m_style).paint(painter, QRectF(rect()).adjusted(8, 8, -8, -8), &m_geometry, cells);
    if (m_hoverRow >= 0 && m_hoverCol >= 0 && m_hoverRow < m_data.rows && m_hoverCol < m_data.cols) {
        painter.setClipRect(m_geometry.area());
        painter.setPen(QPen(QColor(255, 80, 0), 1.5));
        painter.setBrush(Qt::NoBrush);
        const QRectF cell = m_geometry.cellRect(m_hoverRow, m_hoverCol);
        painter.drawRect(cell.adjusted(-1, -1, 1, 1));
    }
    if (!m_stale.isEmpty()) {
        painter.setClipping(false);
        painter.fillRect(rect(), m_style.dark ? QColor(0, 0, 0, 170) : QColor(255, 255, 255, 170));
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(rect().adjusted(16, 16, -16, -16), Qt::AlignCenter | Qt::TextWordWrap, m_stale);
    }
}

void HeatmapWidget::resizeEvent(QResizeEvent*)
{
    relayout();
}

void HeatmapWidget::zoomAt(QPointF position, double factor)
{
    m_geometry.zoomAt(position, factor);
    update();
    emitView();
}

void HeatmapWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (m_dragging) {
        m_geometry.panBy(event->position() - m_lastDrag);
        m_lastDrag = event->position();
        update();
        emitView();
    }
    const auto cell = m_geometry.cellAt(event->position());
    const int row = cell ? cell->first : -1, col = cell ? cell->second : -1;
    if (row != m_hoverRow || col != m_hoverCol) {
        m_hoverRow = row;
        m_hoverCol = col;
        update();
        Q_EMIT hoveredCellChanged(row, col);
    }
    Q_EMIT hoverChanged(hoverText(event->position()));
}

void HeatmapWidget::leaveEvent(QEvent*)
{
    if (m_hoverRow >= 0) {
        m_hoverRow = m_hoverCol = -1;
        update();
        Q_EMIT hoveredCellChanged(-1, -1);
    }
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
    zoomAt(event->position(), std::pow(1.25, steps));
    event->accept();
}

} // namespace attnscope
