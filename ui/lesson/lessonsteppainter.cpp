#include "lesson/lessonsteppainter.h"

#include "lesson/lessonnumbers.h"

#include <QFontMetricsF>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace attnscope {

namespace {
constexpr double kGap = 8.0;

QFont baseFont(const QFont& from, double pointSize)
{
    QFont font = from;
    font.setPointSizeF(pointSize);
    return font;
}

QFont titleFont(const QFont& base)
{
    QFont font = base;
    font.setBold(true);
    font.setPointSizeF(base.pointSizeF() * 1.3);
    return font;
}

QFont formulaFont(const QFont& base)
{
    QFont font = base;
    font.setPointSizeF(base.pointSizeF() * 1.15);
    return font;
}
} // namespace

QRectF LessonStepLayout::cellRect(int row, int col) const
{
    return QRectF(cells.left() + col * cellWidth, cells.top() + row * cellHeight, cellWidth, cellHeight);
}

std::optional<std::pair<int, int>> LessonStepLayout::cellAt(QPointF point) const
{
    if (!cells.contains(point) || cellWidth <= 0 || cellHeight <= 0) return std::nullopt;
    const int col = std::clamp(int((point.x() - cells.left()) / cellWidth), 0, cols - 1);
    const int row = std::clamp(int((point.y() - cells.top()) / cellHeight), 0, rows - 1);
    return std::make_pair(row, col);
}

LessonStepPainter::LessonStepPainter(const LessonStep& step, const LessonPaintStyle& style)
    : m_step(step), m_style(style)
{}

std::optional<double> LessonStepPainter::colorParameter(const LessonStep& step, int row, int col)
{
    const double v = step.value(row, col);
    if (step.isMasked(row, col) || step.isMinusInfinity(row, col) || !std::isfinite(v)) return std::nullopt;
    if (step.probabilities) return std::clamp(v, 0.0, 1.0);
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (int r = 0; r < step.rows(); ++r)
        for (int c = 0; c < step.cols(); ++c)
            if (std::isfinite(step.value(r, c))) {
                lo = std::min(lo, step.value(r, c));
                hi = std::max(hi, step.value(r, c));
            }
    if (!(hi > lo)) return 0.5;
    return (v - lo) / (hi - lo);
}

QString LessonStepPainter::cellText(const LessonStep& step, int row, int col, int decimals)
{
    // Integers stay integers (the scores of the example); otherwise every cell gets three decimals so
    // that the columns line up.
    bool integers = !step.probabilities;
    for (int r = 0; r < step.rows() && integers; ++r)
        for (int c = 0; c < step.cols() && integers; ++c)
            integers = std::isinf(step.value(r, c)) ||
                       std::abs(step.value(r, c) - std::round(step.value(r, c))) < 1e-9;
    return integers ? lessonNumber(step.value(row, col)) : lessonFixed(step.value(row, col), decimals);
}

LessonStepLayout LessonStepPainter::layout(QRectF target, QPainter& painter) const
{
    return layout(target, painter.font(), painter.device());
}

LessonStepLayout LessonStepPainter::layout(QRectF target, const QFont& from, QPaintDevice* device) const
{
    // A small lesson on a large screen: the matrix (cells, their numbers and the token labels) grows with
    // the room, in steps of a tenth up to kMaxMatrixGrowth×, while the grown cells still get their full
    // comfortable size; the title and formula keep the style's size.
    bool roomy = false;
    LessonStepLayout best = layoutAt(target, from, device, m_style.fontPointSize, &roomy);
    for (int tenths = 11; roomy && tenths <= int(std::lround(kMaxMatrixGrowth * 10)); ++tenths) {
        const LessonStepLayout grown =
            layoutAt(target, from, device, m_style.fontPointSize * tenths / 10.0, &roomy);
        if (roomy) best = grown;
    }
    return best;
}

