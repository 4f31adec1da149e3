#include "render/heatmappainter.h"

#include "render/colorbar.h"
#include "render/heatmapmetrics.h"
#include "render/numberformat.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QImage>
#include <QLinearGradient>
#include <QLocale>
#include <QPaintDevice>
#include <QPainter>
#include <QPainterPath>
#include <QPen>
#include <algorithm>
#include <cmath>

namespace attnscope {

using namespace heatmapmetrics;

double heatmapmetrics::dpiOf(const QPaintDevice* device)
{
    return device ? device->logicalDpiY() : 96.0;
}

QFont heatmapmetrics::fontAtPixels(QFont font, double pixels, const QPaintDevice* device)
{
    font.setPointSizeF(pixels * 72.0 / dpiOf(device));
    return font;
}

namespace {
constexpr double kColorBarWidth = 14.0;
constexpr double kSideBarColumn = 10.0;

// The narrowest whole-pixel width from 16 up to `widest` at which fits(width) holds, for a fits that more
// width never breaks (bisection); 0 when even `widest` does not fit.
template <class Fits> double narrowestFittingWidth(const Fits& fits, double widest)
{
    if (!fits(widest)) return 0.0;
    double low = 16, high = widest;
    if (fits(low)) return low;
    while (high - low > 1) {
        const double middle = std::floor((low + high) / 2);
        (fits(middle) ? high : low) = middle;
    }
    return high;
}

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

// Special tokens and the first token (the usual attention sink, special or not) keep a minimum width
// and their label.
std::vector<bool> anchoredFlags(std::vector<bool> flags, int count)
{
    if (count > 0) {
        flags.resize(std::max(flags.size(), size_t(1)), false);
        flags[0] = true;
    }
    return flags;
}

std::vector<int> specialIndices(const std::vector<bool>& flags, int count)
{
    std::vector<int> out;
    const std::vector<bool> anchored = anchoredFlags(flags, count);
    for (int i = 0; i < count && size_t(i) < anchored.size(); ++i)
        if (anchored[size_t(i)]) out.push_back(i);
    return out;
}

} // namespace

HeatmapPainter::HeatmapPainter(const HeatmapData& data, const HeatmapStyle& style)
    : m_data(data), m_style(style)
{}

QColor HeatmapPainter::ink() const
{
    return m_style.dark ? QColor(235, 235, 235) : QColor(Qt::black);
}

bool HeatmapPainter::showsSideBar() const
{
    return m_data.rows >= kSideBarMinimumRows && !m_data.sideFirst.empty() && !m_data.signedValues;
}

double HeatmapPainter::sideBarPitch(double lineHeight)
{
    // The headers are slanted like the key labels: neighbours need a line's height between them.
    return std::max(kSideBarColumn + 2, lineHeight / kSin60 + 1);
}

QString HeatmapPainter::sideBarLegend() const
{
    if (!showsSideBar()) return {};
    const QString first = m_data.colLabels.value(0);
    return m_data.sideSep.empty()
               ? QCoreApplication::translate(
                     "attnscope::HeatmapPainter",
                     "Side bar: each row's attention to %1, in the colour bar's scale")
                     .arg(first)
               : QCoreApplication::translate("attnscope::HeatmapPainter",
                                             "Side bars: each row's attention to %1 and to [SEP], in the "
                                             "colour bar's scale")
                     .arg(first);
}

QRectF HeatmapPainter::sideBarLegendRect(const HeatmapGeometry& geometry, QRectF target, const QFont& base,
                                         const QPaintDevice* device) const
{
    if (!showsSideBar()) return {};
    QFont font = base;
    font.setPointSizeF(m_style.fontPointSize);
    const QFontMetricsF metrics(font, device ? const_cast<QPaintDevice*>(device) : nullptr);
    // Under the matrix (a zoomed view's area), from the target's left edge: the row labels' room is free
    // there.
    const double top = std::min(geometry.area().bottom() + kGap / 2, target.bottom() - metrics.height());
    return QRectF(target.left(), top, target.width(), metrics.height());
}

double HeatmapPainter::sideBarWidth(double lineHeight) const
{
    if (!showsSideBar()) return 0.0;
    return 2 * kGap + sideBarPitch(lineHeight) * (m_data.sideSep.empty() ? 1 : 2);
}

HeatmapPainter::LabelLayout HeatmapPainter::labelLayout(const HeatmapGeometry& geometry,
                                                        const QPaintDevice* device, const QFont& base) const
{
    const double preferred = m_style.fontPointSize * dpiOf(device) / 72.0;
    const QFontMetricsF unit(fontAtPixels(base, 100, device),
                             device ? const_cast<QPaintDevice*>(device) : nullptr);
    const double lineHeightPerPixel = (unit.ascent() + unit.descent()) / 100.0;
    int row0, row1, col0, col1;
    geometry.visibleRange(row0, row1, col0, col1);
    LabelLayout out;
    auto plan = [&](int first, int last, bool rows, double perPixel) {
        AxisLabelRequest request;
        request.first = first;
        for (int i = first; i < last; ++i) {
            const QRectF cell = geometry.cellRect(rows ? i : 0, rows ? 0 : i);
            request.centers.push_back(rows ? cell.center().y() : cell.center().x());
        }
        request.special =
            anchoredFlags(rows ? m_data.specialRows : m_data.specialCols, rows ? m_data.rows : m_data.cols);
        request.preferredPixelSize =
            geometry.labelPixelLimit() > 0 ? std::min(preferred, geometry.labelPixelLimit()) : preferred;
        request.minimumPixelSize = std::min(request.preferredPixelSize, minimumLabelPixels());
        request.lineHeightPerPixel = perPixel;
        request.spacingFactor = rows ? 1.0 : kSin60; // key labels are slanted at 60°
        request.maxLanes = geometry.labelLanes();
        return planAxisLabels(request);
    };
    // Small fonts are hinted taller than their share of a 100-px font's line (at 7.5 px a line is 9.3 px,
    // not 8.8), and labels planned from the share overlapped their neighbours: each axis is planned again
    // with the line height per pixel of the size it chose, until that size's lines fit.
    auto planFitting = [&](int first, int last, bool rows) {
        double perPixel = lineHeightPerPixel;
        AxisLabelPlan chosen = plan(first, last, rows, perPixel);
        for (int pass = 0; pass < 4 && !chosen.shown.empty() && chosen.pixelSize > 0; ++pass) {
            const QFontMetricsF at(fontAtPixels(base, chosen.pixelSize, device),
                                   device ? const_cast<QPaintDevice*>(device) : nullptr);
            const double own = (at.ascent() + at.descent()) / chosen.pixelSize;
            if (own <= perPixel + 1e-9) break;
            perPixel = own;
            chosen = plan(first, last, rows, perPixel);
        }
        return chosen;
    };
    out.rows = planFitting(row0, std::min(row1, int(m_data.rowLabels.size())), true);
    out.cols = planFitting(col0, std::min(col1, int(m_data.colLabels.size())), false);
    return out;
}

double HeatmapPainter::minimumLabelPixels() const
{
    return m_style.minimumLabelPixels > 0 ? m_style.minimumLabelPixels : kMinimumLabelPixelSize;
}

bool HeatmapPainter::labelsEveryToken(const HeatmapGeometry& geometry, const QPaintDevice* device,
                                      const QFont& base) const
{
    const LabelLayout labels = labelLayout(geometry, device, base);
    return int(labels.rows.shown.size()) == m_data.rows && int(labels.cols.shown.size()) == m_data.cols &&
           labels.rows.step == 1 && labels.cols.step == 1;
}

double HeatmapPainter::minimumWidthForEveryLabel(double height, const QFont& base, const QPaintDevice* device,
                                                 double widest) const
{
    auto fits = [&](double width) {
        const QRectF target(0, 0, width, height);
        return labelsEveryToken(layout(target, base, device), device, base);
    };
    if (m_data.rows <= 0 || m_data.cols <= 0) return 0.0;
    // More width never takes room from the labels.
    return narrowestFittingWidth(fits, widest);
}

double HeatmapPainter::minimumWidthForMatrix(double side, double height, const QFont& base,
                                             const QPaintDevice* device, double widest) const
{
    auto fits = [&](double width) {
        const HeatmapGeometry g = layout(QRectF(0, 0, width, height), base, device);
        return std::min(g.matrixWidth(), g.matrixHeight()) >= side - 1e-9;
    };
    if (m_data.rows <= 0 || m_data.cols <= 0) return 0.0;
    // A wider target never shrinks the matrix.
    return narrowestFittingWidth(fits, widest);
}

HeatmapGeometry HeatmapPainter::layout(QRectF target, const QFont& baseFont, const QPaintDevice* device) const
{
    QFont font = baseFont;
    font.setPointSizeF(m_style.fontPointSize);
    const QFontMetricsF metrics(font, device ? const_cast<QPaintDevice*>(device) : nullptr);
    const double preferred = m_style.fontPointSize * dpiOf(device) / 72.0;
    const QFontMetricsF unit(fontAtPixels(baseFont, 100, device),
                             device ? const_cast<QPaintDevice*>(device) : nullptr);
    const double lineHeightPerPixel = (unit.ascent() + unit.descent()) / 100.0;
    const double titleHeight = m_style.showTitle && !m_data.title.isEmpty() ? metrics.height() * 1.6 : 0.0;
    const bool barBeside = m_style.showColorBar && !m_style.colorBarBelow;
    const double barSpace =
        (barBeside ? kColorBarWidth + metrics.horizontalAdvance(QStringLiteral("−0.000")) + 3 * kGap +
                         (m_data.colorBarCaption.isEmpty() ? 0.0 : metrics.height() + kGap)
                   : 0.0) +
        sideBarWidth(metrics.ascent() + metrics.descent());
    const double barBelow = colorBarBelowHeight(metrics);
    // The cells get what the labels leave: labels measured at `labelPixels`, in `lanes` staggered lanes.
    auto geometryFor = [&](double labelPixels, int lanes) {
        const QFontMetricsF labelMetrics(fontAtPixels(baseFont, labelPixels, device),
                                         device ? const_cast<QPaintDevice*>(device) : nullptr);
        const double rowWidth = maxLabelWidth(m_data.rowLabels, labelMetrics) + 1;
        const double colWidth = maxLabelWidth(m_data.colLabels, labelMetrics) + 1;
        // Key labels are slanted at 60°: up by width·sin 60°, right by width·cos 60° past their column.
        const double line = labelMetrics.height();
        // The side bar's headers ("→ [CLS]", "→ [SEP]") are slanted into the same room as the key labels.
        double headerWidth = 0;
        if (showsSideBar())
            for (const QString& header : sideBarHeaders())
                headerWidth = std::max(headerWidth, labelMetrics.horizontalAdvance(header) + 1);
        const double colDepth = std::max(colWidth * lanes + kGap * (lanes - 1), headerWidth);
        const double share = lanes > 1 ? 0.4 : 0.3;
        const double colLabelHeight =
            std::min(target.height() * share, colDepth * kSin60 + line * 0.5 + kGap);
        const double rowLabelWidth = std::min(target.width() * share, (rowWidth + kGap) * lanes);
        // The widest key label, slanted from the last column, reaches this far right of the cells (a
        // label's top corner: w·cos 60° + h/2·sin 60°); the colour bar's room beside them takes it in.
        const double overhang = std::max(0.0, colDepth * 0.5 + line * 0.45 - barSpace);
        // The side bar's legend: a line under the cells.
        const double legendHeight = showsSideBar() ? metrics.height() + kGap / 2 : 0.0;
        auto fitted = [&](double rightOverhang) {
            QRectF cells(target.left() + rowLabelWidth, target.top() + titleHeight + colLabelHeight,
                         target.width() - rowLabelWidth - barSpace - kGap - rightOverhang,
                         target.height() - titleHeight - colLabelHeight - kGap - legendHeight - barBelow);
            if (cells.width() < 1 || cells.height() < 1)
                cells = QRectF(target.left(), target.top(), std::max(1.0, target.width()),
                               std::max(1.0, target.height()));
            HeatmapGeometry g(
                cells, m_data.rows, m_data.cols, specialIndices(m_data.specialRows, m_data.rows),
                specialIndices(m_data.specialCols, m_data.cols), specialCellMinimum(lineHeightPerPixel));
            g.setStretch(m_style.stretchCells);
            g.setMaximumCellSize(m_style.maximumCellPixels);
            g.setLabelPixelLimit(labelPixels); // the room above and left was measured at this size
            g.setLabelLanes(lanes);
            return g;
        };
        HeatmapGeometry g = fitted(overhang);
        if (overhang <= 0 || lanes > 1 || showsSideBar()) return g;
        // Only the last few labels reach past the cells, each from its own column: the room they take there,
        // measured on these cells. Wider cells (the room saved) only move the labels further left of the
        // cells' right edge, so the refit keeps every label inside.
        const double right = g.area().left() + std::min(g.area().width(), g.matrixWidth());
        double reach = 0;
        for (int c = m_data.cols - 1; c >= 0 && c < m_data.colLabels.size(); --c) {
            const double centre = g.cellRect(0, c).center().x();
            if (right - centre > colDepth * 0.5 + line) break; // no label from here on reaches the edge
            reach = std::max(reach, centre - right +
                                        labelMetrics.horizontalAdvance(m_data.colLabels.at(c)) * 0.5 +
                                        line * 0.45);
        }
        const double needed = std::max(0.0, reach - barSpace);
        return needed < overhang ? fitted(needed) : g;
    };
    auto thinned = [](const LabelLayout& labels) { return labels.rows.step > 1 || labels.cols.step > 1; };
    // One lane: labels measured at the preferred size, then at the size the plan chose (smaller labels
    // leave more room for the cells, which never makes the plan's size too large).
    HeatmapGeometry geometry;
    double labelPixels = preferred;
    LabelLayout labels;
    for (int pass = 0; pass < 2; ++pass) {
        geometry = geometryFor(labelPixels, 1);
        labels = labelLayout(geometry, device, baseFont);
        const double chosen = std::max(labels.rows.pixelSize, labels.cols.pixelSize);
        if (chosen >= labelPixels - 1e-9) break;
        labelPixels = chosen;
    }
    if (!thinned(labels)) return geometry;
    // One lane has to drop labels: two staggered lanes may keep every one. The largest font (in half
    // pixels, preferred down to the minimum) whose two-lane room still lets the plan show every label.
    for (double pixels = preferred; pixels >= minimumLabelPixels() - 1e-9; pixels -= 0.5) {
        const HeatmapGeometry twoLanes = geometryFor(pixels, 2);
        const LabelLayout staggered = labelLayout(twoLanes, device, baseFont);
        if (!thinned(staggered)) return twoLanes;
    }
    return geometry;
}

void HeatmapPainter::paint(QPainter& painter, QRectF target, const HeatmapGeometry* geometryIn,
                           const HeatmapData* cells) const
{
    const QFont base = painter.font();
    QFont font = base;
    font.setPointSizeF(m_style.fontPointSize);
    painter.setFont(font);
    const QFontMetricsF metrics(font, painter.device());
    const HeatmapGeometry geometry = geometryIn ? *geometryIn : layout(target, base, painter.device());

    if (m_style.showTitle && !m_data.title.isEmpty()) {
        QFont titleFont = font;
        titleFont.setBold(true);
        painter.setFont(titleFont);
        const QFontMetricsF titleMetrics(titleFont, painter.device());
        painter.setPen(ink());
        painter.drawText(QRectF(target.left(), target.top(), target.width(), metrics.height() * 1.5),
                         Qt::AlignLeft | Qt::AlignVCenter,
                         titleMetrics.elidedText(m_data.title, Qt::ElideRight, target.width()));
        painter.setFont(font);
    }
    paintCells(painter, geometry, cells ? *cells : m_data);
    const QRectF area = geometry.area();
    const QRectF matrix(area.topLeft(), QSizeF(std::min(area.width(), geometry.matrixWidth()),
                                               std::min(area.height(), geometry.matrixHeight())));
    if (m_data.signedValues) {
        // Zero differences are white on white: outline the matrix so its extent stays visible.
        painter.save();
        painter.setPen(QPen(QColor(170, 170, 170), 0.5 * m_style.lineWidth));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(matrix);
        painter.restore();
    }
    const double titleHeight = m_style.showTitle && !m_data.title.isEmpty() ? metrics.height() * 1.6 : 0.0;
    paintLabels(painter, geometry, target, base);
    painter.setFont(font);
    const double cellsRight = matrix.right();
    if (showsSideBar()) {
        paintSideBar(painter, geometry, cellsRight + 2 * kGap, target.adjusted(0, titleHeight, 0, 0));
        const QRectF legend = sideBarLegendRect(geometry, target, base, painter.device());
        painter.setPen(ink());
        painter.drawText(legend, Qt::AlignLeft | Qt::AlignVCenter,
                         metrics.elidedText(sideBarLegend(), Qt::ElideRight, legend.width()));
    }
    if (m_style.showColorBar && m_style.colorBarBelow) {
        const double top =
            (showsSideBar() ? sideBarLegendRect(geometry, target, base, painter.device()).bottom()
                            : matrix.bottom()) +
            kGap;
        paintColorBar(painter, QRectF(matrix.left(), top, std::max(20.0, matrix.width()), kColorBarWidth));
    } else if (m_style.showColorBar) {
        paintColorBar(painter,
                      QRectF(cellsRight + sideBarWidth(metrics.ascent() + metrics.descent()) + 2 * kGap,
                             area.top(), kColorBarWidth, std::max(20.0, matrix.height())));
    }
}

double HeatmapPainter::colorBarBelowHeight(const QFontMetricsF& metrics) const
{
    if (!m_style.showColorBar || !m_style.colorBarBelow) return 0.0;
    // A gap, the bar, its ticks and their labels, the caption's line.
    return kGap + kColorBarWidth + 3 + metrics.height() +
           (m_data.colorBarCaption.isEmpty() ? 0.0 : metrics.height()) + kGap / 2;
}

QRgb HeatmapPainter::cellColor(const HeatmapData& cells, int row, int col) const
{
    if (cells.isMasked(row, col)) return maskedColor();
    if (cells.isExcluded(col)) return excludedColor();
    const double t = cells.colorParameter(row, col, m_style.scale);
    return cells.signedValues ? divergingColor(t) : colorMapColor(m_style.colorMap, t);
}

void HeatmapPainter::paintCells(QPainter& painter, const HeatmapGeometry& geometry,
                                const HeatmapData& cells) const
{
    int row0, row1, col0, col1;
    geometry.visibleRange(row0, row1, col0, col1);
    // Few visible cells: one rectangle each (crisp in SVG/PDF, room for numbers). Many: one image pixel per
    // cell, scaled, so 2,048 × 2,048 stays a few drawImage calls.
    const bool unitCells = cells.rowStarts.empty() && cells.colStarts.empty();
    if (!unitCells || (row1 - row0) * (col1 - col0) > 96 * 96) {
        paintCellImage(painter, geometry, cells);
        return;
    }
    painter.save();
    painter.setClipRect(geometry.area());
    painter.setPen(Qt::NoPen);
    const QBrush maskBrush(QColor(200, 200, 200), Qt::BDiagPattern);
    QFont valueFont = painter.font();
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
                const bool darkCell = cells.signedValues                        ? std::abs(t) > 0.6
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

void HeatmapPainter::paintCellImage(QPainter& painter, const HeatmapGeometry& geometry,
                                    const HeatmapData& cells) const
{
    if (cells.rows <= 0 || cells.cols <= 0) return;
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
    if (r0 >= r1 || c0 >= c1) return;
    QImage image(c1 - c0, r1 - r0, QImage::Format_RGB32);
    for (int r = r0; r < r1; ++r) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(r - r0));
        for (int c = c0; c < c1; ++c)
            line[c - c0] = cellColor(cells, r, c);
    }
    // The image is drawn in pieces split at the wide (special) cells, whose pixels are not those of their
    // neighbours: each piece is a uniform run of cells, scaled into the rectangle the geometry gives it.
    auto pieces = [](int first, int last, const std::vector<bool>& flags, auto start, auto end) {
        std::vector<std::pair<int, int>> out; // [begin, end) block indices
        int begin = first;
        for (int i = first; i < last; ++i) {
            bool wide = false;
            for (int m = start(i); m < end(i) && !wide; ++m)
                wide = size_t(m) < flags.size() && flags[size_t(m)];
            if (!wide) continue;
            if (begin < i) out.emplace_back(begin, i);
            out.emplace_back(i, i + 1);
            begin = i + 1;
        }
        if (begin < last) out.emplace_back(begin, last);
        return out;
    };
    auto flagsOf = [](const std::vector<int>& indices, int count) {
        std::vector<bool> flags(size_t(std::max(0, count)), false);
        for (int i : indices)
            flags[size_t(i)] = true;
        return flags;
    };
    const bool wideCells = geometry.hasWideCells();
    const std::vector<bool> none;
    const std::vector<bool> wideRows = flagsOf(geometry.wideRows(), m_data.rows);
    const std::vector<bool> wideCols = flagsOf(geometry.wideCols(), m_data.cols);
    const auto rowPieces = pieces(
        r0, r1, wideCells ? wideRows : none, [&](int r) { return cells.matrixRow(r); },
        [&](int r) { return cells.matrixRowEnd(r); });
    const auto colPieces = pieces(
        c0, c1, wideCells ? wideCols : none, [&](int c) { return cells.matrixCol(c); },
        [&](int c) { return cells.matrixColEnd(c); });
    painter.save();
    painter.setClipRect(geometry.area());
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    // PDF would otherwise store the cell image as JPEG, whose chroma subsampling smears the cells.
    painter.setRenderHint(QPainter::LosslessImageRendering, true);
    for (const auto& [pr0, pr1] : rowPieces) {
        for (const auto& [pc0, pc1] : colPieces) {
            const QRectF topLeft = geometry.cellRect(cells.matrixRow(pr0), cells.matrixCol(pc0));
            const QRectF bottomRight =
                geometry.cellRect(cells.matrixRowEnd(pr1 - 1) - 1, cells.matrixColEnd(pc1 - 1) - 1);
            const QRectF source(pc0 - c0, pr0 - r0, pc1 - pc0, pr1 - pr0);
            if (rowPieces.size() == 1 && colPieces.size() == 1)
                painter.drawImage(QRectF(topLeft.topLeft(), bottomRight.bottomRight()), image);
            else
                painter.drawImage(QRectF(topLeft.topLeft(), bottomRight.bottomRight()),
                                  image.copy(source.toRect()));
        }
    }
    if (m_data.causal && geometry.cellWidth() >= 3) paintMaskHatch(painter, geometry);
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

QStringList HeatmapPainter::sideBarHeaders() const
{
    QStringList headers{QStringLiteral("→ %1").arg(m_data.colLabels.value(0))};
    if (!m_data.sideSep.empty()) headers << QStringLiteral("→ [SEP]");
    return headers;
}

double HeatmapPainter::sideBarParameter(double value, int row) const
{
    // On the colour bar's axis: the scale of the cells, so a side bar cell reads like a matrix cell.
    switch (m_style.scale) {
    case HeatmapScale::Absolute:
        break;
    case HeatmapScale::Log:
        return std::clamp((std::log10(std::max(value, 1e-4)) + 4.0) / 4.0, 0.0, 1.0);
    case HeatmapScale::RowMax: {
        double maximum = 0;
        if (size_t(row) < m_data.rowMax.size())
            maximum = m_data.rowMax[size_t(row)];
        else if (m_data.values.size() == size_t(m_data.rows) * size_t(m_data.cols) && row < m_data.rows)
            maximum = *std::max_element(m_data.values.begin() + qsizetype(row) * m_data.cols,
                                        m_data.values.begin() + qsizetype(row + 1) * m_data.cols);
        if (maximum > 0) return std::clamp(value / maximum, 0.0, 1.0);
        break; // no row maximum known (a tiled frame): the probability itself
    }
    }
    return std::clamp(value, 0.0, 1.0);
}

void HeatmapPainter::paintSideBar(QPainter& painter, const HeatmapGeometry& geometry, double left,
                                  QRectF room) const
{
    // Per query row: attention to the first token, then to [SEP]; the header names each column.
    int row0, row1, col0, col1;
    geometry.visibleRange(row0, row1, col0, col1);
    const std::vector<const std::vector<float>*> columns =
        m_data.sideSep.empty() ? std::vector<const std::vector<float>*>{&m_data.sideFirst}
                               : std::vector<const std::vector<float>*>{&m_data.sideFirst, &m_data.sideSep};
    const QStringList headers = sideBarHeaders();
    painter.save();
    painter.setClipping(false);
    const QFontMetricsF pitchMetrics(painter.font(), painter.device());
    const double pitch = sideBarPitch(pitchMetrics.ascent() + pitchMetrics.descent());
    // The headers are key labels: the key labels' font, in the room the layout made above the cells.
    painter.setFont(fontAtPixels(painter.font(),
                                 labelLayout(geometry, painter.device(), painter.font()).cols.pixelSize,
                                 painter.device()));
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double roomAbove =
        std::max(4.0, (geometry.area().top() - kGap / 2 - room.top() - metrics.height() * 0.5) / kSin60);
    for (size_t k = 0; k < columns.size(); ++k) {
        const double x = left + double(k) * pitch;
        const std::vector<float>& values = *columns[k];
        for (int r = row0; r < row1 && size_t(r) < values.size(); ++r) {
            const QRectF cell = geometry.cellRect(r, 0);
            const QRectF rect(x, std::max(cell.top(), geometry.area().top()), kSideBarColumn,
                              std::min(cell.bottom(), geometry.area().bottom()) -
                                  std::max(cell.top(), geometry.area().top()));
            painter.fillRect(rect, QColor::fromRgb(colorMapColor(
                                       m_style.colorMap, sideBarParameter(double(values[size_t(r)]), r))));
        }
        painter.setPen(ink());
        painter.save();
        painter.translate(x + kSideBarColumn / 2, geometry.area().top() - kGap / 2);
        painter.rotate(-60);
        const QString text = metrics.elidedText(headers.at(int(k)), Qt::ElideRight, roomAbove);
        painter.drawText(QRectF(0, -metrics.height() / 2,
                                std::min(roomAbove, metrics.horizontalAdvance(text) + 1), metrics.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, text);
        painter.restore();
    }
    painter.restore();
}

void HeatmapPainter::paintColorBar(QPainter& painter, QRectF bar) const
{
    ColorBarStyle style;
    style.colorAt = [this](double t) {
        return m_data.signedValues ? divergingColor(2 * t - 1) : colorMapColor(m_style.colorMap, t);
    };
    style.ink = ink();
    style.lineWidth = m_style.lineWidth;
    const QFontMetricsF metrics(painter.font(), painter.device());
    style.captionOffset = 5 + metrics.horizontalAdvance(QStringLiteral("−0.000")) + kGap;
    const auto ticks =
        m_data.signedValues ? signedColorBarTicks(m_data.signedRange) : colorBarTicks(m_style.scale);
    if (m_style.colorBarBelow)
        paintColorBarAcross(painter, bar, style, ticks, m_data.colorBarCaption);
    else
        attnscope::paintColorBar(painter, bar, style, ticks, m_data.colorBarCaption);
}

QImage renderHeatmapImage(const HeatmapData& data, const HeatmapStyle& style, int width, int height)
{
    QImage image(width, height, QImage::Format_ARGB32_Premultiplied);
    image.fill(style.dark ? Qt::black : Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::TextAntialiasing);
    HeatmapPainter(data, style).paint(painter, QRectF(8, 8, width - 16, height - 16));
    return image;
}

} // namespace attnscope
