#pragma once

#include <QColor>
#include <QLineF>
#include <QRectF>

#include <optional>
#include <vector>

namespace attnscope {

// bertviz-style arcs: query tokens in a left column, key tokens in a right column, one line per
// (head, query, key) whose weight reaches minWeight, thickness proportional to the weight, one colour per
// head. Hovering a token keeps only its lines. Plain geometry, tested without a window.
class ArcLayout
{
public:
    struct Line
    {
        int head = 0; // index into the selected heads
        int query = 0, key = 0;
        float weight = 0;
        QLineF line;
        double width = 0;
    };
    enum class Side { Query, Key };
    struct TokenHit
    {
        Side side;
        int index;
    };

    // matrices[h] is row-major tokens × tokens for selected head h.
    ArcLayout(QRectF area, int tokens, double labelWidth, const std::vector<std::vector<float>>& matrices,
              double minWeight = 0.02, double maxLineWidth = 6.0);

    QRectF tokenRect(Side side, int index) const;
    std::optional<TokenHit> tokenAt(QPointF point) const;
    // All lines, or only those touching the hovered token.
    std::vector<Line> lines(const std::optional<TokenHit>& filter = std::nullopt) const;
    static QColor headColor(int head);

private:
    QRectF m_area;
    int m_tokens;
    double m_labelWidth, m_rowHeight;
    std::vector<Line> m_lines;
};

} // namespace attnscope
