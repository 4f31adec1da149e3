#include "explorer/headgridwidget.h"

#include "attention/attentionmaps.h"
#include "explorer/headstatsmodel.h"
#include "render/headgriddata.h"
#include "render/headlabelframe.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace attnscope {

HeadGridWidget::HeadGridWidget(QWidget* parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(200, 160);
}

void HeadGridWidget::setResult(std::shared_ptr<const ExplorerResult> result)
{
    const bool sameShape = m_result && result && m_result->analysis.layers == result->analysis.layers &&
                           m_result->analysis.heads == result->analysis.heads;
    m_result = std::move(result);
    m_highlighted.clear();
    if (!sameShape) {
        m_effect.clear();
        m_effectCaption.clear();
    }
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
    if (stats.size() != m_stats.size()) return;
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
    relayout();
    update();
}

void HeadGridWidget::select(int layer, int head)
{
    m_layer = layer;
    m_head = head;
    update();
    Q_EMIT headSelected(layer, head);
}

void HeadGridWidget::setStale(bool stale)
{
    m_stale = stale;
    update();
}

void HeadGridWidget::setScale(HeatmapScale scale)
{
    m_scale = scale;
    rebuildImages();
    update();
}

void HeadGridWidget::setColorByLabel(bool on)
{
    m_colorByLabel = on;
    relayout();
    update();
}

void HeadGridWidget::setHighlighted(std::vector<std::pair<int, int>> heads)
{
    m_highlighted = std::move(heads);
    update();
}

void HeadGridWidget::rebuildImages()
{
    m_images.clear();
    if (!m_result) return;
    const bool causal = m_result->run.roles.causal;
    for (const PooledHeadOverview& overview : m_result->analysis.overviews) {
        // The overview as a block of the heatmap's data, so the thumbnails use the heatmap's own scale.
        HeatmapData block;
        block.rows = overview.rows();
        block.cols = overview.cols();
        block.values = overview.values();
        QImage image(overview.cols(), overview.rows(), QImage::Format_RGB32);
        for (int r = 0; r < overview.rows(); ++r) {
            auto* line = reinterpret_cast<QRgb*>(image.scanLine(r));
            for (int c = 0; c < overview.cols(); ++c) {
                const bool masked = causal && overview.firstKey(c) > overview.firstQuery(r + 1) - 1;
                line[c] = masked ? qRgb(236, 236, 236)
                                 : colorMapColor(m_colorMap, block.colorParameter(r, c, m_scale));
            }
        }
        m_images.push_back(image);
    }
}

double HeadGridWidget::legendLineHeight() const
{
    return fontMetrics().height() * 1.6 + 4;
}

double HeadGridWidget::metricLegendWidth() const
{
    if (!m_colorMetric) return 0.0;
    const QFontMetricsF metrics(font(), this);
    const QString top = *m_colorMetric == HeadMetric::Entropy ? QStringLiteral("ln n") : QStringLiteral("1");
    return metrics.horizontalAdvance(headMetricDisplayName(*m_colorMetric) + QStringLiteral(":")) + 1 + 6 +
           12 + 80 + 4 + metrics.horizontalAdvance(top) + 16;
}

std::vector<std::pair<HeadLabel, QRectF>> HeadGridWidget::labelLegendEntries() const
{
    std::vector<std::pair<HeadLabel, QRectF>> out;
    if (!m_colorByLabel) return out;
    // The labels this grid has, in a fixed order (absent labels would crowd out present ones).
    std::vector<HeadLabel> labels;
    std::vector<double> widths;
    const QFontMetricsF metrics(font(), this);
    for (HeadLabel label : {HeadLabel::Sink, HeadLabel::NoOp, HeadLabel::PreviousToken, HeadLabel::NextToken,
                            HeadLabel::Self, HeadLabel::Broad, HeadLabel::Mixed}) {
        if (std::none_of(m_stats.begin(), m_stats.end(),
                         [label](const HeadStats& s) { return s.label == label; }))
            continue;
        labels.push_back(label);
        widths.push_back(
            14 +
            metrics.horizontalAdvance(labelSymbol(label) + QLatin1Char(' ') + headLabelDisplayName(label)) +
            1);
    }
    const double lineStart = 8;
    const std::vector<LegendSlot> placed = flowLegend(widths, lineStart, lineStart + metricLegendWidth(),
                                                      std::max(1.0, width() - 2 * lineStart), 10);
    const double top = height() - legendHeight();
    for (size_t i = 0; i < placed.size(); ++i)
        out.emplace_back(labels[i], QRectF(placed[i].x, top + placed[i].line * legendLineHeight(), widths[i],
                                           metrics.height() * 1.4));
    return out;
}

