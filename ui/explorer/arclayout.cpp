#include "explorer/arclayout.h"

#include <algorithm>
#include <array>

namespace attnscope {

ArcLayout::ArcLayout(QRectF area, int tokens, double labelWidth, const std::vector<std::vector<float>>& matrices,
                     double minWeight, double maxLineWidth)
    : m_area(area), m_tokens(std::max(0, tokens)), m_labelWidth(labelWidth),
      m_rowHeight(m_tokens > 0 ? area.height() / m_tokens : 0)
{
    const double leftX = area.left() + labelWidth + 4, rightX = area.right() - labelWidth - 4;
    for (size_t h = 0; h < matrices.size(); ++h) {
        const auto& m = matrices[h];
        if (m.size() != size_t(m_tokens) * size_t(m_tokens))
            continue;
        for (int q = 0; q < m_tokens; ++q)
            for (int k = 0; k < m_tokens; ++k) {
                const float w = m[size_t(q) * size_t(m_tokens) + size_t(k)];
                if (w < minWeight)
                    continue;
                Line line;
                line.head = int(h);
                line.query = q;
                line.key = k;
                line.weight = w;
                line.line = QLineF(leftX, tokenRect(Side::Query, q).center().y(), rightX, tokenRect(Side::Key, k).center().y());
                line.width = std::max(0.5, maxLineWidth * double(w));
                m_lines.push_back(line);
            }
    }
}

QRectF ArcLayout::tokenRect(Side side, int index) const
{
    const double x = side == Side::Query ? m_area.left() : m_area.right() - m_labelWidth;
    return QRectF(x, m_area.top() + index * m_rowHeight, m_labelWidth, m_rowHeight);
}

std::optional<ArcLayout::TokenHit> ArcLayout::tokenAt(QPointF point) const
{
    if (m_rowHeight <= 0)
        return std::nullopt;
    const int index = int((point.y() - m_area.top()) / m_rowHeight);
    if (point.y() < m_area.top() || index < 0 || index >= m_tokens)
        return std::nullopt;
    if (tokenRect(Side::Query, index).contains(point))
        return TokenHit{Side::Query, index};
    if (tokenRect(Side::Key, index).contains(point))
        return TokenHit{Side::Key, index};
    return std::nullopt;
}

std::vector<ArcLayout::Line> ArcLayout::lines(const std::optional<TokenHit>& filter) const
{
    if (!filter)
        return m_lines;
    std::vector<Line> out;
    for (const Line& line : m_lines)
        if ((filter->side == Side::Query && line.query == filter->index) ||
            (filter->side == Side::Key && line.key == filter->index))
            out.push_back(line);
    return out;
}

QColor ArcLayout::headColor(int head)
{
    // Okabe–Ito colours: distinguishable for colour-blind readers.
    static const std::array<QColor, 8> colors{QColor(0, 114, 178),  QColor(213, 94, 0),   QColor(0, 158, 115),
                                              QColor(204, 121, 167), QColor(230, 159, 0), QColor(86, 180, 233),
                                              QColor(240, 228, 66),  QColor(0, 0, 0)};
    return colors[size_t(head) % colors.size()];
}

} // namespace attnscope
