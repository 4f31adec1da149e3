#include "render/heatmapgeometry.h"

#include <algorithm>
#include <cmath>

namespace attnscope {

HeatmapGeometry::HeatmapGeometry(QRectF area, int rows, int cols) : m_area(area), m_rows(rows), m_cols(cols)
{
    fit();
}

void HeatmapGeometry::fit()
{
    m_origin = QPointF(0, 0);
    if (m_rows <= 0 || m_cols <= 0 || m_area.isEmpty())
        return;
    const double size = std::min(m_area.width() / m_cols, m_area.height() / m_rows);
    m_cellWidth = m_cellHeight = size;
}

void HeatmapGeometry::setView(QPointF origin, double cellWidth, double cellHeight)
{
    if (cellWidth <= 0 || cellHeight <= 0)
        return;
    m_cellWidth = cellWidth;
    m_cellHeight = cellHeight;
    m_origin = origin;
    clampOrigin();
}

bool HeatmapGeometry::isFitted() const
{
    if (m_rows <= 0 || m_cols <= 0)
        return true;
    const double size = std::min(m_area.width() / m_cols, m_area.height() / m_rows);
    return std::abs(m_cellWidth - size) < 1e-9 && m_origin.isNull();
}

QRectF HeatmapGeometry::cellRect(int row, int col) const
{
    return QRectF(m_area.left() + (col - m_origin.x()) * m_cellWidth, m_area.top() + (row - m_origin.y()) * m_cellHeight,
                  m_cellWidth, m_cellHeight);
}

QPointF HeatmapGeometry::toCell(QPointF pixel) const
{
    return QPointF(m_origin.x() + (pixel.x() - m_area.left()) / m_cellWidth,
                   m_origin.y() + (pixel.y() - m_area.top()) / m_cellHeight);
}

std::optional<std::pair<int, int>> HeatmapGeometry::cellAt(QPointF pixel) const
{
    if (!m_area.contains(pixel))
        return std::nullopt;
    const QPointF cell = toCell(pixel);
    const int row = int(std::floor(cell.y())), col = int(std::floor(cell.x()));
    if (row < 0 || row >= m_rows || col < 0 || col >= m_cols)
        return std::nullopt;
    return std::make_pair(row, col);
}

void HeatmapGeometry::zoomAt(QPointF pixel, double factor)
{
    if (factor <= 0)
        return;
    const QPointF anchor = toCell(pixel);
    const double fitSize = std::min(m_area.width() / std::max(1, m_cols), m_area.height() / std::max(1, m_rows));
    // Never zoom out beyond fitting the whole matrix, nor in beyond a cell of 4x the view.
    const double maxSize = std::max(fitSize, std::min(m_area.width(), m_area.height()) / 4.0);
    m_cellWidth = std::clamp(m_cellWidth * factor, fitSize, maxSize);
    m_cellHeight = std::clamp(m_cellHeight * factor, fitSize, maxSize);
    m_origin = QPointF(anchor.x() - (pixel.x() - m_area.left()) / m_cellWidth,
                       anchor.y() - (pixel.y() - m_area.top()) / m_cellHeight);
}

void HeatmapGeometry::panBy(QPointF pixelDelta)
{
    m_origin -= QPointF(pixelDelta.x() / m_cellWidth, pixelDelta.y() / m_cellHeight);
    clampOrigin();
}

void HeatmapGeometry::clampOrigin()
{
    const double visibleCols = m_area.width() / m_cellWidth, visibleRows = m_area.height() / m_cellHeight;
    m_origin.setX(std::clamp(m_origin.x(), 0.0, std::max(0.0, m_cols - visibleCols)));
    m_origin.setY(std::clamp(m_origin.y(), 0.0, std::max(0.0, m_rows - visibleRows)));
}

void HeatmapGeometry::visibleRange(int& row0, int& row1, int& col0, int& col1) const
{
    row0 = std::clamp(int(std::floor(m_origin.y())), 0, m_rows);
    col0 = std::clamp(int(std::floor(m_origin.x())), 0, m_cols);
    row1 = std::clamp(int(std::ceil(m_origin.y() + m_area.height() / m_cellHeight)), row0, m_rows);
    col1 = std::clamp(int(std::ceil(m_origin.x() + m_area.width() / m_cellWidth)), col0, m_cols);
}

} // namespace attnscope