double HeadGridWidget::legendHeight() const
{
    const double line = legendLineHeight();
    int lines = m_colorMetric ? 1 : 0;
    if (m_colorByLabel) {
        // The label entries flow after the metric legend, onto as many lines as they need (at least one).
        const QFontMetricsF metrics(font(), this);
        std::vector<double> widths;
        for (HeadLabel label : {HeadLabel::Sink, HeadLabel::NoOp, HeadLabel::PreviousToken,
                                HeadLabel::NextToken, HeadLabel::Self, HeadLabel::Broad, HeadLabel::Mixed})
            if (std::any_of(m_stats.begin(), m_stats.end(),
                            [label](const HeadStats& s) { return s.label == label; }))
                widths.push_back(14 +
                                 metrics.horizontalAdvance(labelSymbol(label) + QLatin1Char(' ') +
                                                           headLabelDisplayName(label)) +
                                 1);
        lines = std::max(1, legendLineCount(flowLegend(widths, 8, 8 + metricLegendWidth(),
                                                       std::max(1.0, width() - 16.0), 10)));
    }
    return lines * line + (m_effect.empty() ? 0.0 : line);
}

void HeadGridWidget::relayout()
{
    const int layers = m_result ? m_result->analysis.layers : 0,
              heads = m_result ? m_result->analysis.heads : 0;
    // Thumbnails stay large enough for every head's number (the shortest badge): a pane too small for
    // that makes the widget larger than its scroll area's view instead, which then scrolls.
    const double minimumSlot = heads > 0 ? minimumBadgedThumbnailSize(heads, font(), this) : 4.0;
    const QSizeF grid = HeadGridLayout::minimumArea(layers, heads, minimumSlot);
    const QSize minimum =
        QSize(int(std::ceil(grid.width() + 8)), int(std::ceil(grid.height() + 8 + legendHeight())))
            .expandedTo(QSize(200, 160));
    if (minimum != minimumSize()) setMinimumSize(minimum); // may resize (and so relayout) at once
    m_layout = HeadGridLayout(layers, heads, QRectF(rect()).adjusted(4, 4, -4, -4 - legendHeight()), 34, 16,
                              minimumSlot);
    m_layout.setVisibleLeft(visibleLeft());
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

double HeadGridWidget::visibleLeft() const
{
    // A scroll area moves its widget left by the scrolled amount; the 4-px margin stays visible.
    return std::max(0, -pos().x()) + 4.0;
}

void HeadGridWidget::moveEvent(QMoveEvent*)
{
    // Scrolled sideways: the layer labels move to the new visible edge. A scroll only repaints the strip
    // it exposes, so the whole view is repainted (else the old label column scrolls away with the pixels).
    m_layout.setVisibleLeft(visibleLeft());
    update();
}

QString HeadGridWidget::labelSymbol(HeadLabel label)
{
    return headLabelSymbol(label);
}

QColor HeadGridWidget::labelColor(HeadLabel label)
{
    return headLabelColor(label);
}

QString HeadGridWidget::headBadge(int layer, int head) const
{
    const size_t index = size_t(layer * m_layout.heads() + head);
    const QString symbol = index < m_stats.size() ? labelSymbol(m_stats[index].label) : QString();
    return tr("H%1").arg(head) + (symbol.isEmpty() ? QString() : QStringLiteral(" ") + symbol);
}

QString HeadGridWidget::headToolTip(int layer, int head) const
{
    const size_t index = size_t(layer * m_layout.heads() + head);
    if (index >= m_stats.size()) return {};
    const HeadStats& s = m_stats[index];
    const QLocale locale;
    QString text = tr("Layer %1, head %2: %3").arg(layer).arg(head).arg(headLabelDisplayName(s.label));
    text += QLatin1Char('\n') + tr("sink mass (first token) %1").arg(locale.toString(s.sinkMass, 'f', 3));
    if (m_result && !m_result->run.roles.sepPositions.empty())
        text += QLatin1Char('\n') + tr("[SEP] mass %1").arg(locale.toString(s.sepMass, 'f', 3));
    text +=
        QLatin1Char('\n') + tr("entropy %1 (normalised)").arg(locale.toString(s.normalizedEntropy, 'f', 3));
    if (index < m_effect.size())
        text += QLatin1Char('\n') + m_effectCaption + QStringLiteral(": ") +
                locale.toString(m_effect[index], 'g', 3);
    return text;
}

QRectF HeadGridWidget::thumbnailRectOf(int layer, int head) const
{
    return m_layout.thumbnailRect(layer, m_layout.slotOf(layer, head));
}

double HeadGridWidget::stripValue(const HeadStats& stats, HeadMetric metric) const
{
    const double value = headMetricValue(stats, metric);
    if (metric == HeadMetric::Entropy) {
        // Nats run from 0 to ln(keys): shown as the share of that maximum.
        const int keys = m_result && m_result->run.maps ? m_result->run.maps->keys() : 0;
        return keys > 1 ? std::clamp(value / std::log(double(keys)), 0.0, 1.0) : 0.0;
    }
    return std::clamp(value, 0.0, 1.0);
}

bool HeadGridWidget::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const auto slot = m_layout.slotAt(help->pos());
        if (slot && m_result) {
            QToolTip::showText(help->globalPos(),
                               headToolTip(slot->first, m_layout.headAt(slot->first, slot->second)), this);
        } else {
            QToolTip::hideText();
            event->ignore();
        }
        return true;
    }
    return QWidget::event(event);
}

void HeadGridWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    if (!m_result) {
        painter.setPen(palette().text().color());
        painter.drawText(rect(), Qt::AlignCenter, tr("No result"));
        return;
    }
    const int layers = m_layout.layers(), heads = m_layout.heads();
    QFont small = font();
    small.setPointSizeF(std::max(6.5, std::min(9.0, m_layout.slotSize() / 5)));
    painter.setFont(small);
    const QFontMetricsF metrics(small, this);
    painter.setPen(palette().text().color());
    if (!m_sortMetric) {
        // Headers as long as the columns allow ("H3", "3" or none: the badges carry the numbers too).
        const double pitch =
            heads > 1 ? m_layout.thumbnailRect(0, 1).left() - m_layout.thumbnailRect(0, 0).left() : width();
        for (int h = 0; h < heads; ++h) {
            const QRectF t = m_layout.thumbnailRect(0, h);
            painter.drawText(QRectF(t.center().x() - pitch / 2, 4, pitch, 14), Qt::AlignCenter,
                             headColumnHeader(h, heads, pitch, metrics));
        }
    }
    for (int l = 0; l < layers; ++l) {
        for (int slot = 0; slot < heads; ++slot) {
            const int h = m_layout.headAt(l, slot);
            const size_t index = size_t(l * heads + h);
            const QRectF t = m_layout.thumbnailRect(l, slot);
            if (index < m_images.size()) painter.drawImage(t, m_images[index]);
            if (m_colorMetric && index < m_stats.size()) {
                const double x = stripValue(m_stats[index], *m_colorMetric);
                painter.fillRect(
                    QRectF(t.left(), t.bottom() - t.height() * 0.14, t.width(), t.height() * 0.14),
                    QColor::fromRgb(colorMapColor(ColorMapKind::Magma, 0.15 + 0.85 * x)));
            }
            if (index < m_effect.size()) {
                // The effect over the thumbnail, its value written when there is room.
                const double max = *std::max_element(m_effect.begin(), m_effect.end());
                const double fraction = max > 0 ? m_effect[index] / max : 0.0;
                QColor colour = effectColor(fraction);
                colour.setAlpha(190); // the head's pattern still shows through
                painter.fillRect(t, colour);
                const QString value = QLocale().toString(m_effect[index], 'g', 2);
                if (metrics.horizontalAdvance(value) + 2 <= t.width()) {
                    painter.setPen(fraction > 0.55 ? Qt::white : Qt::black);
                    painter.drawText(t.adjusted(1, 0, -1, -1), Qt::AlignHCenter | Qt::AlignBottom, value);
                }
            }
            if (m_colorByLabel && index < m_stats.size()) {
                paintHeadLabelFrame(painter, t, m_stats[index].label, 3);
            }
            // The head's number (it moves when sorted) and its label's symbol: white on a dark strip,
            // readable over bright cells and the grey causal mask alike.
            // Small thumbnails get shorter badges in a smaller font ("H3", then "3", down to 6 px).
            const HeadBadgeFit badge =
                fitHeadBadge({headBadge(l, h), tr("H%1").arg(h), QString::number(h)}, t.size(),
                             small.pointSizeF() * logicalDpiY() / 72.0, font(), this);
            if (!badge.text.isEmpty()) {
                QFont badgeFont = font();
                badgeFont.setPointSizeF(badge.pixelSize * 72.0 / logicalDpiY());
                const QFontMetricsF badgeMetrics(badgeFont, this);
                const double width = std::min(t.width(), badgeMetrics.horizontalAdvance(badge.text) + 2);
                const QRectF strip(t.left(), t.top(), width, badgeMetrics.ascent() + badgeMetrics.descent());
                painter.fillRect(strip, QColor(0, 0, 0, 150));
                painter.setPen(Qt::white);
                painter.setFont(badgeFont);
                painter.drawText(strip.adjusted(1, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, badge.text);
                painter.setFont(small);
            }
            if (std::find(m_highlighted.begin(), m_highlighted.end(), std::make_pair(l, h)) !=
                m_highlighted.end()) {
                painter.setPen(QPen(QColor(255, 221, 0), 3, Qt::DashLine));
                painter.setBrush(Qt::NoBrush);
                painter.drawRect(t.adjusted(-3, -3, 3, 3));
            }
            if (l == m_layer && h == m_head) {
                painter.setPen(QPen(hasFocus() ? QColor(255, 80, 0) : QColor(200, 120, 60), 2.5));
                painter.setBrush(Qt::NoBrush);
                painter.drawRect(t.adjusted(-1.5, -1.5, 1.5, 1.5));
            }
        }
    }
    // The layer labels last, over the thumbnails that scroll under their column (a sticky row header).
    const QRectF column = m_layout.labelColumnRect();
    if (column.left() > 4.0) {
        painter.fillRect(QRectF(column.left() - 4, 0, column.width() + 4, column.bottom() + 4),
                         palette().base());
        painter.setPen(palette().mid().color());
        painter.drawLine(QLineF(column.right(), column.top(), column.right(), column.bottom()));
    }
    painter.setPen(palette().text().color());
    for (int l = 0; l < layers; ++l)
        painter.drawText(m_layout.layerLabelRect(l), Qt::AlignRight | Qt::AlignVCenter, tr("L%1").arg(l));
    // Legend under the grid: the strip's metric on its fixed 0..1 axis, or the label colours.
    const double legendTop = height() - legendHeight();
    double x = 8;
    painter.setPen(palette().text().color());
    if (m_colorMetric) {
        const QString name = headMetricDisplayName(*m_colorMetric) + QStringLiteral(":");
        const double nameWidth = metrics.horizontalAdvance(name) + 1;
        painter.drawText(QRectF(x, legendTop, nameWidth, metrics.height() * 1.4),
                         Qt::AlignLeft | Qt::AlignVCenter, name);
        x += nameWidth + 6;
        painter.drawText(QRectF(x, legendTop, 12, metrics.height() * 1.4), Qt::AlignLeft | Qt::AlignVCenter,
                         QStringLiteral("0"));
        x += 12;
        const QRectF bar(x, legendTop + metrics.height() * 0.3, 80, metrics.height() * 0.8);
        for (int i = 0; i < 80; ++i)
            painter.fillRect(QRectF(bar.left() + i, bar.top(), 1.5, bar.height()),
                             QColor::fromRgb(colorMapColor(ColorMapKind::Magma, 0.15 + 0.85 * i / 79.0)));
        x = bar.right() + 4;
        const QString top =
            *m_colorMetric == HeadMetric::Entropy ? QStringLiteral("ln n") : QStringLiteral("1");
        painter.drawText(QRectF(x, legendTop, 40, metrics.height() * 1.4), Qt::AlignLeft | Qt::AlignVCenter,
                         top);
        x += metrics.horizontalAdvance(top) + 16;
    }
    if (!m_effect.empty()) {
        // A line of its own, under the metric or label legend.
        const double top = height() - legendLineHeight();
        double ex = 8;
        const double max = *std::max_element(m_effect.begin(), m_effect.end());
        const QString name = m_effectCaption + QStringLiteral(":");
        const double nameWidth = metrics.horizontalAdvance(name) + 1;
        painter.setPen(palette().text().color());
        painter.drawText(QRectF(ex, top, nameWidth, metrics.height() * 1.4), Qt::AlignLeft | Qt::AlignVCenter,
                         name);
        ex += nameWidth + 6;
        painter.drawText(QRectF(ex, top, 12, metrics.height() * 1.4), Qt::AlignLeft | Qt::AlignVCenter,
                         QStringLiteral("0"));
        ex += 12;
        const QRectF bar(ex, top + metrics.height() * 0.3, 80, metrics.height() * 0.8);
        for (int i = 0; i < 80; ++i)
            painter.fillRect(QRectF(bar.left() + i, bar.top(), 1.5, bar.height()), effectColor(i / 79.0));
        painter.drawText(QRectF(bar.right() + 4, top, 80, metrics.height() * 1.4),
                         Qt::AlignLeft | Qt::AlignVCenter, QLocale().toString(max, 'g', 3));
    }
    if (m_colorByLabel) {
        // Wrapped onto as many lines as the width needs (labelLegendEntries), in the widget's font.
        painter.setFont(font());
        const QFontMetricsF legendMetrics(font(), this);
        for (const auto& [label, entry] : labelLegendEntries()) {
            // The label's frame in small: its shape as well as its colour.
            paintHeadLabelFrame(painter, QRectF(entry.left(), entry.center().y() - 6, 12, 12), label, 1.5);
            painter.setPen(palette().text().color());
            painter.drawText(entry.adjusted(14, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
                             labelSymbol(label) + QLatin1Char(' ') + headLabelDisplayName(label));
        }
        painter.setFont(small);
    }
    if (m_stale) {
        painter.fillRect(rect(), QColor(255, 255, 255, 170));
    }
}

void HeadGridWidget::setEffect(std::vector<double> values, const QString& caption)
{
    const size_t heads = m_result ? size_t(m_result->analysis.layers) * size_t(m_result->analysis.heads) : 0;
    if (!values.empty() && values.size() != heads) values.clear();
    m_effect = std::move(values);
    m_effectCaption = caption;
    relayout();
    update();
}

QColor HeadGridWidget::effectColor(double fraction)
{
    return headEffectColor(fraction); // the exported grid's colours too
}

void HeadGridWidget::contextMenuEvent(QContextMenuEvent* event)
{
    const auto slot = m_layout.slotAt(event->pos());
    if (!slot) return;
    m_layer = slot->first;
    m_head = m_layout.headAt(slot->first, slot->second);
    update();
    Q_EMIT headContextMenuRequested(m_layer, m_head, event->globalPos());
}

void HeadGridWidget::mousePressEvent(QMouseEvent* event)
{
    const auto slot = m_layout.slotAt(event->position());
    if (!slot) return;
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
    if (head < 0) return;
    m_layer = layer;
    m_head = head;
    update();
    // In a scrolled pane, bring the selected thumbnail into view.
    if (QWidget* viewport = parentWidget())
        if (auto* scroll = qobject_cast<QScrollArea*>(viewport->parentWidget())) {
            const QRectF t = thumbnailRectOf(m_layer, m_head);
            // Margins include the sticky label column, which would otherwise cover the thumbnail.
            scroll->ensureVisible(int(t.center().x()), int(t.center().y()),
                                  int(t.width()) + int(m_layout.labelColumnRect().width()), int(t.height()));
        }
    Q_EMIT headActivated(m_layer, m_head);
}

} // namespace attnscope
