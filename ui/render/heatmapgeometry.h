#pragma once

#include <QPointF>
#include <QRectF>
#include <optional>
#include <vector>

namespace attnscope {

// Where the cells of a rows×cols matrix sit in a rectangle, with zoom and pan: the mapping between
// cells and pixels that the widget, the exporter and the tests share. The view shows the matrix region
// starting at (originCol, originRow) in cell units, with cellSize pixels per ordinary cell.
//
// "Wide" cells (special tokens: [CLS], [SEP], the first token) keep at least wideMinimum pixels however
// far the view zooms out, so a sink or no-op column stays visible at 2,048 tokens; the other cells share
// what is left. Positions along each axis are then piecewise linear in the cell coordinate.
class HeatmapGeometry
{
public:
    HeatmapGeometry() = default;
    HeatmapGeometry(QRectF area, int rows, int cols);
    // wideRows / wideCols: ascending indices of cells that keep at least wideMinimum pixels.
    HeatmapGeometry(QRectF area, int rows, int cols, std::vector<int> wideRows, std::vector<int> wideCols,
                    double wideMinimum);

    QRectF area() const { return m_area; }
    int rows() const { return m_rows; }
    int cols() const { return m_cols; }
    double cellWidth() const { return m_x.base; } // an ordinary cell's size
    double cellHeight() const { return m_y.base; }
    QPointF origin() const { return m_origin; } // top-left visible point, in cell units (x = col, y = row)
    double wideMinimum() const { return m_x.minimum; }
    static constexpr int kMaxWideCells = 16;
    // The cells that keep wideMinimum (empty when the ordinary cells are that large anyway or too many
    // cells were asked to be wide).
    const std::vector<int>& wideRows() const { return m_y.wide; }
    const std::vector<int>& wideCols() const { return m_x.wide; }
    bool hasWideCells() const { return m_x.extra() > 0 || m_y.extra() > 0; }
    // Pixels the whole matrix takes at the current zoom (all cells, visible or not).
    double matrixWidth() const { return m_x.offset(m_cols); }
    double matrixHeight() const { return m_y.offset(m_rows); }

    void fit(); // whole matrix visible, square ordinary cells when possible (else stretched, see below)
    // Cells fill the area in both directions instead of staying square (presenter mode: a wide screen).
    void setStretch(bool stretch);
    // The largest ordinary cell a fit gives (pixels; 0: no limit, as large as the area allows). Comparison
    // panes fit their cells to the smallest pane's, so that heads are compared at one cell size.
    // Stretched cells ignore it.
    void setMaximumCellSize(double pixels);
    double maximumCellSize() const { return m_maximumCell; }
    // The largest label font the layout made room for (pixels); 0: no limit. The painter never draws
    // labels larger, so they are not cut by the room left of and above the cells.
    void setLabelPixelLimit(double pixels) { m_labelPixelLimit = pixels; }
    double labelPixelLimit() const { return m_labelPixelLimit; }
    // Label lanes the layout made room for beside and above the cells (1, or 2 for staggered labels).
    void setLabelLanes(int lanes) { m_labelLanes = lanes; }
    int labelLanes() const { return m_labelLanes; }
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
    // One axis: n cells of `base` pixels, the `wide` ones at least `minimum`.
    struct Axis
    {
        int n = 0;
        double base = 1;
        double minimum = 0;
        std::vector<int> wide;

        double extra() const { return minimum > base ? minimum - base : 0.0; }
        double offset(double u) const;      // pixels from the matrix start to cell coordinate u
        double coordinate(double px) const; // the inverse
        double fitBase(double available) const;
    };
    void clampOrigin();
    double fitSize() const;
    QRectF m_area;
    int m_rows = 0, m_cols = 0;
    Axis m_x, m_y;
    QPointF m_origin;
    bool m_stretch = false;
    double m_maximumCell = 0;
    double m_labelPixelLimit = 0;
    int m_labelLanes = 1;
};

} // namespace attnscope