LessonStepLayout LessonStepPainter::layoutAt(QRectF target, const QFont& from, QPaintDevice* device,
                                             double matrixPointSize, bool* roomy) const
{
    const QFont font = baseFont(from, m_style.fontPointSize);
    const QFontMetricsF metrics(baseFont(from, matrixPointSize), device);
    const QFontMetricsF titleMetrics(titleFont(font), device);
    const QFontMetricsF formulaMetrics(formulaFont(font), device);
    LessonStepLayout l;
    l.rows = m_step.rows();
    l.cols = m_step.cols();
    double y = target.top();
    if (m_style.showTitle) {
        l.title = QRectF(target.left(), y, target.width(), titleMetrics.height() * 1.3);
        y = l.title.bottom();
    }
    if (m_style.showFormula && !m_step.formula.isEmpty()) {
        l.formula = QRectF(target.left(), y, target.width(), formulaMetrics.height() * 1.5);
        y = l.formula.bottom();
    }
    y += kGap / 2;
    // Cells wide enough for "−0.000" and no wider than needed for a projector.
    double widestNumber = metrics.horizontalAdvance(QStringLiteral("−0.000"));
    for (int r = 0; r < l.rows; ++r)
        for (int c = 0; c < l.cols; ++c)
            widestNumber = std::max(widestNumber, metrics.horizontalAdvance(cellText(m_step, r, c)));
    bool fullSize = false; // the last placeCells gave the cells their full size (the room did not limit them)
    // The cells for token labels of a given size; the labels shrink (below) when rows are lower than them.
    auto placeCells = [&](double labelPointSize) {
        const QFontMetricsF labels(baseFont(from, labelPointSize), device);
        l.labelPointSize = labelPointSize;
        l.rowLabelWidth = 0;
        for (const QString& label : m_step.rowLabels)
            l.rowLabelWidth = std::max(l.rowLabelWidth, labels.horizontalAdvance(label));
        l.rowLabelWidth = std::min(l.rowLabelWidth + kGap, target.width() * 0.3);
        double widestLabel = 0;
        for (const QString& label : m_step.colLabels)
            widestLabel = std::max(widestLabel, labels.horizontalAdvance(label));
        const double availableWidth = std::max(1.0, target.right() - target.left() - l.rowLabelWidth);
        const double maxCellWidth = std::max(widestNumber, std::min(widestLabel, widestNumber * 1.6)) +
                                    2.5 * metrics.averageCharWidth();
        l.cellWidth = std::max(1.0, std::min(availableWidth / std::max(1, l.cols), maxCellWidth * 1.8));
        const bool fullWidth = l.cellWidth >= maxCellWidth * 1.8 - 1e-9;
        // A label that does not fit across its column is written upwards, up to a third of the height.
        l.verticalColumnLabels = widestLabel > l.cellWidth - 2;
        l.colLabelHeight =
            l.verticalColumnLabels
                ? std::min(widestLabel + kGap, std::max(labels.height() * 1.4, (target.bottom() - y) / 3))
                : labels.height() * 1.4;
        const double availableHeight = std::max(1.0, target.bottom() - y - l.colLabelHeight);
        l.cellHeight = std::max(1.0, std::min(availableHeight / std::max(1, l.rows), metrics.height() * 3.6));
        fullSize = fullWidth && l.cellHeight >= metrics.height() * 3.6 - 1e-9;
        l.cells = QRectF(target.left() + l.rowLabelWidth, y + l.colLabelHeight, l.cellWidth * l.cols,
                         l.cellHeight * l.rows);
        return labels.height() <= l.cellHeight && (!l.verticalColumnLabels || labels.height() <= l.cellWidth);
    };
    for (double size = matrixPointSize;
         !placeCells(size) && size - 0.5 >= LessonStepLayout::kMinCellPointSize - 1e-9; size -= 0.5) {
    }
    const bool labelsFull = l.labelPointSize >= matrixPointSize - 1e-9;
    *roomy = false;
    // The numbers' own size and decimals: the style's size with three decimals when they fit, else
    // smaller, then fewer decimals, down to a readable minimum. The number widest at the style's size
    // stands for all of them at each size.
    struct Tier
    {
        int decimals;
        double smallest;
    };
    const double comfortable = std::min(matrixPointSize, LessonStepLayout::kComfortablePointSize);
    const Tier tiers[] = {{3, comfortable},
                          {2, comfortable},
                          {2, LessonStepLayout::kMinCellPointSize},
                          {1, LessonStepLayout::kMinCellPointSize}};
    l.cellPointSize = matrixPointSize;
    l.showNumbers = false;
    for (const Tier& tier : tiers) {
        QString widest;
        double widestAdvance = -1;
        for (int r = 0; r < l.rows; ++r)
            for (int c = 0; c < l.cols; ++c) {
                const QString text = cellText(m_step, r, c, tier.decimals);
                const double advance = metrics.horizontalAdvance(text);
                if (advance > widestAdvance) {
                    widestAdvance = advance;
                    widest = text;
                }
            }
        for (double size = matrixPointSize; size >= tier.smallest - 1e-9; size -= 0.5) {
            const QFontMetricsF cellMetrics(baseFont(from, size), device);
            if (cellMetrics.horizontalAdvance(widest) <= l.cellWidth - 3 &&
                cellMetrics.height() <= l.cellHeight) {
                l.cellPointSize = size;
                l.decimals = tier.decimals;
                l.showNumbers = true;
                *roomy = fullSize && labelsFull && size >= matrixPointSize - 1e-9 && tier.decimals == 3;
                return l;
            }
        }
    }
    return l;
}

