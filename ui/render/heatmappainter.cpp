#include "render/heatmappainter.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QImage>
#include <QLinearGradient>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace attnscope {

namespace {
constexpr double kColorBarWidth = 14.0;
constexpr double kGap = 6.0;

double maxLabelWidth(const QStringList& labels, const QFontMetricsF& metrics)
{
    double width = 0;
    if (labels.size() <= 256) {
        for (const QString& label : labels)
            width = std::max(width, metrics.horizontalAdvance(label));
        return width;
    }
    // Thousands of labels: measure only the 32 longest strings (measuring is the slow part).
    std::vector<int> order(size_t(labels.size()));
    for (int i = 0; i < labels.size(); ++i)
        order[size_t(i)] = i;
    std::partial_sort(order.begin(), order.begin() + 32, order.end(),
                      [&](int a, int b) { return labels.at(a).size() > labels.at(b).size(); });
    for (size_t i = 0; i < 32; ++i)
        width = std::max(width, metrics.horizontalAdvance(labels.at(order[i])));
    return width;
}
} // namespace

HeatmapPainter::HeatmapPainter(const HeatmapData& data, const HeatmapStyle& style) : m_data(data), m_style(style) {}

HeatmapGeometry HeatmapPainter::layout(QRectF target, const QFontMetricsF& metrics) const
{
    const double titleHeight = m_style.showTitle && !m_data.title.isEmpty() ? metrics.height() * 1.6 : 0.0;
    // Key labels are drawn rotated by -60°, so their vertical extent is width * sin(60°).
    const double colLabelHeight = std::min(target.height() * 0.3, maxLabelWidth(m_data.colLabels, metrics) * 0.87 + kGap);
    const double rowLabelWidth = std::min(target.width() * 0.3, maxLabelWidth(m_data.rowLabels, metrics) + kGap);
    const double barSpace = m_style.showColorBar ? kColorBarWidth + metrics.horizontalAdvance(QStringLiteral("0.00")) + 3 * kGap : 0.0;
    QRectF cells(target.left() + rowLabelWidth, target.top() + titleHeight + colLabelHeight,
                 target.width() - rowLabelWidth - barSpace - kGap, target.height() - titleHeight - colLabelHeight - kGap);
    if (cells.width() < 1 || cells.height() < 1)
        cells = QRectF(target.left(), target.top(), std::max(1.0, target.width()), std::max(1.0, target.height()));
    return HeatmapGeometry(cells, m_data.rows, m_data.cols);
}

void HeatmapPainter::paint(QPainter& painter, QRectF target, const HeatmapGeometry* geometryIn,
                           const HeatmapData* cells) const
{
    QFont font = painter.font();
    font.setPointSizeF(m_style.fontPointSize);
    painter.setFont(font);
    const QFontMetricsF metrics(font, painter.device());
    HeatmapGeometry geometry = layout(target, metrics);
    if (geometryIn)
        geometry = *geometryIn;

    if (m_style.showTitle && !m_data.title.isEmpty()) {
        QFont titleFont = font;
        titleFont.setBold(true);
        painter.setFont(titleFont);
        painter.setPen(Qt::black);
        painter.drawText(QRectF(target.left(), target.top(), target.width(), metrics.height() * 1.5),
                         Qt::AlignLeft | Qt::AlignVCenter, metrics.elidedText(m_data.title, Qt::ElideRight, target.width()));
        painter.setFont(font);
    }
    paintCells(painter, geometry, cells ? *cells : m_data);
    if (m_data.signedValues) {
        // Zero differences are white on white: outline the matrix so its extent stays visible.
        painter.save();
        painter.setClipRect(geometry.area().adjusted(-1, -1, 1, 1));
        painter.setPen(QPen(QColor(170, 170, 170), 0.5 * m_style.lineWidth));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(QRectF(geometry.cellRect(0, 0).topLeft(), geometry.cellRect(m_data.rows - 1, m_data.cols - 1).bottomRight()));
        painter.restore();
    }
    paintLabels(painter, geometry);
    if (m_style.showColorBar) {
        const QRectF area = geometry.area();
        const double barHeight = std::min(area.height(), geometry.cellHeight() * m_data.rows);
        // Next to the cells when the fitted matrix is narrower than its area (square cells).
        const double cellsRight = std::min(area.right(), area.left() + geometry.cellWidth() * m_data.cols);
        paintColorBar(painter, QRectF(cellsRight + 2 * kGap, area.top(), kColorBarWidth, std::max(20.0, barHeight)));
    }
}

