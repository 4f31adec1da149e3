#include "explorer/arcwidget.h"

#include "attention/attentionmaps.h"
#include "render/axislabels.h"

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPaintDevice>
#include <QPainter>
#include <QSpinBox>
#include <algorithm>

namespace attnscope {

namespace {
constexpr double kLegendHeight = 22;
} // namespace

ArcWidget::ArcWidget(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumSize(300, 200);
    m_windowBox = new QSpinBox(this);
    m_windowBox->setObjectName(QStringLiteral("arcWindowStart"));
    m_windowBox->hide();
    connect(m_windowBox, qOverload<int>(&QSpinBox::valueChanged), this,
            [this](int oneBased) { setWindowStart(oneBased - 1); });
    retranslate();
}

void ArcWidget::retranslate()
{
    m_windowBox->setPrefix(tr("from token "));
    m_windowBox->setToolTip(
        tr("The arcs show %1 consecutive tokens of a long input: choose where the window starts")
            .arg(kMaxTokens));
}

void ArcWidget::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

int ArcWidget::totalTokens() const
{
    return m_result && m_result->run.maps ? m_result->run.maps->queries() : 0;
}

void ArcWidget::setWindowStart(int first)
{
    const int clamped = std::clamp(first, 0, std::max(0, totalTokens() - kMaxTokens));
    if (clamped == m_first && m_windowBox->value() == clamped + 1) return;
    m_first = clamped;
    updateWindowBox();
    m_hover.reset();
    rebuild();
}

void ArcWidget::updateWindowBox()
{
    const int total = totalTokens();
    const QSignalBlocker blocker(m_windowBox);
    m_windowBox->setRange(1, std::max(1, total - kMaxTokens + 1));
    m_windowBox->setValue(m_first + 1);
    m_windowBox->setVisible(total > kMaxTokens);
    m_windowBox->adjustSize();
    m_windowBox->move(width() - m_windowBox->width() - 8, 2);
}

QString ArcWidget::windowNote() const
{
    const int total = totalTokens();
    if (total <= kMaxTokens) return {};
    return tr("tokens %1–%2 of %3").arg(m_first + 1).arg(m_first + shownTokens()).arg(total);
}

void ArcWidget::setResult(std::shared_ptr<const ExplorerResult> result)
{
    m_result = std::move(result);
    if (m_result && m_heads.empty()) m_heads = {{0, 0}};
    m_first = std::clamp(m_first, 0, std::max(0, totalTokens() - kMaxTokens));
    updateWindowBox();
    rebuild();
}

void ArcWidget::setHeads(std::vector<std::pair<int, int>> heads)
{
    m_heads = std::move(heads);
    rebuild();
}

int ArcWidget::shownTokens() const
{
    return std::min(kMaxTokens, totalTokens() - m_first);
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
                matrices.push_back(
                    m_result->run.maps->tile(layer, head, m_first, m_first + n, m_first, m_first + n));
    return matrices;
}

void ArcWidget::paintView(QPainter& painter, const QRectF& area) const
{
    const std::optional<ArcLayout> layout = pageLayout(area);
    paintWith(painter, area, layout ? &*layout : nullptr, std::nullopt);
}

std::optional<ArcLayout> ArcWidget::pageLayout(const QRectF& area) const
{
    // A hidden widget has not fetched its tiles yet (they are fetched when shown).
    if (!m_result || !m_result->run.maps) return std::nullopt;
    return ArcLayout(arcArea(area), shownTokens(), kLabelWidth,
                     m_dirty || !m_layout ? fetchMatrices() : m_matrices);
}

AxisLabelPlan ArcWidget::labelPlan(const ArcLayout& layout, const QPaintDevice* device,
                                   const QFont& font) const
{
    // Token labels as the heatmap writes them: every one while they fit, the font shrinking to its
    // minimum first, then every k-th with the special tokens kept (render/axislabels.h).
    const double dpi = device ? device->logicalDpiY() : 96.0;
    QFont unitFont = font;
    unitFont.setPointSizeF(100 * 72.0 / dpi);
    const QFontMetricsF unit(unitFont, const_cast<QPaintDevice*>(device));
    AxisLabelRequest request;
    request.first = m_first; // labels are planned by their index in the whole input
    for (int i = 0; i < shownTokens(); ++i)
        request.centers.push_back(layout.tokenRect(ArcLayout::Side::Query, i).center().y());
    if (m_result) request.special = m_result->run.roles.special;
    request.preferredPixelSize = font.pointSizeF() * dpi / 72.0;
    request.minimumPixelSize = std::min(request.preferredPixelSize, kMinimumLabelPixelSize);
    request.lineHeightPerPixel = (unit.ascent() + unit.descent()) / 100.0;
    return planAxisLabels(request);
}

void ArcWidget::resizeEvent(QResizeEvent*)
{
    m_windowBox->move(width() - m_windowBox->width() - 8, 2);
    rebuild();
}

void ArcWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    paintWith(painter, rect(), m_layout ? &*m_layout : nullptr, m_hover,
              m_windowBox->isVisible() ? m_windowBox->width() + 12 : 0);
}

