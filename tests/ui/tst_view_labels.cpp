// Labels and tooltips in the main window itself, as a user sees them: at 1280×800 and 1920×1080 every
// token up to 64 keeps its label in the heatmap (staggered in two lanes when one lane would have to
// drop some), labels in one lane never touch, and hovering a cell or a grid thumbnail tells what it is.

#include "explorer/comparisonwidget.h"
#include "explorer/headgridwidget.h"
#include "explorer/heatmapwidget.h"
#include "explorer/syntheticengine.h"
#include "mainwindow.h"
#include "render/axislabels.h"
#include "render/headgriddata.h"
#include "render/headgridlayout.h"
#include "render/heatmappainter.h"
#include "render/numberformat.h"
#include "ui/support/shownwindow.h"

#include <QComboBox>
#include <QHelpEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QStringList>
#include <QTabWidget>
#include <QToolTip>
#include <QtTest>
#include <cmath>

using namespace attnscope;

namespace {

const QStringList kWords =
    QStringLiteral("the cat sat on the mat and looked at the dog which was sleeping near the door "
                   "while rain fell softly outside the old house by the river")
        .split(QLatin1Char(' '));

QString words(int count)
{
    QStringList out;
    for (int i = 0; i < count; ++i)
        out << kWords.at(i % kWords.size());
    return out.join(QLatin1Char(' '));
}

// Picks the engine (an index from findModel or addEngine), runs `text` on it and waits until the window
// shows that run.
bool runOn(MainWindow& window, int engine, const QString& text)
{
    if (engine < 0 || !window.selectEngine(engine)) return false;
    window.setTexts(text);
    return QTest::qWaitFor([&] { return window.currentResult() && window.currentResult()->textA == text; },
                           60000) &&
           window.runner()->waitForIdle(60000);
}

// The 16-layer, 32-head synthetic decoder (a llama-sized grid), added to the window's models.
int addThirtyTwoHeadDecoder(MainWindow& window)
{
    SyntheticEngine::Config config;
    config.layers = 16;
    config.heads = 32;
    config.causal = true;
    return window.addEngine(std::make_shared<SyntheticEngine>(config));
}

// The 16×32 synthetic decoder in a 1280×800 window, run on one sentence and its grid sorted by sink mass (so
// each row has its own head order): the grid's scroll area, or null if any step failed.
QScrollArea* showSortedThirtyTwoHeadGrid(MainWindow& window)
{
    const int engine = addThirtyTwoHeadDecoder(window);
    if (!showSettled(window, QSize(1280, 800)) ||
        !runOn(window, engine, QStringLiteral("The cat sat on the mat and looked at the dog for a while.")))
        return nullptr;
    window.grid()->setSortMetric(HeadMetric::SinkMass);
    QCoreApplication::processEvents();
    return window.findChild<QScrollArea*>(QStringLiteral("headGridScroll"));
}

// Runs `count` repeated words; returns the run's token count (-1 on a timeout).
int runWords(MainWindow& window, int count)
{
    const QString text = words(count);
    window.setTexts(text);
    if (!QTest::qWaitFor([&] { return window.currentResult() && window.currentResult()->textA == text; },
                         60000))
        return -1;
    if (!window.runner()->waitForIdle(60000)) return -1;
    return int(window.currentResult()->run.tokens.size());
}

// Shows the longest text of repeated words whose run has at most `maxTokens` tokens; returns its count.
int showAtMostTokens(MainWindow& window, int maxTokens)
{
    int low = 1, high = maxTokens; // a word is at least one token
    while (low < high) {
        const int middle = (low + high + 1) / 2;
        const int tokens = runWords(window, middle);
        if (tokens < 0) return -1;
        if (tokens <= maxTokens)
            low = middle;
        else
            high = middle - 1;
    }
    return runWords(window, low);
}

// The window shown at `size` and settled, the built-in decoder selected, showing its longest text of at most
// `maxTokens` tokens (showAtMostTokens): that text's count, or -1 where the window or the model failed.
int decoderShowingAtMost(MainWindow& window, QSize size, int maxTokens)
{
    if (!showSettled(window, size) ||
        !window.selectEngine(window.findModel(QStringLiteral("tiny-llama-en-tr"))))
        return -1;
    return showAtMostTokens(window, maxTokens);
}

// Labels of one lane are at least a line apart (slanted key labels: the distance across the slant).
void verifyLanesDoNotTouch(const AxisLabelPlan& plan, const HeatmapGeometry& geometry, bool rows,
                           double lineHeightPerPixel)
{
    const double line = plan.pixelSize * lineHeightPerPixel;
    const double across = rows ? 1.0 : std::sin(M_PI / 3);
    for (int lane = 0; lane < plan.lanes; ++lane) {
        double previous = -1e9;
        for (size_t k = size_t(lane); k < plan.shown.size(); k += size_t(plan.lanes)) {
            const QRectF cell = geometry.cellRect(rows ? plan.shown[k] : 0, rows ? 0 : plan.shown[k]);
            const double centre = rows ? cell.center().y() : cell.center().x();
            QVERIFY2((centre - previous) * across >= line - 1e-6,
                     qPrintable(QStringLiteral("lane %1, label %2: %3 px from the previous, line %4 px")
                                    .arg(lane)
                                    .arg(plan.shown[k])
                                    .arg((centre - previous) * across)
                                    .arg(line)));
            previous = centre;
        }
    }
}

} // namespace

