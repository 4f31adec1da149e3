#include "render/heatmapgeometry.h"

#include <algorithm>
#include <cmath>

namespace attnscope {

double HeatmapGeometry::Axis::offset(double u) const
{
    // Outside the matrix the mapping continues at the ordinary size (zooming about a point past the edge).
    if (u <= 0) return u * base;
    if (u > n) return offset(n) + (u - n) * base;
    double px = u * base;
    const double e = extra();
    if (e <= 0) return px;
    const int whole = int(std::floor(u));
    for (int w : wide) {
        if (w < whole)
            px += e;
        else if (w == whole)
            px += (u - whole) * e;
        else
            break;
    }
    return px;
}

double HeatmapGeometry::Axis::coordinate(double px) const
{
    const double e = extra();
    if (e <= 0) return px / base;
    // Walk the wide cells: before each one the mapping is linear with slope base.
    double start = 0; // cell coordinate of the current linear piece
    double startPx = 0;
    for (int w : wide) {
        const double wideStartPx = startPx + (w - start) * base;
        if (px < wideStartPx) return start + (px - startPx) / base;
        const double wideEndPx = wideStartPx + base + e;
        if (px < wideEndPx) return w + (px - wideStartPx) / (base + e);
        start = w + 1;
        startPx = wideEndPx;
    }
    return start + (px - startPx) / base;
}

double HeatmapGeometry::Axis::fitBase(double available) const
{
    if (n <= 0) return 1;
    const double uniform = available / n;
    const int count = int(wide.size());
    if (uniform >= minimum || count == 0 || count >= n) return uniform;
    // The wide cells take `minimum` each, the others share the rest.
    return std::max(1e-3, (available - count * minimum) / (n - count));
}

HeatmapGeometry::HeatmapGeometry(QRectF area, int rows, int cols) : m_area(area), m_rows(rows), m_cols(cols)
{
    m_x.n = cols;
    m_y.n = rows;
    fit();
}

HeatmapGeometry::HeatmapGeometry(QRectF area, int rows, int cols, std::vector<int> wideRows,
                                 std::vector<int> wideCols, double wideMinimum)
    : m_area(area), m_rows(rows), m_cols(cols)
{
    m_x.n = cols;
    m_y.n = rows;
    auto keep = [](std::vector<int> indices, int n) {
        indices.erase(std::remove_if(indices.begin(), indices.end(), [n](int i) { return i < 0 || i >= n; }),
                      indices.end());
        std::sort(indices.begin(), indices.end());
        indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
        return indices;
    };
    m_x.wide = keep(std::move(wideCols), cols);
    m_y.wide = keep(std::move(wideRows), rows);
    // When more than a quarter of the cells (or more than kMaxWideCells) would be wide, none is: the rest
    // would be squeezed to nothing, and the painter draws the cell image in pieces split at each one.
    for (Axis* axis : {&m_x, &m_y})
        if (int(axis->wide.size()) * 4 > axis->n || int(axis->wide.size()) > kMaxWideCells)
            axis->wide.clear();
    m_x.minimum = m_y.minimum = std::max(0.0, wideMinimum);
    fit();
}

double HeatmapGeometry::fitSize() const
{
    const double fitted = std::min(m_x.fitBase(m_area.width()), m_y.fitBase(m_area.height()));
    return m_maximumCell > 0 ? std::min(fitted, m_maximumCell) : fitted;
}

void HeatmapGeometry::fit()
{
    m_origin = QPointF(0, 0);
    if (m_rows <= 0 || m_cols <= 0 || m_area.isEmpty()) return;
    if (m_stretch) {
        m_x.base = m_x.fitBase(m_area.width());
        m_y.base = m_y.fitBase(m_area.height());
        return;
    }
    m_x.base = m_y.base = fitSize();
}

void HeatmapGeometry::setStretch(bool stretch)
{
    m_stretch = stretch;
    fit();
}

void HeatmapGeometry::setMaximumCellSize(double pixels)
{
    m_maximumCell = std::max(0.0, pixels);
    fit();
}

void HeatmapGeometry::setView(QPointF origin, double cellWidth, double cellHeight)
{
    if (cellWidth <= 0 || cellHeight <= 0) return;
    m_x.base = cellWidth;
    m_y.base = cellHeight;
    m_origin = origin;
    clampOrigin();
}

bool HeatmapGeometry::isFitted() const
{
    if (m_rows <= 0 || m_cols <= 0) return true;
    const double expected = m_stretch ? m_x.fitBase(m_area.width()) : fitSize();
    return std::abs(m_x.base - expected) < 1e-9 && m_origin.isNull();
}

QRectF HeatmapGeometry::cellRect(int row, int col) const
{
    const double x0 = m_x.offset(m_origin.x());
    const double y0 = m_y.offset(m_origin.y());
    const double left = m_x.offset(col), right = m_x.offset(col + 1);
    const double top = m_y.offset(row), bottom = m_y.offset(row + 1);
    return QRectF(m_area.left() + left - x0, m_area.top() + top - y0, right - left, bottom - top);
}

QPointF HeatmapGeometry::toCell(QPointF pixel) const
{
    return QPointF(m_x.coordinate(m_x.offset(m_origin.x()) + pixel.x() - m_area.left()),
                   m_y.coordinate(m_y.offset(m_origin.y()) + pixel.y() - m_area.top()));
}

std::optional<std::pair<int, int>> HeatmapGeometry::cellAt(QPointF pixel) const
{
    if (!m_area.contains(pixel)) return std::nullopt;
    const QPointF cell = toCell(pixel);
    const int row = int(std::floor(cell.y())), col = int(std::floor(cell.x()));
    if (row < 0 || row >= m_rows || col < 0 || col >= m_cols) return std::nullopt;
    return std::make_pair(row, col);
}

void HeatmapGeometry::zoomAt(QPointF pixel, double factor)
{
    if (factor <= 0) return;
    const QPointF anchor = toCell(pixel);
    const double smallestX = m_stretch ? m_x.fitBase(m_area.width()) : fitSize();
    const double smallestY = m_stretch ? m_y.fitBase(m_area.height()) : fitSize();
    // Never zoom out beyond fitting the whole matrix, nor in beyond a cell of 4x the view.
    const double largest = std::max({smallestX, smallestY, std::min(m_area.width(), m_area.height()) / 4.0});
    m_x.base = std::clamp(m_x.base * factor, smallestX, largest);
    m_y.base = std::clamp(m_y.base * factor, smallestY, largest);
    // Keep the anchor under the pixel: the origin is where the anchor's offset minus the pixel distance
    // lands.
    m_origin = QPointF(m_x.coordinate(m_x.offset(anchor.x()) - (pixel.x() - m_area.left())),
                       m_y.coordinate(m_y.offset(anchor.y()) - (pixel.y() - m_area.top())));
}

void HeatmapGeometry::panBy(QPointF pixelDelta)
{
    m_origin = QPointF(m_x.coordinate(std::max(0.0, m_x.offset(m_origin.x()) - pixelDelta.x())),
                       m_y.coordinate(std::max(0.0, m_y.offset(m_origin.y()) - pixelDelta.y())));
    clampOrigin();
}

void HeatmapGeometry::clampOrigin()
{
    // The last origin that still fills the area: its offset is the matrix extent minus the area.
    const double maxX = m_x.coordinate(std::max(0.0, m_x.offset(m_cols) - m_area.width()));
    const double maxY = m_y.coordinate(std::max(0.0, m_y.offset(m_rows) - m_area.height()));
    m_origin.setX(std::clamp(m_origin.x(), 0.0, std::max(0.0, maxX)));
    m_origin.setY(std::clamp(m_origin.y(), 0.0, std::max(0.0, maxY)));
}

void HeatmapGeometry::visibleRange(int& row0, int& row1, int& col0, int& col1) const
{
    const QPointF end = toCell(m_area.bottomRight());
    row0 = std::clamp(int(std::floor(m_origin.y())), 0, m_rows);
    col0 = std::clamp(int(std::floor(m_origin.x())), 0, m_cols);
    row1 = std::clamp(int(std::ceil(end.y() - 1e-9)), row0, m_rows);
    col1 = std::clamp(int(std::ceil(end.x() - 1e-9)), col0, m_cols);
}

} // namespace attnscope
