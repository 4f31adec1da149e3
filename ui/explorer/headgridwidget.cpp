#include "explorer/headgridwidget.h"

#include "explorer/headstatsmodel.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <numeric>

namespace attnscope {

HeadGridWidget::HeadGridWidget(QWidget* parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(200, 160);
}

void HeadGridWidget::setResult(std::shared_ptr<const ExplorerResult> result)
{
    m_result = std::move(result);
    m_stats = m_result ? m_result->analysis.stats : std::vector<HeadStats>{};
    if (m_result) {
        m_layer = std::clamp(m_layer, 0, std::max(0, m_result->analysis.layers - 1));
        m_head = std::clamp(m_head, 0, std::max(0, m_result->analysis.heads - 1));
    }
    rebuildImages();
    relayout();
    update();
}

void HeadGridWidget::setStats(const std::vector<HeadStats>& stats)
{
    if (stats.size() != m_stats.size())
        return;
    m_stats = stats;
    relayout();
    update();
}

void HeadGridWidget::setColorMap(ColorMapKind kind)
{
    m_colorMap = kind;
    rebuildImages();
    update();
}

void HeadGridWidget::setSortMetric(std::optional<HeadMetric> metric)
{
    m_sortMetric = metric;
    relayout();
    update();
}

void HeadGridWidget::setColorMetric(std::optional<HeadMetric> metric)
{
    m_colorMetric = metric;
    update();
}

void HeadGridWidget::select(int layer, int head)
{
    m_layer = layer;
    m_head = head;
    update();
}

void HeadGridWidget::rebuildImages()
{
    m_images.clear();
    if (!m_result)
        return;
    const bool causal = m_result->run.roles.causal;
    for (const AttentionOverview& overview : m_result->analysis.overviews) {
        QImage image(overview.cols(), overview.rows(), QImage::Format_RGB32);
        for (int r = 0; r < overview.rows(); ++r) {
            auto* line = reinterpret_cast<QRgb*>(image.scanLine(r));
            for (int c = 0; c < overview.cols(); ++c) {
                const bool masked = causal && overview.firstKey(c) > overview.firstQuery(r + 1) - 1;
                line[c] = masked ? qRgb(236, 236, 236)
                                 : colorMapColor(m_colorMap, overview.values()[size_t(r * overview.cols() + c)]);
            }
        }
        m_images.push_back(image);
    }
}

void HeadGridWidget::relayout()
{
    const int layers = m_result ? m_result->analysis.layers : 0, heads = m_result ? m_result->analysis.heads : 0;
    m_layout = HeadGridLayout(layers, heads, QRectF(rect()).adjusted(4, 4, -4, -4));
    if (m_sortMetric && m_stats.size() == size_t(layers) * size_t(heads)) {
        std::vector<std::vector<int>> order(static_cast<size_t>(layers));
        for (int l = 0; l < layers; ++l) {
            order[size_t(l)].resize(size_t(heads));
            std::iota(order[size_t(l)].begin(), order[size_t(l)].end(), 0);
            std::stable_sort(order[size_t(l)].begin(), order[size_t(l)].end(), [&](int a, int b) {
                return headMetricValue(m_stats[size_t(l * heads + a)], *m_sortMetric) >
                       headMetricValue(m_stats[size_t(l * heads + b)], *m_sortMetric);
            });
        }
        m_layout.setOrder(std::move(order));
    }
}

void HeadGridWidget::resizeEvent(QResizeEvent*)
{
    relayout();
}

void HeadGridWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    if (!m_result) {
        painter.drawText(rect(), Qt::AlignCenter, tr("No result yet"));
        return;
    }
    const int layers = m_layout.layers(), heads = m_layout.heads();
    double lo = 0, hi = 1;
    if (m_colorMetric && !m_stats.empty()) {
        lo = hi = headMetricValue(m_stats.front(), *m_colorMetric);
        for (const HeadStats& s : m_stats) {
            lo = std::min(lo, headMetricValue(s, *m_colorMetric));
            hi = std::max(hi, headMetricValue(s, *m_colorMetric));
        }
    }
    QFont small = font();
    small.setPointSizeF(std::max(6.0, std::min(9.0, m_layout.slotSize() / 6)));
    painter.setFont(small);
    painter.setPen(palette().text().color());
    if (!m_sortMetric)
        for (int h = 0; h < heads; ++h) {
            const QRectF t = m_layout.thumbnailRect(0, h);
            painter.drawText(QRectF(t.left(), 4, t.width(), 14), Qt::AlignCenter, tr("H%1").arg(h));
        }
    for (int l = 0; l < layers; ++l) {
        painter.setPen(palette().text().color());
        painter.drawText(m_layout.layerLabelRect(l), Qt::AlignRight | Qt::AlignVCenter, tr("L%1").arg(l));
        for (int slot = 0; slot < heads; ++slot) {
            const int h = m_layout.headAt(l, slot);
            const size_t index = size_t(l * heads + h);
            const QRectF t = m_layout.thumbnailRect(l, slot);
            if (index < m_images.size())
                painter.drawImage(t, m_images[index]);
            if (m_colorMetric && index < m_stats.size()) {
                const double v = headMetricValue(m_stats[index], *m_colorMetric);
                const double x = hi > lo ? (v - lo) / (hi - lo) : 0.0;
                painter.fillRect(QRectF(t.left(), t.bottom() - t.height() * 0.12, t.width(), t.height() * 0.12),
                                 QColor::fromRgb(colorMapColor(ColorMapKind::Magma, 0.15 + 0.85 * x)));
            }
            if (m_layout.slotSize() >= 44 && index < m_stats.size()) {
                painter.setPen(Qt::white);
                const QString caption = m_sortMetric ? tr("H%1 %2").arg(h).arg(headLabelDisplayName(m_stats[index].label))
                                                     : headLabelDisplayName(m_stats[index].label);
                painter.drawText(t.adjusted(2, 1, -2, -1), Qt::AlignLeft | Qt::AlignTop, caption);
            }
            if (l == m_layer && h == m_head) {
                painter.setPen(QPen(hasFocus() ? QColor(255, 80, 0) : QColor(200, 120, 60), 2.5));
                painter.setBrush(Qt::NoBrush);
                painter.drawRect(t.adjusted(-1.5, -1.5, 1.5, 1.5));
            }
        }
    }
}

void HeadGridWidget::mousePressEvent(QMouseEvent* event)
{
    const auto slot = m_layout.slotAt(event->position());
    if (!slot)
        return;
    m_layer = slot->first;
    m_head = m_layout.headAt(slot->first, slot->second);
    update();
    Q_EMIT headActivated(m_layer, m_head);
}

void HeadGridWidget::keyPressEvent(QKeyEvent* event)
{
    std::optional<HeadGridLayout::Move> move;
    switch (event->key()) {
    case Qt::Key_Left:
        move = HeadGridLayout::Move::Left;
        break;
    case Qt::Key_Right:
        move = HeadGridLayout::Move::Right;
        break;
    case Qt::Key_Up:
        move = HeadGridLayout::Move::Up;
        break;
    case Qt::Key_Down:
        move = HeadGridLayout::Move::Down;
        break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        Q_EMIT headActivated(m_layer, m_head);
        return;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    const auto [layer, head] = m_layout.moved(m_layer, m_head, *move);
    if (head < 0)
        return;
    m_layer = layer;
    m_head = head;
    update();
    Q_EMIT headActivated(m_layer, m_head);
}

} // namespace attnscope
