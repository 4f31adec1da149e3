#include "explorer/arcwidget.h"

#include "attention/attentionmaps.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

namespace attnscope {

namespace {
constexpr double kLegendHeight = 22;
} // namespace

ArcWidget::ArcWidget(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumSize(300, 200);
}

void ArcWidget::setResult(std::shared_ptr<const ExplorerResult> result)
{
    m_result = std::move(result);
    if (m_result && m_heads.empty()) m_heads = {{0, 0}};
    rebuild();
}

void ArcWidget::setHeads(std::vector<std::pair<int, int>> heads)
{
    m_heads = std::move(heads);
    rebuild();
}

int ArcWidget::shownTokens() const
{
    return m_result && m_result->run.maps ? std::min(kMaxTokens, m_result->run.maps->queries()) : 0;
}

void ArcWidget::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_dirty) rebuild();
}

void ArcWidget::rebuild()
{
    if (!isVisible()) {
        m_dirty = true;
        return;
    }
    m_dirty = false;
    m_matrices = fetchMatrices();
    m_layout.emplace(arcArea(rect()), shownTokens(), kLabelWidth, m_matrices);
    update();
}

QRectF ArcWidget::arcArea(const QRectF& area)
{
    return area.adjusted(8, 8 + kLegendHeight, -8, -8);
}

std::vector<std::vector<float>> ArcWidget::fetchMatrices() const
{
    std::vector<std::vector<float>> matrices;
    const int n = shownTokens();
    if (m_result && m_result->run.maps)
        for (const auto& [layer, head] : m_heads)
            if (layer < m_result->run.maps->layers() && head < m_result->run.maps->heads())
                matrices.push_back(m_result->run.maps->tile(layer, head, 0, n, 0, n));
    return matrices;
}

void ArcWidget::paintView(QPainter& painter, const QRectF& area) const
{
    // A hidden widget has not fetched its tiles yet (they are fetched when shown).
    const std::vector<std::vector<float>> matrices = m_dirty || !m_layout ? fetchMatrices() : m_matrices;
    std::optional<ArcLayout> layout;
    if (m_result && m_result->run.maps) layout.emplace(arcArea(area), shownTokens(), kLabelWidth, matrices);
    paintWith(painter, area, layout ? &*layout : nullptr, std::nullopt);
}

void ArcWidget::resizeEvent(QResizeEvent*)
{
    rebuild();
}

void ArcWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    paintWith(painter, rect(), m_layout ? &*m_layout : nullptr, m_hover);
}

void ArcWidget::paintWith(QPainter& painter, const QRectF& area, const ArcLayout* layout,
                          const std::optional<ArcLayout::TokenHit>& hover) const
{
    painter.save();
    painter.fillRect(area, Qt::white);
    painter.setRenderHint(QPainter::Antialiasing);
    if (!m_result || !layout) {
        painter.drawText(area, Qt::AlignCenter, tr("No result yet"));
        painter.restore();
        return;
    }
    // Legend: one swatch per head.
    const double top = area.top();
    double x = area.left() + 8;
    for (size_t h = 0; h < m_heads.size(); ++h) {
        painter.fillRect(QRectF(x, top + 10, 14, 10), ArcLayout::headColor(int(h)));
        painter.setPen(Qt::black);
        const QString text = tr("L%1 H%2").arg(m_heads[h].first).arg(m_heads[h].second);
        painter.drawText(QPointF(x + 18, top + 20), text);
        x += 30 + painter.fontMetrics().horizontalAdvance(text);
    }
    if (m_result->run.maps->queries() > kMaxTokens)
        painter.drawText(QPointF(x + 10, top + 20),
                         tr("(first %1 of %2 tokens)").arg(kMaxTokens).arg(m_result->run.maps->queries()));
    for (const ArcLayout::Line& line : layout->lines(hover)) {
        QColor color = ArcLayout::headColor(line.head);
        color.setAlphaF(std::clamp(0.25 + 0.75 * double(line.weight), 0.0, 1.0));
        painter.setPen(QPen(color, line.width, Qt::SolidLine, Qt::RoundCap));
        painter.drawLine(line.line);
    }
    const int n = shownTokens();
    for (int i = 0; i < n; ++i) {
        const bool special = m_result->run.roles.isSpecial(i);
        for (auto side : {ArcLayout::Side::Query, ArcLayout::Side::Key}) {
            const QRectF r = layout->tokenRect(side, i);
            const bool hovered = hover && hover->side == side && hover->index == i;
            if (hovered) painter.fillRect(r, QColor(255, 230, 200));
            painter.setPen(special ? QColor(180, 40, 40) : QColor(Qt::black));
            painter.drawText(
                r, (side == ArcLayout::Side::Query ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter,
                m_result->run.labels.value(i));
        }
    }
    painter.restore();
}

void ArcWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (!m_layout) return;
    const auto hit = m_layout->tokenAt(event->position());
    const bool changed = bool(hit) != bool(m_hover) ||
                         (hit && m_hover && (hit->side != m_hover->side || hit->index != m_hover->index));
    if (changed) {
        m_hover = hit;
        update();
    }
}

void ArcWidget::leaveEvent(QEvent*)
{
    m_hover.reset();
    update();
}

} // namespace attnscope