QRgb HeatmapPainter::cellColor(const HeatmapData& cells, int row, int col) const
{
    if (cells.isMasked(row, col))
        return maskedColor();
    if (cells.isExcluded(col))
        return excludedColor();
    const double t = cells.colorParameter(row, col, m_style.scale);
    return cells.signedValues ? divergingColor(t) : colorMapColor(m_style.colorMap, t);
}

void HeatmapPainter::paintCells(QPainter& painter, const HeatmapGeometry& geometry, const HeatmapData& cells) const
{
    int row0, row1, col0, col1;
    geometry.visibleRange(row0, row1, col0, col1);
    // Few visible cells: one rectangle each (crisp in SVG/PDF, room for numbers). Many: one image pixel per
    // cell, scaled, so 2,048 × 2,048 stays a single drawImage.
    const bool unitCells = cells.rowStarts.empty() && cells.colStarts.empty();
    if (!unitCells || (row1 - row0) * (col1 - col0) > 96 * 96) {
        paintCellImage(painter, geometry, cells);
        return;
    }
    painter.save();
    painter.setClipRect(geometry.area());
    painter.setPen(Qt::NoPen);
    const QBrush maskBrush(QColor(200, 200, 200), Qt::BDiagPattern);
    for (int r = std::max(row0, cells.firstRow); r < std::min(row1, cells.firstRow + cells.rows); ++r) {
        for (int c = std::max(col0, cells.firstCol); c < std::min(col1, cells.firstCol + cells.cols); ++c) {
            const int br = r - cells.firstRow, bc = c - cells.firstCol;
            const QRectF rect = geometry.cellRect(r, c);
            painter.fillRect(rect, QColor::fromRgb(cellColor(cells, br, bc)));
            if (cells.isMasked(br, bc)) {
                painter.fillRect(rect, maskBrush);
                continue;
            }
            if (!m_style.showValues || cells.isExcluded(bc)) continue;
            // A number only where it fits its cell, measured in the font it is drawn in (any locale).
            const QString number = QLocale().toString(double(cells.value(br, bc)), 'f', 3);
            if (painter.fontMetrics().horizontalAdvance(number) <= rect.width() - 2 &&
                painter.fontMetrics().height() <= rect.height()) {
                const double t = cells.colorParameter(br, bc, m_style.scale);
                // The sequential maps run dark to light, Greys light to dark: pick the readable ink.
                const bool darkCell = cells.signedValues ? std::abs(t) > 0.6
                                      : m_style.colorMap == ColorMapKind::Greys ? t > 0.5
                                                                                : t < 0.55;
                painter.setPen(darkCell ? Qt::white : Qt::black);
                painter.drawText(rect, Qt::AlignCenter, number);
                painter.setPen(Qt::NoPen);
            }
        }
    }
    painter.restore();
}

void HeatmapPainter::paintCellImage(QPainter& painter, const HeatmapGeometry& geometry, const HeatmapData& cells) const
{
    if (cells.rows <= 0 || cells.cols <= 0)
        return;
    int row0, row1, col0, col1;
    geometry.visibleRange(row0, row1, col0, col1);
    // Block cells overlapping the visible matrix range.
    int r0 = 0, r1 = cells.rows, c0 = 0, c1 = cells.cols;
    while (r0 < r1 && cells.matrixRowEnd(r0) <= row0)
        ++r0;
    while (r1 > r0 && cells.matrixRow(r1 - 1) >= row1)
        --r1;
    while (c0 < c1 && cells.matrixColEnd(c0) <= col0)
        ++c0;
    while (c1 > c0 && cells.matrixCol(c1 - 1) >= col1)
        --c1;
    if (r0 >= r1 || c0 >= c1)
        return;
    QImage image(c1 - c0, r1 - r0, QImage::Format_RGB32);
    for (int r = r0; r < r1; ++r) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(r - r0));
        for (int c = c0; c < c1; ++c)
            line[c - c0] = cellColor(cells, r, c);
    }
    const QRectF topLeft = geometry.cellRect(cells.matrixRow(r0), cells.matrixCol(c0));
    const QRectF bottomRight = geometry.cellRect(cells.matrixRowEnd(r1 - 1) - 1, cells.matrixColEnd(c1 - 1) - 1);
    painter.save();
    painter.setClipRect(geometry.area());
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    // PDF would otherwise store the cell image as JPEG, whose chroma subsampling smears the cells.
    painter.setRenderHint(QPainter::LosslessImageRendering, true);
    painter.drawImage(QRectF(topLeft.topLeft(), bottomRight.bottomRight()), image);
    if (m_data.causal && geometry.cellWidth() >= 3)
        paintMaskHatch(painter, geometry);
    painter.restore();
}

