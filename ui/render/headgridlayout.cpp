#include "render/headgridlayout.h"

#include <algorithm>
#include <cmath>

namespace attnscope {

namespace {
// The gap between thumbnails for a pitch (slot plus gap): 8% of it, 1 to 6 px.
double spacingForPitch(double pitch)
{
    return std::clamp(pitch * 0.08, 1.0, 6.0);
}
// The same gap for a slot: the pitch is slot + gap, so 8% of the pitch is 0.08 / 0.92 of the slot.
double spacingForSlot(double slot)
{
    return std::clamp(slot * 0.08 / 0.92, 1.0, 6.0);
}
} // namespace

HeadGridLayout::HeadGridLayout(int layers, int heads, QRectF area, double labelWidth, double headerHeight,
                               double minimumSlot)
    : m_layers(std::max(0, layers)), m_heads(std::max(0, heads)), m_area(area), m_labelWidth(labelWidth),
      m_headerHeight(headerHeight)
{
    if (m_layers > 0 && m_heads > 0) {
        const double pitch =
            std::min((area.width() - labelWidth) / m_heads, (area.height() - headerHeight) / m_layers);
        m_spacing = spacingForPitch(pitch);
        m_slot = pitch - m_spacing;
        const double smallest = std::max(4.0, minimumSlot);
        if (m_slot < smallest) {
            m_slot = smallest;
            m_spacing = spacingForSlot(smallest);
        }
    }
    setOrder({});
}

QSizeF HeadGridLayout::minimumArea(int layers, int heads, double minimumSlot, double labelWidth,
                                   double headerHeight)
{
    const double slot = std::max(4.0, minimumSlot), pitch = slot + spacingForSlot(slot);
    return {labelWidth + std::max(0, heads) * pitch, headerHeight + std::max(0, layers) * pitch};
}

QRectF HeadGridLayout::thumbnailRect(int layer, int slot) const
{
    const double pitch = m_slot + m_spacing;
    return QRectF(m_area.left() + m_labelWidth + slot * pitch, m_area.top() + m_headerHeight + layer * pitch,
                  m_slot, m_slot);
}

QRectF HeadGridLayout::labelColumnRect() const
{
    const double top = m_area.top() + m_headerHeight, pitch = m_slot + m_spacing;
    return QRectF(std::max(m_area.left(), m_visibleLeft), top, m_labelWidth, m_layers * pitch);
}

QRectF HeadGridLayout::layerLabelRect(int layer) const
{
    const QRectF first = thumbnailRect(layer, 0);
    return QRectF(labelColumnRect().left(), first.top(), m_labelWidth - 4, first.height());
}

std::optional<std::pair<int, int>> HeadGridLayout::slotAt(QPointF point) const
{
    const double pitch = m_slot + m_spacing;
    if (pitch <= 0) return std::nullopt;
    const double x = point.x() - m_area.left() - m_labelWidth, y = point.y() - m_area.top() - m_headerHeight;
    const QRectF column = labelColumnRect();
    if (x < 0 || y < 0 || (point.x() >= column.left() && point.x() < column.right())) return std::nullopt;
    const int slot = int(x / pitch), layer = int(y / pitch);
    if (slot >= m_heads || layer >= m_layers || !thumbnailRect(layer, slot).contains(point))
        return std::nullopt;
    return std::make_pair(layer, slot);
}

void HeadGridLayout::setOrder(std::vector<std::vector<int>> order)
{
    if (order.size() != size_t(m_layers)) {
        order.assign(size_t(m_layers), {});
        for (auto& row : order)
            for (int h = 0; h < m_heads; ++h)
                row.push_back(h);
    }
    m_order = std::move(order);
}

int HeadGridLayout::headAt(int layer, int slot) const
{
    if (layer < 0 || layer >= m_layers || slot < 0 || slot >= m_heads) return -1;
    return m_order[size_t(layer)][size_t(slot)];
}

int HeadGridLayout::slotOf(int layer, int head) const
{
    if (layer < 0 || layer >= m_layers) return -1;
    const auto& row = m_order[size_t(layer)];
    const auto it = std::find(row.begin(), row.end(), head);
    return it == row.end() ? -1 : int(it - row.begin());
}

std::pair<int, int> HeadGridLayout::moved(int layer, int head, Move move) const
{
    if (m_layers == 0 || m_heads == 0) return {layer, head};
    int slot = std::max(0, slotOf(layer, head));
    switch (move) {
    case Move::Left:
        slot = std::max(0, slot - 1);
        break;
    case Move::Right:
        slot = std::min(m_heads - 1, slot + 1);
        break;
    case Move::Up:
        layer = std::max(0, layer - 1);
        break;
    case Move::Down:
        layer = std::min(m_layers - 1, layer + 1);
        break;
    }
    return {layer, headAt(layer, slot)};
}

} // namespace attnscope