void LessonStepPainter::paint(QPainter& painter, QRectF target) const
{
    painter.save();
    const QFont font = baseFont(painter.font(), m_style.fontPointSize);
    const LessonStepLayout l = layout(target, font, painter.device());
    painter.setPen(Qt::black);
    if (m_style.showTitle) {
        painter.setFont(titleFont(font));
        painter.drawText(l.title, Qt::AlignLeft | Qt::AlignVCenter,
                         QFontMetricsF(painter.font(), painter.device())
                             .elidedText(m_step.title, Qt::ElideRight, l.title.width()));
    }
    if (m_style.showFormula && !m_step.formula.isEmpty()) {
        painter.setFont(formulaFont(font));
        painter.setPen(QColor(30, 60, 120));
        painter.drawText(l.formula, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextSingleLine,
                         QFontMetricsF(painter.font(), painter.device())
                             .elidedText(m_step.formula, Qt::ElideRight, l.formula.width()));
    }
    const QFont labelFont = baseFont(font, l.labelPointSize);
    painter.setFont(labelFont);
    const QFontMetricsF metrics(labelFont, painter.device());
    painter.setPen(Qt::black);
    for (int c = 0; c < l.cols && c < m_step.colLabels.size(); ++c) {
        const QRectF cell = l.cellRect(0, c);
        if (l.verticalColumnLabels) {
            // Upwards from just above the cells, centred on the column.
            const double length = l.colLabelHeight - kGap / 2;
            painter.save();
            painter.translate(cell.center().x(), l.cells.top() - kGap / 4);
            painter.rotate(-90);
            painter.drawText(QRectF(0, -cell.width() / 2, length, cell.width()),
                             Qt::AlignLeft | Qt::AlignVCenter,
                             metrics.elidedText(m_step.colLabels[c], Qt::ElideRight, length));
            painter.restore();
        } else {
            const QRectF label(cell.left(), l.cells.top() - l.colLabelHeight, cell.width(), l.colLabelHeight);
            painter.drawText(label, Qt::AlignHCenter | Qt::AlignBottom,
                             metrics.elidedText(m_step.colLabels[c], Qt::ElideRight, cell.width() - 2));
        }
    }
    for (int r = 0; r < l.rows && r < m_step.rowLabels.size(); ++r) {
        const QRectF cell = l.cellRect(r, 0);
        painter.drawText(QRectF(target.left(), cell.top(), l.rowLabelWidth - kGap / 2, cell.height()),
                         Qt::AlignRight | Qt::AlignVCenter,
                         metrics.elidedText(m_step.rowLabels[r], Qt::ElideRight, l.rowLabelWidth - kGap / 2));
    }
    painter.setFont(baseFont(font, l.cellPointSize));
    const QBrush hatch(QColor(170, 170, 170), Qt::BDiagPattern);
    for (int r = 0; r < l.rows; ++r)
        for (int c = 0; c < l.cols; ++c) {
            const QRectF rect = l.cellRect(r, c);
            const std::optional<double> t = colorParameter(m_step, r, c);
            if (!t) {
                painter.fillRect(rect, QColor(240, 240, 240));
                painter.fillRect(rect, hatch);
                painter.setPen(QColor(90, 90, 90));
            } else {
                painter.fillRect(rect, QColor::fromRgb(colorMapColor(m_style.colorMap, *t)));
                const bool dark = m_style.colorMap == ColorMapKind::Greys ? *t > 0.5 : *t < 0.55;
                painter.setPen(dark ? Qt::white : Qt::black);
            }
            if (l.showNumbers) painter.drawText(rect, Qt::AlignCenter, cellText(m_step, r, c, l.decimals));
        }
    // Thin white grid lines between the cells keep neighbouring numbers apart on a projector.
    painter.setPen(QPen(Qt::white, 1.0));
    for (int r = 1; r < l.rows; ++r)
        painter.drawLine(QPointF(l.cells.left(), l.cellRect(r, 0).top()),
                         QPointF(l.cells.right(), l.cellRect(r, 0).top()));
    for (int c = 1; c < l.cols; ++c)
        painter.drawLine(QPointF(l.cellRect(0, c).left(), l.cells.top()),
                         QPointF(l.cellRect(0, c).left(), l.cells.bottom()));
    painter.restore();
}

QImage renderLessonStepImage(const LessonStep& step, const LessonPaintStyle& style, QSize size)
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::TextAntialiasing);
    LessonStepPainter(step, style).paint(painter, QRectF(12, 12, size.width() - 24, size.height() - 24));
    return image;
}

QStringList lessonDimensionLabels(int count, int first)
{
    QStringList labels;
    for (int i = 0; i < count; ++i)
        labels << QStringLiteral("d%1").arg(first + i + 1);
    return labels;
}

} // namespace attnscope
