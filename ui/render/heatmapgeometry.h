#pragma once

#include <QPointF>
#include <QRectF>

#include <optional>

namespace attnscope {

// Where the cells of a rows×cols matrix sit in a rectangle, with zoom and pan: the mapping between
// cells and pixels that the widget, the exporter and the tests share. The view shows the matrix region
// starting at (originCol, originRow) in cell units, with cellSize pixels per cell.
class HeatmapGeometry
{
public:
    HeatmapGeometry() = default;
    HeatmapGeometry(QRectF area, int rows, int cols);

    QRectF area() const { return m_area; }
    int rows() const { return m_rows; }
    int cols() const { return m_cols; }
    double cellWidth() const { return m_cellWidth; }
    double cellHeight() const { return m_cellHeight; }
    QPointF origin() const { return m_origin; } // top-left visible point, in cell units (x = col, y = row)

    void fit(); // whole matrix visible, square cells when possible
    // Same zoom and position as another view (comparison panes), clamped to this matrix.
    void setView(QPointF origin, double cellWidth, double cellHeight);
    bool isFitted() const;
    QRectF cellRect(int row, int col) const;
    std::optional<std::pair<int, int>> cellAt(QPointF pixel) const; // (row, col), only inside area
    QPointF toCell(QPointF pixel) const; // continuous cell coordinates (x = col, y = row)
    // Multiplies the zoom by factor keeping the matrix point under `pixel` fixed on screen.
    void zoomAt(QPointF pixel, double factor);
    void panBy(QPointF pixelDelta);
    // Visible cell range [row0,row1)×[col0,col1), clamped to the matrix.
    void visibleRange(int& row0, int& row1, int& col0, int& col1) const;

private:
    void clampOrigin();
    QRectF m_area;
    int m_rows = 0, m_cols = 0;
    double m_cellWidth = 1, m_cellHeight = 1;
    QPointF m_origin;
};

} // namespace attnscope