class TestViewLabels : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void planUsesTwoLanesBeforeThinning()
    {
        // 60 cells 6 px apart: one lane would need 7 × 1.2 = 8.4 px; two lanes have 12 px per label.
        AxisLabelRequest r;
        for (int i = 0; i < 60; ++i)
            r.centers.push_back(3 + 6.0 * i);
        r.preferredPixelSize = 12;
        r.minimumPixelSize = 7;
        r.lineHeightPerPixel = 1.2;
        const AxisLabelPlan oneLane = planAxisLabels(r);
        QCOMPARE(oneLane.lanes, 1);
        QVERIFY(oneLane.step > 1); // without room for a second lane the labels are thinned
        r.maxLanes = 2;
        const AxisLabelPlan twoLanes = planAxisLabels(r);
        QCOMPARE(twoLanes.lanes, 2);
        QCOMPARE(int(twoLanes.shown.size()), 60);
        QVERIFY(std::abs(twoLanes.pixelSize - 10.0) < 1e-9); // 2 × 6 / 1.2, under the preferred 12
        QCOMPARE(twoLanes.laneOf(0), 0);
        QCOMPARE(twoLanes.laneOf(1), 1);
        // Where one lane fits, it stays one lane (no leader lines without need).
        AxisLabelRequest wide = r;
        for (size_t i = 0; i < wide.centers.size(); ++i)
            wide.centers[i] = 3 + 9.0 * double(i);
        QCOMPARE(planAxisLabels(wide).lanes, 1);
        // Two lanes that still do not fit: thinned, in one lane.
        AxisLabelRequest dense = r;
        for (size_t i = 0; i < dense.centers.size(); ++i)
            dense.centers[i] = 3 + 3.0 * double(i);
        const AxisLabelPlan thinned = planAxisLabels(dense);
        QCOMPARE(thinned.lanes, 1);
        QVERIFY(thinned.step > 1);
    }

    void everyTokenLabelledInTheWindow_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("tokens");
        for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)})
            for (int tokens : {20, 40, 64})
                QTest::addRow("%dx%d, %d tokens", size.width(), size.height(), tokens) << size << tokens;
    }
    void everyTokenLabelledInTheWindow()
    {
        QFETCH(QSize, size);
        QFETCH(int, tokens);
        MainWindow window;
        const int shown = decoderShowingAtMost(window, size, tokens);
        QVERIFY2(shown > tokens - 4 && shown <= tokens, qPrintable(QString::number(shown)));
        QCoreApplication::processEvents();
        HeatmapWidget* heatmap = window.heatmap();
        QVERIFY(heatmap->isVisible());
        QCOMPARE(heatmap->data().rows, shown);
        const HeatmapGeometry& geometry = heatmap->geometryForTests();
        const HeatmapPainter painter(heatmap->data(), heatmap->heatmapStyle());
        const auto labels = painter.labelLayout(geometry, heatmap, heatmap->font());
        QCOMPARE(int(labels.rows.shown.size()), shown);
        QCOMPARE(int(labels.cols.shown.size()), shown);
        QVERIFY(labels.rows.pixelSize >= kMinimumLabelPixelSize - 1e-9);
        QVERIFY(labels.cols.pixelSize >= kMinimumLabelPixelSize - 1e-9);
        QFont unitFont = heatmap->font();
        unitFont.setPointSizeF(100 * 72.0 / heatmap->logicalDpiY());
        const QFontMetricsF unit(unitFont, heatmap);
        const double lineHeightPerPixel = (unit.ascent() + unit.descent()) / 100.0;
        verifyLanesDoNotTouch(labels.rows, geometry, true, lineHeightPerPixel);
        verifyLanesDoNotTouch(labels.cols, geometry, false, lineHeightPerPixel);
    }

    // The comparison tab at 1280×800 and 1920×1080: two heads side by side and the difference view (three
    // panes) keep every token's label up to 64 tokens; where the tab is too narrow for that, the panes
    // keep their width and the pane area scrolls sideways (every pane reachable).
    void everyTokenLabelledInTheComparison_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("tokens");
        QTest::addColumn<int>("mode");
        for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)})
            for (int tokens : {40, 64})
                for (int mode :
                     {int(ComparisonWidget::Mode::SideBySide), int(ComparisonWidget::Mode::Difference)})
                    QTest::addRow("%dx%d, %d tokens, %s", size.width(), size.height(), tokens,
                                  mode == 0 ? "side by side" : "difference")
                        << size << tokens << mode;
    }
    void everyTokenLabelledInTheComparison()
    {
        QFETCH(QSize, size);
        QFETCH(int, tokens);
        QFETCH(int, mode);
        MainWindow window;
        const int shown = decoderShowingAtMost(window, size, tokens);
        QVERIFY2(shown > tokens - 4 && shown <= tokens, qPrintable(QString::number(shown)));
        ComparisonWidget* comparison = window.comparison();
        window.tabs()->setCurrentWidget(comparison);
        comparison->setMode(ComparisonWidget::Mode(mode));
        comparison->setHeads({{0, 0}, {0, 1}});
        QTRY_VERIFY(!comparison->panes().empty() && comparison->panes().front()->isVisible());
        QCoreApplication::processEvents();
        const int expectedPanes = mode == int(ComparisonWidget::Mode::Difference) ? 3 : 2;
        QCOMPARE(int(comparison->panes().size()), expectedPanes);
        const QWidget* viewport = comparison->paneScrollArea()->viewport();
        QVERIFY(viewport->height() > 300);
        for (HeatmapWidget* pane : comparison->panes()) {
            QCOMPARE(pane->data().rows, shown);
            const HeatmapPainter painter(pane->data(), pane->heatmapStyle());
            const auto labels = painter.labelLayout(pane->geometryForTests(), pane, pane->font());
            QCOMPARE(int(labels.rows.shown.size()), shown);
            QCOMPARE(int(labels.cols.shown.size()), shown);
            QVERIFY(labels.rows.pixelSize >= kMinimumLabelPixelSize - 1e-9);
            QVERIFY(labels.cols.pixelSize >= kMinimumLabelPixelSize - 1e-9);
            // Every pane lies within the scrolled area's content, at the viewport's height.
            QVERIFY(pane->height() <= viewport->height());
            QVERIFY(pane->geometry().right() <= comparison->paneScrollArea()->widget()->width());
        }
    }

    // Heads are compared by eye: every comparison pane draws its matrix at one cell size, whichever pane
    // carries the shared colour bar (or the difference's own), at 1280×800 and 1600×1000 with 2, 3 and 4
    // panes. That size is the smallest pane's own fit (measured here with no limit), so no pane is
    // smaller than its room makes it.
    void comparisonPanesShareOneCellSize_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("count");
        for (const QSize size : {QSize(1280, 800), QSize(1600, 1000)}) {
            for (int count : {2, 3, 4})
                QTest::addRow("%dx%d, %d heads side by side", size.width(), size.height(), count)
                    << size << int(ComparisonWidget::Mode::SideBySide) << count;
            QTest::addRow("%dx%d, difference", size.width(), size.height())
                << size << int(ComparisonWidget::Mode::Difference) << 2;
        }
    }
    void comparisonPanesShareOneCellSize()
    {
        QFETCH(QSize, size);
        QFETCH(int, mode);
        QFETCH(int, count);
        MainWindow window;
        const int shown = decoderShowingAtMost(window, size, 16);
        QVERIFY(shown > 8);
        ComparisonWidget* comparison = window.comparison();
        window.tabs()->setCurrentWidget(comparison);
        comparison->setMode(ComparisonWidget::Mode(mode));
        std::vector<std::pair<int, int>> heads;
        for (int i = 0; i < count; ++i)
            heads.emplace_back(0, i);
        comparison->setHeads(heads);
        QTRY_VERIFY(!comparison->panes().empty() && comparison->panes().front()->isVisible());
        QCoreApplication::processEvents();
        const int expected = mode == int(ComparisonWidget::Mode::Difference) ? 3 : count;
        QCOMPARE(int(comparison->panes().size()), expected);
        double smallestOwnFit = 1e9;
        for (HeatmapWidget* pane : comparison->panes()) {
            HeatmapStyle own = pane->heatmapStyle();
            own.maximumCellPixels = 0;
            smallestOwnFit = std::min(
                smallestOwnFit, HeatmapPainter(pane->data(), own)
                                    .layout(QRectF(pane->rect()).adjusted(8, 8, -8, -8), pane->font(), pane)
                                    .cellWidth());
        }
        QVERIFY(smallestOwnFit > 8);
        for (HeatmapWidget* pane : comparison->panes()) {
            const HeatmapGeometry& geometry = pane->geometryForTests();
            QVERIFY2(std::abs(geometry.cellWidth() - smallestOwnFit) < 1e-6,
                     qPrintable(QStringLiteral("%1 px cells against %2 px")
                                    .arg(geometry.cellWidth())
                                    .arg(smallestOwnFit)));
            QVERIFY(std::abs(geometry.matrixWidth() -
                             comparison->panes().front()->geometryForTests().matrixWidth()) < 1e-6);
            QVERIFY(geometry.isFitted());
        }
    }

    void legendEntriesWrapInsteadOfDropping()
    {
        // Entries 50, 60, 70 px wide with 10 px gaps on lines 120 px wide from x = 8: 50 and 60 fit the first
        // line (8 + 50 + 10 + 60 = 128 = 8 + 120), 70 goes to the next.
        const auto placed = flowLegend({50, 60, 70}, 8, 8, 120, 10);
        QCOMPARE(int(placed.size()), 3);
        QCOMPARE(placed[0].x, 8.0);
        QCOMPARE(placed[1].x, 68.0);
        QCOMPARE(placed[1].line, 0);
        QCOMPARE(placed[2].x, 8.0);
        QCOMPARE(placed[2].line, 1);
        QCOMPARE(legendLineCount(placed), 2);
        // After a metric legend 100 px wide the first entry already starts the second line; one wider than a
        // line gets a line of its own and is still there.
        const auto after = flowLegend({50, 300, 20}, 8, 108, 120, 10);
        QCOMPARE(after[0].line, 1);
        QCOMPARE(after[1].line, 2);
        QCOMPARE(after[2].line, 3);
        QCOMPARE(legendLineCount(flowLegend({}, 8, 8, 120, 10)), 0);
    }

    // Head badges on small thumbnails: the most the thumbnail has room for ("H31 ≈", "H31", "31") at the
    // largest font down to 6 px, measured here independently; thumbnails under ~12 px carry none.
    void headBadgesShortenOnSmallThumbnails()
    {
        QImage device(10, 10, QImage::Format_ARGB32_Premultiplied);
        const QFont base;
        const QStringList candidates{QStringLiteral("H31 ≈"), QStringLiteral("H31"), QStringLiteral("31")};
        auto fits = [&](const HeadBadgeFit& fit, double side) {
            QFont font = base;
            font.setPointSizeF(fit.pixelSize * 72.0 / device.logicalDpiY());
            const QFontMetricsF metrics(font, &device);
            return metrics.horizontalAdvance(fit.text) + 2 <= side &&
                   metrics.ascent() + metrics.descent() <= 0.6 * side;
        };
        const HeadBadgeFit large = fitHeadBadge(candidates, QSizeF(60, 60), 12, base, &device);
        QCOMPARE(large.text, candidates.front());
        QCOMPARE(large.pixelSize, 12.0);
        QString previous = large.text;
        int shortened = 0;
        for (double side = 40; side >= 12; side -= 2) {
            const HeadBadgeFit fit = fitHeadBadge(candidates, QSizeF(side, side), 12, base, &device);
            QVERIFY2(!fit.text.isEmpty(), qPrintable(QString::number(side)));
            QVERIFY(candidates.contains(fit.text));
            QVERIFY(fit.pixelSize >= kMinimumBadgePixelSize);
            QVERIFY2(fits(fit, side), qPrintable(QStringLiteral("%1 at %2 px").arg(fit.text).arg(side)));
            // Never a longer text on a smaller thumbnail.
            QVERIFY(candidates.indexOf(fit.text) >= candidates.indexOf(previous));
            shortened += fit.text != previous;
            previous = fit.text;
        }
        QVERIFY(shortened >= 1);
        QCOMPARE(previous, QStringLiteral("31")); // the number is what the smallest thumbnails keep
        QVERIFY(fitHeadBadge(candidates, QSizeF(8, 8), 12, base, &device).text.isEmpty());
    }

    // Every head keeps its number, whatever the pane: for 8 to 40 heads and panes from 1,000 down to
    // 250 px, thumbnails are never smaller than minimumBadgedThumbnailSize, each one carries a badge with
    // its head's number whose strip (measured here) lies inside it, thumbnails stay apart, and the area
    // minimumArea gives (what the widget asks of its scroll area) holds them all.
    void headNumbersFitEveryPane_data()
    {
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("layers");
        for (const auto& [heads, layers] : {std::pair{8, 12}, {16, 24}, {32, 16}, {40, 48}})
            QTest::newRow(qPrintable(QStringLiteral("%1 heads × %2 layers").arg(heads).arg(layers)))
                << heads << layers;
    }
    void headNumbersFitEveryPane()
    {
        QFETCH(int, heads);
        QFETCH(int, layers);
        QImage device(10, 10, QImage::Format_ARGB32_Premultiplied);
        const QFont base;
        const double minimum = minimumBadgedThumbnailSize(heads, base, &device);
        // The 6-px font's height takes at most 60% of the side, the widest number fits across it.
        QFont six = base;
        six.setPointSizeF(kMinimumBadgePixelSize * 72.0 / device.logicalDpiY());
        const QFontMetricsF sixMetrics(six, &device);
        QVERIFY(minimum * 0.6 >= sixMetrics.ascent() + sixMetrics.descent());
        QVERIFY(minimum >= sixMetrics.horizontalAdvance(QString::number(heads - 1)) + 2);
        QVERIFY2(minimum <= 16, qPrintable(QString::number(minimum))); // no larger than it needs to be
        for (int width = 1000; width >= 250; width -= 50)
            for (int height : {600, 250}) {
                const QRectF area(4, 4, width - 8, height - 8);
                const HeadGridLayout grid(layers, heads, area, 34, 16, minimum);
                const QRectF needed(
                    area.topLeft(),
                    HeadGridLayout::minimumArea(layers, heads, minimum).expandedTo(area.size()));
                for (int l = 0; l < layers; ++l)
                    for (int slot = 0; slot < heads; ++slot) {
                        const QRectF t = grid.thumbnailRect(l, slot);
                        const QString where =
                            QStringLiteral("L%1 slot %2 at %3×%4").arg(l).arg(slot).arg(width).arg(height);
                        QVERIFY2(t.width() >= minimum && t.height() >= minimum, qPrintable(where));
                        QVERIFY2(needed.contains(t), qPrintable(where));
                        if (slot > 0)
                            QVERIFY2(grid.thumbnailRect(l, slot - 1).right() < t.left(), qPrintable(where));
                        if (l > 0)
                            QVERIFY2(grid.thumbnailRect(l - 1, slot).bottom() < t.top(), qPrintable(where));
                        const int h = grid.headAt(l, slot);
                        const HeadBadgeFit badge =
                            fitHeadBadge({QStringLiteral("H%1 ≈").arg(h), QStringLiteral("H%1").arg(h),
                                          QString::number(h)},
                                         t.size(), 12, base, &device);
                        QVERIFY2(badge.text.contains(QString::number(h)), qPrintable(where));
                        QFont font = base;
                        font.setPointSizeF(badge.pixelSize * 72.0 / device.logicalDpiY());
                        const QFontMetricsF metrics(font, &device);
                        const QRectF strip(t.left(), t.top(), metrics.horizontalAdvance(badge.text) + 2,
                                           metrics.ascent() + metrics.descent());
                        QVERIFY2(t.contains(strip), qPrintable(where + QStringLiteral(": ") + badge.text));
                    }
                // A pane that holds the grid at its minimum is filled, not left with small thumbnails.
                const QSizeF least = HeadGridLayout::minimumArea(layers, heads, minimum);
                if (area.width() >= least.width() + 40 && area.height() >= least.height() + 40)
                    QVERIFY(grid.slotSize() > minimum);
            }
    }

    // A Llama-3.2-1B-shaped grid (16 layers × 32 heads, synthetic decoder) in the window at 1280×800,
    // sorted so that each row has its own head order: the pane is too narrow for 32 numbered thumbnails,
    // so the grid scrolls, and every thumbnail shows its number (white text pixels in its badge strip).
    void thirtyTwoHeadGridShowsEveryNumber()
    {
        MainWindow window;
        QScrollArea* scroll = showSortedThirtyTwoHeadGrid(window);
        QVERIFY(scroll);
        QCOMPARE(window.currentResult()->analysis.heads, 32);
        HeadGridWidget* grid = window.grid();
        QCOMPARE(scroll->widget(), grid);
        // Without a minimum, the 32 thumbnails across this view would be too small for any badge.
        const double unscrolled = (scroll->viewport()->width() - 8 - 34) / 32.0 * 0.92;
        QImage probe(10, 10, QImage::Format_ARGB32_Premultiplied);
        QVERIFY2(fitHeadBadge({QStringLiteral("31")}, QSizeF(unscrolled, unscrolled), 6, grid->font(), &probe)
                     .text.isEmpty(),
                 qPrintable(QString::number(unscrolled)));
        QVERIFY2(grid->width() > scroll->viewport()->width(),
                 qPrintable(QStringLiteral("%1 in %2").arg(grid->width()).arg(scroll->viewport()->width())));
        QVERIFY(scroll->horizontalScrollBar()->maximum() > 0);
        grid->select(-1, -1); // no selection ring over a badge
        const QImage shot = grid->grab().toImage();
        QFont six = grid->font();
        six.setPointSizeF(kMinimumBadgePixelSize * 72.0 / grid->logicalDpiY());
        const QFontMetricsF metrics(six, grid);
        int checked = 0;
        QSet<int> rowOrders;
        for (int l = 0; l < 16; ++l) {
            QString order;
            for (int h = 0; h < 32; ++h) {
                const QRectF t = grid->thumbnailRectOf(l, h);
                QVERIFY(QRectF(grid->rect()).contains(t));
                // The strip of the shortest badge at 6 px: a bright, grey-white text pixel inside it.
                const QRect strip =
                    QRectF(t.left(), t.top(), metrics.horizontalAdvance(QString::number(h)) + 2,
                           metrics.ascent() + metrics.descent())
                        .toAlignedRect()
                        .intersected(t.toAlignedRect());
                bool drawn = false;
                for (int y = strip.top(); y <= strip.bottom() && !drawn; ++y)
                    for (int x = strip.left(); x <= strip.right() && !drawn; ++x) {
                        const QColor c = shot.pixelColor(x, y);
                        drawn = std::min({c.red(), c.green(), c.blue()}) > 180;
                    }
                QVERIFY2(drawn, qPrintable(QStringLiteral("no number on layer %1 head %2").arg(l).arg(h)));
                ++checked;
                order += QString::number(grid->layoutForTests().headAt(l, h)) + QLatin1Char(',');
            }
            rowOrders.insert(qHash(order));
        }
        QCOMPARE(checked, 16 * 32);
        QVERIFY(rowOrders.size() > 1); // sorted: rows have their own orders
    }

    // The same 16×32 grid scrolled fully to the right: every layer label ("L0" .. "L15") stays in the view,
    // beside its row, drawn on the view's background (the thumbnails that scrolled under the column are
    // covered), and a click on the column selects no hidden head.
    void layerLabelsStayInViewWhenScrolledSideways()
    {
        MainWindow window;
        QScrollArea* scroll = showSortedThirtyTwoHeadGrid(window);
        QVERIFY(scroll);
        QCOMPARE(window.currentResult()->analysis.heads, 32);
        HeadGridWidget* grid = window.grid();
        QScrollBar* bar = scroll->horizontalScrollBar();
        QVERIFY(bar->maximum() > 100); // far enough that unscrolled labels would be out of view
        bar->setValue(bar->maximum());
        QCoreApplication::processEvents();
        QWidget* viewport = scroll->viewport();
        const QImage shot = viewport->grab().toImage();
        const QColor background = grid->palette().base().color();
        const HeadGridLayout& layout = grid->layoutForTests();
        for (int l = 0; l < 16; ++l) {
            const QRect label = layout.layerLabelRect(l).translated(grid->pos()).toAlignedRect();
            QVERIFY2(viewport->rect().contains(label),
                     qPrintable(QStringLiteral("L%1 at %2,%3").arg(l).arg(label.x()).arg(label.y())));
            int dark = 0;
            for (int y = label.top(); y <= label.bottom(); ++y)
                for (int x = label.left(); x <= label.right(); ++x) {
                    const QColor c = shot.pixelColor(x, y);
                    // The column's left edge (the labels are right-aligned) is plain background.
                    if (x < label.left() + 4)
                        QVERIFY2(c == background,
                                 qPrintable(QStringLiteral("L%1: %2 at x %3").arg(l).arg(c.name()).arg(x)));
                    dark += std::max({c.red(), c.green(), c.blue()}) < 110;
                }
            QVERIFY2(dark >= 4, qPrintable(QStringLiteral("no text in L%1's label").arg(l)));
        }
        // The column covers thumbnails: a click there picks none of them.
        const QRectF column = layout.labelColumnRect();
        QVERIFY(!layout.slotAt(QPointF(column.center().x(), layout.thumbnailRect(3, 0).center().y())));
    }

    // The grid's "Colour: Label" in the window at 1280×800 (the synthetic encoder, whose heads are built to
    // be sinks, no-ops, previous-token heads and more): every label the heads have is in the legend,
    // entries wrap onto more lines instead of being dropped, and they stay inside the grid, apart from each
    // other and below the thumbnails.
    void gridLabelLegendKeepsEveryEntry()
    {
        MainWindow window;
        QVERIFY(showSettled(window, QSize(1280, 800)));
        QVERIFY(runOn(window, window.findModel(QStringLiteral("Synthetic encoder")),
                      QStringLiteral("The trophy didn't fit into the suitcase because it was too big.")));
        QComboBox* colour = window.colorByBox();
        const int byLabel = colour->findData(-1);
        QVERIFY(byLabel >= 0);
        colour->setCurrentIndex(byLabel);
        QCoreApplication::processEvents();
        HeadGridWidget* grid = window.grid();
        QVERIFY(grid->colorsByLabel());
        std::vector<HeadLabel> present;
        for (const HeadStats& s : window.currentResult()->analysis.stats)
            if (std::find(present.begin(), present.end(), s.label) == present.end())
                present.push_back(s.label);
        const auto entries = grid->labelLegendEntries();
        QCOMPARE(entries.size(), present.size());
        QVERIFY2(present.size() >= 3, qPrintable(QString::number(present.size())));
        double widths = 0, lastThumbnail = 0;
        const auto& analysis = window.currentResult()->analysis;
        for (int h = 0; h < analysis.heads; ++h)
            lastThumbnail = std::max(lastThumbnail, grid->thumbnailRectOf(analysis.layers - 1, h).bottom());
        QSet<double> lines;
        for (size_t i = 0; i < entries.size(); ++i) {
            const QRectF& e = entries[i].second;
            QVERIFY(std::find(present.begin(), present.end(), entries[i].first) != present.end());
            QVERIFY2(QRectF(grid->rect()).contains(e), qPrintable(QStringLiteral("entry %1 outside").arg(i)));
            QVERIFY(e.top() >= lastThumbnail);
            for (size_t j = 0; j < i; ++j)
                QVERIFY(!e.intersects(entries[j].second));
            widths += e.width() + 10;
            lines.insert(e.top());
        }
        // More entries than one line holds: they wrapped.
        if (widths > grid->width() - 16) QVERIFY(lines.size() > 1);
    }

    void tooltipsNameTheCellAndTheHead()
    {
        MainWindow window;
        QVERIFY(showSettled(window, QSize(1280, 800)));
        QVERIFY(runOn(window, window.findModel(QStringLiteral("tiny-bert-en-tr")),
                      QStringLiteral("the cat sat on the mat")));
        QCoreApplication::processEvents();

        // A heatmap cell: query, key and the value shown.
        HeatmapWidget* heatmap = window.heatmap();
        const int row = 2, col = 3;
        const QPoint inCell = heatmap->geometryForTests().cellRect(row, col).center().toPoint();
        QHelpEvent cellHelp(QEvent::ToolTip, inCell, heatmap->mapToGlobal(inCell));
        QCoreApplication::sendEvent(heatmap, &cellHelp);
        QTRY_VERIFY(QToolTip::isVisible());
        const QString cellTip = QToolTip::text();
        QCOMPARE(cellTip, heatmap->cellText(row, col));
        QVERIFY2(cellTip.contains(heatmap->data().rowLabels.at(row)) &&
                     cellTip.contains(heatmap->data().colLabels.at(col)),
                 qPrintable(cellTip));
        const QString value = formatAttention(double(heatmap->valueAt(row, col)));
        QVERIFY2(cellTip.contains(value), qPrintable(cellTip + QStringLiteral(" / ") + value));
        QToolTip::hideText();

        // A grid thumbnail: layer, head, label, sink mass, [SEP] mass (an encoder input has [SEP]).
        HeadGridWidget* grid = window.grid();
        const QPoint inThumbnail = grid->thumbnailRectOf(1, 2).center().toPoint();
        QHelpEvent gridHelp(QEvent::ToolTip, inThumbnail, grid->mapToGlobal(inThumbnail));
        QCoreApplication::sendEvent(grid, &gridHelp);
        QTRY_VERIFY(QToolTip::isVisible());
        const QString gridTip = QToolTip::text();
        QCOMPARE(gridTip, grid->headToolTip(1, 2));
        QVERIFY2(gridTip.startsWith(QStringLiteral("Layer 1, head 2: ")), qPrintable(gridTip));
        QVERIFY2(gridTip.contains(QStringLiteral("sink mass")) &&
                     gridTip.contains(QStringLiteral("[SEP] mass")),
                 qPrintable(gridTip));
        QToolTip::hideText();

        // Outside the cells: no tooltip.
        QHelpEvent outside(QEvent::ToolTip, QPoint(1, 1), heatmap->mapToGlobal(QPoint(1, 1)));
        QCoreApplication::sendEvent(heatmap, &outside);
        QTRY_VERIFY(!QToolTip::isVisible());
    }
};

QTEST_MAIN(TestViewLabels)
#include "tst_view_labels.moc"