void HeatmapPainter::paintMaskHatch(QPainter& painter, const HeatmapGeometry& geometry) const
{
    // The staircase above the diagonal of the visible range, hatched like the per-cell path.
    int row0, row1, col0, col1;
    geometry.visibleRange(row0, row1, col0, col1);
    QPainterPath path;
    path.moveTo(geometry.cellRect(row0, std::max(col0, row0 + 1)).topLeft());
    path.lineTo(geometry.cellRect(row0, col1 - 1).topRight());
    for (int r = row0; r < row1 && r + 1 < col1; ++r) {
        path.lineTo(geometry.cellRect(r, col1 - 1).bottomRight());
        path.lineTo(geometry.cellRect(r, r + 1).bottomLeft());
    }
    painter.fillPath(path, QBrush(QColor(200, 200, 200), Qt::BDiagPattern));
}

void HeatmapPainter::paintLabels(QPainter& painter, const HeatmapGeometry& geometry) const
{
    int row0, row1, col0, col1;
    geometry.visibleRange(row0, row1, col0, col1);
    const QRectF area = geometry.area();
    const QFontMetricsF metrics(painter.font(), painter.device());
    // Skip labels that would overlap: draw every k-th one.
    const int rowStep = std::max(1, int(std::ceil(metrics.height() / std::max(1e-6, geometry.cellHeight()))));
    const int colStep = std::max(1, int(std::ceil(metrics.height() / std::max(1e-6, geometry.cellWidth()))));
    for (int r = row0; r < row1 && r < m_data.rowLabels.size(); r += rowStep) {
        const QRectF cell = geometry.cellRect(r, 0);
        const bool special = size_t(r) < m_data.specialRows.size() && m_data.specialRows[size_t(r)];
        painter.setPen(special ? QColor(180, 40, 40) : QColor(Qt::black));
        painter.drawText(QRectF(area.left() - 400 - kGap / 2, cell.top(), 400, cell.height()),
                         Qt::AlignRight | Qt::AlignVCenter, m_data.rowLabels.at(r));
    }
    for (int c = col0; c < col1 && c < m_data.colLabels.size(); c += colStep) {
        const QRectF cell = geometry.cellRect(0, c);
        const bool special = size_t(c) < m_data.specialCols.size() && m_data.specialCols[size_t(c)];
        painter.setPen(special ? QColor(180, 40, 40) : QColor(Qt::black));
        painter.save();
        painter.translate(cell.center().x(), area.top() - kGap / 2);
        painter.rotate(-60);
        painter.drawText(QRectF(0, -metrics.height() / 2, 400, metrics.height()), Qt::AlignLeft | Qt::AlignVCenter,
                         m_data.colLabels.at(c));
        painter.restore();
    }
}

void HeatmapPainter::paintColorBar(QPainter& painter, QRectF bar) const
{
    const int steps = 64;
    for (int i = 0; i < steps; ++i) {
        const double t = 1.0 - (i + 0.5) / steps;
        const QRgb color = m_data.signedValues ? divergingColor(2 * t - 1) : colorMapColor(m_style.colorMap, t);
        painter.fillRect(QRectF(bar.left(), bar.top() + bar.height() * i / steps, bar.width(), bar.height() / steps + 0.5),
                         QColor::fromRgb(color));
    }
    painter.setPen(QPen(Qt::black, 0.5 * m_style.lineWidth));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(bar);
    const QFontMetricsF metrics(painter.font(), painter.device());
    auto tick = [&](double t, const QString& text) {
        const double y = bar.bottom() - t * bar.height();
        painter.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 3, y));
        painter.drawText(QRectF(bar.right() + 5, y - metrics.height() / 2, 200, metrics.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, text);
    };
    if (m_data.signedValues) {
        tick(0, QStringLiteral("−1")), tick(0.5, QStringLiteral("0")), tick(1, QStringLiteral("+1"));
        return;
    }
    switch (m_style.scale) {
    case HeatmapScale::Absolute:
        tick(0, QStringLiteral("0")), tick(0.5, QLocale().toString(0.5)), tick(1, QStringLiteral("1"));
        break;
    case HeatmapScale::RowMax:
        tick(0, QStringLiteral("0")), tick(1, QCoreApplication::translate("attnscope", "row max"));
        break;
    case HeatmapScale::Log:
        tick(0, QStringLiteral("1e-4")), tick(0.5, QStringLiteral("1e-2")), tick(1, QStringLiteral("1"));
        break;
    }
}

QImage renderHeatmapImage(const HeatmapData& data, const HeatmapStyle& style, int width, int height)
{
    QImage image(width, height, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::TextAntialiasing);
    HeatmapPainter(data, style).paint(painter, QRectF(8, 8, width - 16, height - 16));
    return image;
}

} // namespace attnscope
