// HeatmapPainter's axis labels: where each query and key label goes (placedLabels, plain data a test can
// check) and drawing them from that. The rest of the painter is in heatmappainter.cpp.

#include "render/heatmapmetrics.h"
#include "render/heatmappainter.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPen>
#include <algorithm>

namespace attnscope {

using namespace heatmapmetrics;

std::vector<HeatmapPainter::PlacedLabel> HeatmapPainter::placedLabels(const HeatmapGeometry& geometry,
                                                                      QRectF target, const QFont& base,
                                                                      const QPaintDevice* device) const
{
    QPaintDevice* metricsDevice = const_cast<QPaintDevice*>(device);
    QFont font = base;
    font.setPointSizeF(m_style.fontPointSize);
    const double titleHeight = m_style.showTitle && !m_data.title.isEmpty()
                                   ? QFontMetricsF(font, metricsDevice).height() * 1.6
                                   : 0.0;
    const QRectF room = target.adjusted(0, titleHeight, 0, 0);
    const QRectF area = geometry.area();
    const LabelLayout labels = labelLayout(geometry, device, base);
    std::vector<PlacedLabel> out;
    out.reserve(labels.rows.shown.size() + labels.cols.shown.size());
    // A lane-1 label sits one lane further out (the widest lane-0 label and a gap), joined to its cell
    // by a faint leader line that runs between the lane-0 labels of its neighbours.
    auto laneDepth = [&](const AxisLabelPlan& plan, const QStringList& texts, const QFontMetricsF& m) {
        double depth = 0;
        if (plan.lanes < 2) return depth;
        for (size_t k = 0; k < plan.shown.size(); k += 2)
            depth = std::max(depth, m.horizontalAdvance(texts.at(plan.shown[k])) + 1);
        return depth + kGap;
    };
    QFontMetricsF metrics(fontAtPixels(base, labels.rows.pixelSize, device), metricsDevice);
    const double roomLeft = std::max(4.0, area.left() - room.left() - kGap / 2);
    const double rowDepth = std::min(roomLeft / 2, laneDepth(labels.rows, m_data.rowLabels, metrics));
    for (size_t k = 0; k < labels.rows.shown.size(); ++k) {
        const int r = labels.rows.shown[k];
        const QRectF cell = geometry.cellRect(r, 0);
        const double depth = labels.rows.laneOf(k) == 1 ? rowDepth : 0.0;
        const double right = area.left() - kGap / 2 - depth;
        PlacedLabel label;
        label.index = r;
        label.row = true;
        label.pixelSize = labels.rows.pixelSize;
        const double roomHere = std::max(4.0, roomLeft - depth);
        label.text = metrics.elidedText(m_data.rowLabels.at(r), Qt::ElideRight, roomHere);
        const double width = std::min(roomHere, metrics.horizontalAdvance(label.text) + 1);
        label.box = QRectF(right - width, cell.center().y() - metrics.height() / 2, width, metrics.height());
        if (depth > 0)
            label.leader = QLineF(QPointF(right + 1, cell.center().y()),
                                  QPointF(area.left() - kGap / 2 - 1, cell.center().y()));
        out.push_back(label);
    }
    metrics = QFontMetricsF(fontAtPixels(base, labels.cols.pixelSize, device), metricsDevice);
    // Slanted at 60°: a label of width w rises w·sin 60° (minus its half height at the top corner).
    const double roomAbove =
        std::max(4.0, (area.top() - kGap / 2 - room.top() - metrics.height() * 0.5) / kSin60);
    const double colDepth = std::min(roomAbove / 2, laneDepth(labels.cols, m_data.colLabels, metrics));
    for (size_t k = 0; k < labels.cols.shown.size(); ++k) {
        const int c = labels.cols.shown[k];
        const QRectF cell = geometry.cellRect(0, c);
        const double depth = labels.cols.laneOf(k) == 1 ? colDepth : 0.0;
        PlacedLabel label;
        label.index = c;
        label.row = false;
        label.pixelSize = labels.cols.pixelSize;
        label.transform.translate(cell.center().x(), area.top() - kGap / 2);
        label.transform.rotate(-60);
        if (depth > 0) label.leader = QLineF(QPointF(1, 0), QPointF(depth - 1, 0));
        const double roomHere = std::max(4.0, roomAbove - depth);
        label.text = metrics.elidedText(m_data.colLabels.at(c), Qt::ElideRight, roomHere);
        const double width = std::min(roomHere, metrics.horizontalAdvance(label.text) + 1);
        label.box = QRectF(depth, -metrics.height() / 2, width, metrics.height());
        out.push_back(label);
    }
    return out;
}

void HeatmapPainter::paintLabels(QPainter& painter, const HeatmapGeometry& geometry, QRectF target,
                                 const QFont& base) const
{
    const QColor specialInk = m_style.dark ? QColor(255, 140, 120) : QColor(180, 40, 40);
    const QColor leaderInk = m_style.dark ? QColor(235, 235, 235, 80) : QColor(0, 0, 0, 70);
    painter.save();
    double pixelSize = -1;
    for (const PlacedLabel& label : placedLabels(geometry, target, base, painter.device())) {
        if (label.pixelSize != pixelSize) {
            pixelSize = label.pixelSize;
            painter.setFont(fontAtPixels(base, pixelSize, painter.device()));
        }
        const std::vector<bool>& specials = label.row ? m_data.specialRows : m_data.specialCols;
        const bool special = size_t(label.index) < specials.size() && specials[size_t(label.index)];
        painter.save();
        painter.setTransform(label.transform, true);
        if (!label.leader.isNull()) {
            painter.setPen(QPen(leaderInk, 0));
            painter.drawLine(label.leader);
        }
        painter.setPen(special ? specialInk : ink());
        painter.drawText(label.box, (label.row ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter,
                         label.text);
        painter.restore();
    }
    painter.restore();
}

} // namespace attnscope
