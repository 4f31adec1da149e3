#include "explorer/comparisonpage.h"

#include "explorer/heatmapwidget.h"
#include "render/heatmappainter.h"

#include <QFont>
#include <QFontMetricsF>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <limits>

namespace attnscope {

QRectF comparisonPageTitleRect(const QPaintDevice* device, const QRectF& area)
{
    QFont titleFont;
    titleFont.setBold(true);
    const QFontMetricsF metrics(titleFont, const_cast<QPaintDevice*>(device));
    return QRectF(area.left() + 8, area.top() + 4, area.width() - 16, metrics.height() * 1.4);
}

std::vector<ComparisonPagePane> comparisonPageLayout(const std::vector<HeatmapWidget*>& panes,
                                                     const QPaintDevice* device, const QRectF& area)
{
    // Each pane painted afresh for the page (its own layout, at the page's resolution), in the grid shape
    // that makes the panes largest there: labels sized for the page, not scaled screen pixels. Long inputs
    // (tiled panes hold only the block on screen) have none: paintComparisonPage draws the panes as shown
    // then.
    std::vector<ComparisonPagePane> out;
    std::vector<const HeatmapWidget*> shown;
    for (const HeatmapWidget* pane : panes) {
        if (pane->isTiled()) return {};
        if (pane->isVisible()) shown.push_back(pane);
    }
    if (shown.empty()) return {};
    const QRectF titleRect = comparisonPageTitleRect(device, area);
    const QRectF panesArea(area.left(), titleRect.bottom() + 4, area.width(),
                           area.bottom() - titleRect.bottom() - 4);
    // A page cannot scroll: of the grid shapes (largest square panes first), the first in which every pane
    // keeps every label; none such (long inputs): the largest.
    const int count = int(shown.size());
    std::vector<std::pair<int, int>> shapes;
    for (int rows = 1; rows <= count; ++rows)
        shapes.emplace_back(rows, (count + rows - 1) / rows);
    auto side = [&](const std::pair<int, int>& s) {
        return std::min(panesArea.width() / s.second, panesArea.height() / s.first);
    };
    std::stable_sort(shapes.begin(), shapes.end(),
                     [&](const auto& a, const auto& b) { return side(a) > side(b); });
    auto layoutAs = [&](std::pair<int, int> shape, bool* everyLabel) {
        const auto [rows, cols] = shape;
        const double w = panesArea.width() / cols, h = panesArea.height() / rows;
        std::vector<ComparisonPagePane> placed;
        *everyLabel = true;
        // Each pane's own fit first, then every pane at the smallest cell size (as on screen).
        double smallest = 0;
        for (int pass = 0; pass < 2; ++pass) {
            placed.clear();
            for (size_t i = 0; i < shown.size(); ++i) {
                const QRectF cell(panesArea.left() + (int(i) % cols) * w,
                                  panesArea.top() + (int(i) / cols) * h, w, h);
                const QRectF rect = cell.adjusted(6, 4, -6, -4);
                HeatmapStyle style = shown[i]->heatmapStyle();
                style.dark = false;
                style.maximumCellPixels = pass == 0 ? 0.0 : smallest;
                const HeatmapPainter painter(shown[i]->data(), style);
                const HeatmapGeometry geometry = painter.layout(rect, QFont(), device);
                if (pass == 1)
                    *everyLabel = *everyLabel && painter.labelsEveryToken(geometry, device, QFont());
                placed.push_back(ComparisonPagePane{shown[i], rect, geometry});
                if (pass == 0)
                    smallest = i == 0 ? geometry.cellWidth() : std::min(smallest, geometry.cellWidth());
            }
        }
        return placed;
    };
    for (const auto& shape : shapes) {
        bool everyLabel = false;
        out = layoutAs(shape, &everyLabel);
        if (everyLabel) return out;
    }
    bool everyLabel = false;
    out = layoutAs(shapes.front(), &everyLabel);
    return out;
}

QSize comparisonExportPageSize(const std::vector<HeatmapWidget*>& panes, QSize page)
{
    // The exporter's pages are 96 dpi (PNG at any scale factor, SVG, PDF).
    QImage probe(1, 1, QImage::Format_ARGB32_Premultiplied);
    probe.setDotsPerMeterX(int(std::lround(96 / 0.0254)));
    probe.setDotsPerMeterY(int(std::lround(96 / 0.0254)));
    auto everyLabel = [&](int width, int height) {
        const std::vector<ComparisonPagePane> placed =
            comparisonPageLayout(panes, &probe, QRectF(0, 0, width, height));
        if (placed.empty()) return false;
        for (const ComparisonPagePane& pane : placed) {
            HeatmapStyle style = pane.pane->heatmapStyle();
            style.dark = false;
            if (!HeatmapPainter(pane.pane->data(), style).labelsEveryToken(pane.geometry, &probe, QFont()))
                return false;
        }
        return true;
    };
    int width = page.width();
    while (width <= 3 * page.width() && !everyLabel(width, page.height()))
        width += 20;
    if (width > 3 * page.width()) return page;
    // The panes' matrices are square: on a page widened for the labels (or any page wider than the panes
    // need) they run out of width before height and would leave a blank band at the bottom. The page
    // ends a margin below the lowest matrix, kept only where the cells stay as large and every label stays.
    auto cellSize = [&](int height) {
        double smallest = std::numeric_limits<double>::max();
        for (const ComparisonPagePane& pane :
             comparisonPageLayout(panes, &probe, QRectF(0, 0, width, height)))
            smallest = std::min(smallest, pane.geometry.cellWidth());
        return smallest;
    };
    const double fullCells = cellSize(page.height());
    double bottom = 0;
    for (const ComparisonPagePane& pane :
         comparisonPageLayout(panes, &probe, QRectF(0, 0, width, page.height())))
        bottom = std::max(bottom, pane.geometry.area().top() + pane.geometry.matrixHeight());
    constexpr double kBottomMargin = 16; // the colour bar's last tick label, then white
    for (int height = int(std::ceil(bottom + kBottomMargin)); height < page.height(); height += 10) {
        if (cellSize(height) >= fullCells - 1e-9 && everyLabel(width, height)) return QSize(width, height);
    }
    return QSize(width, page.height());
}

void paintComparisonPage(QPainter& painter, const QRectF& area, const std::vector<HeatmapWidget*>& panes,
                         const QWidget* host, const QString& title, const QString& emptyNote)
{
    painter.save();
    painter.fillRect(area, Qt::white);
    QRect bounds;
    for (const HeatmapWidget* pane : panes)
        if (pane->isVisible()) bounds |= QRect(pane->mapTo(host, QPoint(0, 0)), pane->size());
    if (bounds.isEmpty()) {
        painter.setPen(Qt::black);
        painter.drawText(area, Qt::AlignCenter, emptyNote);
        painter.restore();
        return;
    }
    // A title line (what is compared, on which model), then the panes on the rest of the page.
    QFont titleFont = painter.font();
    titleFont.setBold(true);
    painter.setFont(titleFont);
    const QFontMetricsF titleMetrics(titleFont, painter.device());
    const QRectF titleRect = comparisonPageTitleRect(painter.device(), area);
    painter.setPen(Qt::black);
    painter.drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter,
                     titleMetrics.elidedText(title, Qt::ElideRight, titleRect.width()));
    titleFont.setBold(false);
    painter.setFont(titleFont);
    const QRectF panesArea(area.left(), titleRect.bottom() + 4, area.width(),
                           area.bottom() - titleRect.bottom() - 4);
    const std::vector<ComparisonPagePane> page = comparisonPageLayout(panes, painter.device(), area);
    if (!page.empty()) {
        for (const ComparisonPagePane& pane : page) {
            HeatmapStyle style = pane.pane->heatmapStyle();
            style.dark = false;
            HeatmapPainter(pane.pane->data(), style).paint(painter, pane.rect, &pane.geometry);
        }
        painter.restore();
        return;
    }
    // Long inputs (tiled panes hold only the block on screen): the panes as drawn, scaled to the page.
    const double scale = std::min(panesArea.width() / bounds.width(), panesArea.height() / bounds.height());
    painter.translate(panesArea.left() + (panesArea.width() - bounds.width() * scale) / 2,
                      panesArea.top() + (panesArea.height() - bounds.height() * scale) / 2);
    painter.scale(scale, scale);
    for (HeatmapWidget* pane : panes)
        if (pane->isVisible())
            pane->render(&painter, pane->mapTo(host, QPoint(0, 0)) - bounds.topLeft(), QRegion(),
                         QWidget::DrawChildren);
    painter.restore();
}

} // namespace attnscope
