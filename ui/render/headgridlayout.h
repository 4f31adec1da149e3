#pragma once

#include <QRectF>
#include <QSizeF>
#include <optional>
#include <utility>
#include <vector>

namespace attnscope {

// Where the layer × head thumbnails sit: one row per layer, one square slot per head, a label column on
// the left and a header row on top. Slots hold heads in an order (sorted by a metric or natural), so the
// same head can move; selection moves by slot with the arrow keys. Plain data: tested without a window.
class HeadGridLayout
{
public:
    HeadGridLayout() = default;
    // Thumbnails fill `area` but never go under `minimumSlot` (px): then the grid runs past the area's
    // right and bottom edges (the caller scrolls; see minimumArea).
    HeadGridLayout(int layers, int heads, QRectF area, double labelWidth = 34, double headerHeight = 16,
                   double minimumSlot = 4);
    // The area a grid needs for thumbnails of `minimumSlot`: label column, header row and every slot.
    static QSizeF minimumArea(int layers, int heads, double minimumSlot, double labelWidth = 34,
                              double headerHeight = 16);

    int layers() const { return m_layers; }
    int heads() const { return m_heads; }
    double slotSize() const { return m_slot; }
    QRectF thumbnailRect(int layer, int slot) const;
    // The layer labels' column follows the visible part's left edge (x, in the same coordinates as the
    // area) when the grid is scrolled sideways, so every row keeps its "L3": a sticky row header drawn
    // over the thumbnails that pass under it. Never left of the area.
    void setVisibleLeft(double x) { m_visibleLeft = x; }
    QRectF labelColumnRect() const; // the whole column, header row to last layer
    QRectF layerLabelRect(int layer) const;
    // (layer, slot) of the thumbnail under point; none under the label column (it covers thumbnails).
    std::optional<std::pair<int, int>> slotAt(QPointF point) const;

    // order[layer][slot] = head. Default: identity.
    void setOrder(std::vector<std::vector<int>> order);
    int headAt(int layer, int slot) const;
    int slotOf(int layer, int head) const;

    enum class Move { Left, Right, Up, Down };
    // The head selected after moving from (layer, head); stays inside the grid.
    std::pair<int, int> moved(int layer, int head, Move move) const;

private:
    int m_layers = 0, m_heads = 0;
    QRectF m_area;
    double m_labelWidth = 0, m_headerHeight = 0, m_slot = 0, m_spacing = 0;
    double m_visibleLeft = 0;
    std::vector<std::vector<int>> m_order;
};

} // namespace attnscope