void ArcWidget::paintWith(QPainter& painter, const QRectF& area, const ArcLayout* layout,
                          const std::optional<ArcLayout::TokenHit>& hover, double reserveRight) const
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
    const QFontMetricsF legendMetrics(painter.font(), painter.device());
    for (size_t h = 0; h < m_heads.size(); ++h) {
        painter.fillRect(QRectF(x, top + 10, 14, 10), ArcLayout::headColor(int(h)));
        painter.setPen(Qt::black);
        const QString text = tr("L%1 H%2").arg(m_heads[h].first).arg(m_heads[h].second);
        const double width = legendMetrics.horizontalAdvance(text) + 1;
        painter.drawText(QRectF(x + 18, top + 15 - legendMetrics.height() / 2, width, legendMetrics.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, text);
        x += 30 + width;
    }
    if (const QString note = windowNote(); !note.isEmpty()) {
        const double room = std::max(0.0, area.right() - x - 14 - reserveRight);
        const QString shown = legendMetrics.elidedText(note, Qt::ElideRight, room);
        painter.drawText(QRectF(x + 10, top + 15 - legendMetrics.height() / 2,
                                legendMetrics.horizontalAdvance(shown) + 1, legendMetrics.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, shown);
    }
    for (const ArcLayout::Line& line : layout->lines(hover)) {
        QColor color = ArcLayout::headColor(line.head);
        color.setAlphaF(std::clamp(0.25 + 0.75 * double(line.weight), 0.0, 1.0));
        painter.setPen(QPen(color, line.width, Qt::SolidLine, Qt::RoundCap));
        painter.drawLine(line.line);
    }
    const double dpi = painter.device() ? painter.device()->logicalDpiY() : 96.0;
    const AxisLabelPlan plan = labelPlan(*layout, painter.device(), painter.font());
    QFont labelFont = painter.font();
    labelFont.setPointSizeF(plan.pixelSize * 72.0 / dpi);
    painter.setFont(labelFont);
    const QFontMetricsF metrics(labelFont, painter.device());
    for (int token : plan.shown) { // indices in the whole input; the layout counts from the window's start
        const int i = token - m_first;
        const bool special = m_result->run.roles.isSpecial(token);
        for (auto side : {ArcLayout::Side::Query, ArcLayout::Side::Key}) {
            const QRectF r = layout->tokenRect(side, i);
            const bool hovered = hover && hover->side == side && hover->index == i;
            if (hovered) painter.fillRect(r, QColor(255, 230, 200));
            painter.setPen(special ? QColor(180, 40, 40) : QColor(Qt::black));
            const QString text =
                metrics.elidedText(m_result->run.labels.value(token), Qt::ElideRight, r.width());
            const double width = std::min(r.width(), metrics.horizontalAdvance(text) + 1);
            const QRectF box(side == ArcLayout::Side::Query ? r.right() - width : r.left(),
                             r.center().y() - metrics.height() / 2, width, metrics.height());
            painter.drawText(
                box, (side == ArcLayout::Side::Query ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter,
                text);
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
