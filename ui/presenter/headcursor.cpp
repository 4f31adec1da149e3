#include "presenter/headcursor.h"

#include <algorithm>

namespace attnscope {

namespace {
int wrap(int value, int count)
{
    return count > 0 ? ((value % count) + count) % count : 0;
}
} // namespace

HeadCursor::HeadCursor(int layers, int heads, int layer, int head) : m_layers(std::max(0, layers)), m_heads(std::max(0, heads))
{
    set(layer, head);
}

void HeadCursor::set(int layer, int head)
{
    m_layer = std::clamp(layer, 0, std::max(0, m_layers - 1));
    m_head = std::clamp(head, 0, std::max(0, m_heads - 1));
}

void HeadCursor::stepHead(int delta)
{
    if (!isValid())
        return;
    const int index = wrap(m_layer * m_heads + m_head + delta, m_layers * m_heads);
    m_layer = index / m_heads;
    m_head = index % m_heads;
}

void HeadCursor::stepLayer(int delta)
{
    if (!isValid())
        return;
    m_layer = wrap(m_layer + delta, m_layers);
}

} // namespace attnscope
