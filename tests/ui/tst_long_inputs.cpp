// Long inputs never drop tokens silently (issue 36, point 6): the arcs show a window of consecutive tokens,
// say which, and move it; "Open in lesson" says which tokens it keeps of how many and lets the window move;
// above ~100 tokens the heatmap shows a labelled zoom window beside the overview.

#include "attention/attentionmaps.h"
#include "explorer/analysisrunner.h"
#include "explorer/arcwidget.h"
#include "explorer/explorerresult.h"
#include "explorer/heatmapwidget.h"
#include "explorer/heatmapzoom.h"
#include "explorer/transformerengine.h"
#include "lesson/lessonlauncher.h"
#include "lesson/lessonmodel.h"
#include "lesson/lessontokenwindowbar.h"
#include "lesson/lessonview.h"
#include "lesson/lessonwindow.h"
#include "mainwindow.h"
#include "render/heatmappainter.h"
#include "ui/support/shownwindow.h"

#include <QFileInfo>
#include <QPainter>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QtTest>

using namespace attnscope;

namespace {

// n tokens, [CLS] … [SEP]; one layer, one head in which every query q > 0 attends only to key q − 1 (the
// previous-token head) and query 0 to itself: which keys a window's lines reach tells which tile it shows.
std::shared_ptr<ExplorerResult> previousTokenResult(int n, bool causal = false)
{
    std::vector<float> p(size_t(n) * size_t(n), 0.0f);
    for (int q = 0; q < n; ++q)
        p[size_t(q) * size_t(n) + size_t(std::max(0, q - 1))] = 1.0f;
    auto result = std::make_shared<ExplorerResult>();
    QStringList labels{QStringLiteral("[CLS]")};
    for (int i = 1; i < n - 1; ++i)
        labels << QStringLiteral("w%1").arg(i);
    labels << QStringLiteral("[SEP]");
    result->textA = labels.mid(1, n - 2).join(QLatin1Char(' '));
    result->run.labels = labels;
    result->run.tokens = labels;
    result->run.roles.special.assign(size_t(n), false);
    result->run.roles.special.front() = result->run.roles.special.back() = true;
    result->run.roles.clsPositions = {0};
    result->run.roles.sepPositions = {n - 1};
    result->run.roles.causal = causal;
    result->run.maps = std::make_shared<DenseAttentionMaps>(1, 1, n, n, std::move(p));
    return result;
}

} // namespace

class TestLongInputs : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // Up to kMaxTokens the arcs cover every token, with no window box and no note.
    void shortInputArcsCoverEveryToken()
    {
        ArcWidget arcs;
        arcs.setResult(previousTokenResult(40));
        arcs.setHeads({{0, 0}});
        QCOMPARE(arcs.shownTokens(), 40);
        QVERIFY(arcs.windowNote().isEmpty());
        QVERIFY(arcs.windowBox()->isHidden());
        const auto layout = arcs.pageLayout(QRectF(0, 0, 800, 900));
        QVERIFY(layout);
        QCOMPARE(int(layout->lines().size()), 40); // every query's one line
    }

    // A 100-token input: the first window says so, moves to the end (the final [SEP] shown and labelled),
    // and its lines are the window's own tile.
    void longInputArcsShowAWindowAndSayWhich()
    {
        constexpr int n = 100;
        ArcWidget arcs;
        arcs.setResult(previousTokenResult(n));
        arcs.setHeads({{0, 0}});
        QCOMPARE(arcs.shownTokens(), ArcWidget::kMaxTokens);
        QCOMPARE(arcs.windowNote(), QStringLiteral("tokens 1–64 of 100"));
        QVERIFY(!arcs.windowBox()->isHidden());
        const QRectF page(0, 0, 900, 1400);
        auto layout = arcs.pageLayout(page);
        QVERIFY(layout);
        QCOMPARE(int(layout->lines().size()), 64); // query 0 → itself, queries 1..63 → the one before

        // The box moves the window; past the end it stops on the last full window, which ends on [SEP].
        arcs.windowBox()->setValue(10);
        QCOMPARE(arcs.windowStart(), 9);
        arcs.setWindowStart(1000);
        QCOMPARE(arcs.windowStart(), n - ArcWidget::kMaxTokens);
        QCOMPARE(arcs.windowBox()->value(), n - ArcWidget::kMaxTokens + 1);
        QCOMPARE(arcs.windowNote(), QStringLiteral("tokens 37–100 of 100"));
        layout = arcs.pageLayout(page);
        QVERIFY(layout);
        const auto lines = layout->lines();
        // Window query 0 is token 36, whose key (35) lies outside the window: 63 lines, each to the previous.
        QCOMPARE(int(lines.size()), 63);
        for (const ArcLayout::Line& line : lines)
            QCOMPARE(line.key, line.query - 1);
        QImage image(900, 1400, QImage::Format_ARGB32);
        QPainter painter(&image);
        const AxisLabelPlan plan = arcs.labelPlan(*layout, &image, painter.font());
        QVERIFY(!plan.shown.empty());
        QCOMPARE(plan.shown.front(), 36);
        QCOMPARE(plan.shown.back(), n - 1); // the final [SEP] is labelled
    }

    // The zoom window's block is the head's own tile: values, labels, special flags, and the causal mask
    // where the whole matrix has it (key > query), at any place of the block.
    void zoomBlockIsTheExactTile()
    {
        constexpr int n = 300;
        const auto result = previousTokenResult(n, true);
        const int row0 = 280, col0 = 270, size = HeatmapZoomWindow::kSize;
        const HeatmapData block = HeatmapZoomWindow::block(*result, 0, 0, row0, col0, size);
        QCOMPARE(block.rows, n - row0); // clamped at the matrix's end: 20 rows
        QCOMPARE(block.cols, size);
        for (int r = 0; r < block.rows; ++r) {
            QCOMPARE(block.rowLabels.at(r), result->run.labels.at(row0 + r));
            QCOMPARE(bool(block.specialRows[size_t(r)]), row0 + r == n - 1);
            for (int c = 0; c < block.cols; ++c) {
                const int query = row0 + r, key = col0 + c;
                QCOMPARE(block.value(r, c), key == query - 1 ? 1.0f : 0.0f);
                QCOMPARE(block.isMasked(r, c), key > query);
            }
        }
        for (int c = 0; c < block.cols; ++c)
            QCOMPARE(block.colLabels.at(c), result->run.labels.at(col0 + c));
        QVERIFY(block.title.contains(QStringLiteral("281–300")));
    }

    // A 300-token input in the window at 1280×800: the zoom window stands beside the overview, follows the
    // cell under the mouse, and labels every one of its tokens at a readable size while the overview thins
    // its labels. A short input has no zoom window.
    void longHeatmapHasAReadableZoomWindow()
    {
        MainWindow window;
        QVERIFY(showWithModel(window, QStringLiteral("Synthetic encoder")));
        QStringList words;
        for (int i = 0; i < 298; ++i)
            words << QStringLiteral("w%1").arg(i);
        const QString text = words.join(QLatin1Char(' '));
        window.setTexts(text);
        QTRY_VERIFY_WITH_TIMEOUT(window.runner()->waitForIdle(100) && window.currentResult() &&
                                     window.currentResult()->textA == text,
                                 60000);
        QCOMPARE(int(window.currentResult()->run.tokens.size()), 300);
        auto* zoom = window.findChild<HeatmapZoomWindow*>();
        QVERIFY(zoom);
        QTRY_VERIFY(zoom->isVisible());
        HeatmapWidget* overview = window.heatmap();
        QVERIFY(zoom->geometry().left() >= overview->geometry().right()); // beside it
        Q_EMIT overview->hoveredCellChanged(150, 60);
        QCOMPARE(zoom->firstRow(), 150 - HeatmapZoomWindow::kSize / 2);
        QCOMPARE(zoom->firstCol(), 60 - HeatmapZoomWindow::kSize / 2);
        QCoreApplication::processEvents();
        HeatmapWidget* view = zoom->view();
        QCOMPARE(view->data().rows, HeatmapZoomWindow::kSize);
        QCOMPARE(view->data().rowLabels.at(0), window.currentResult()->run.labels.at(zoom->firstRow()));
        const auto zoomLabels = HeatmapPainter(view->data(), view->heatmapStyle())
                                    .labelLayout(view->geometryForTests(), view, view->font());
        QCOMPARE(int(zoomLabels.rows.shown.size()), HeatmapZoomWindow::kSize);
        QCOMPARE(int(zoomLabels.cols.shown.size()), HeatmapZoomWindow::kSize);
        QVERIFY2(zoomLabels.rows.pixelSize >= 11, qPrintable(QString::number(zoomLabels.rows.pixelSize)));
        QVERIFY2(zoomLabels.cols.pixelSize >= 11, qPrintable(QString::number(zoomLabels.cols.pixelSize)));
        const auto overviewLabels =
            HeatmapPainter(overview->data(), overview->heatmapStyle())
                .labelLayout(overview->geometryForTests(), overview, overview->font());
        QVERIFY(overviewLabels.rows.step > 1); // what the zoom window is for

        window.setTexts(QStringLiteral("a short sentence"));
        QTRY_VERIFY_WITH_TIMEOUT(window.runner()->waitForIdle(100) && window.currentResult() &&
                                     window.currentResult()->textA == QStringLiteral("a short sentence"),
                                 60000);
        QTRY_VERIFY(!zoom->isVisible());
    }

    // "Open in lesson" on a 20-odd-token input of the built-in decoder: the status line says which 16
    // tokens it keeps of how many, the bar above the lesson says the same and moves the window; the moved
    // lesson's attention is the head's own over the window, each row renormalised over the window's keys
    // (a softmax over a subset of the keys is the full softmax renormalised over that subset).
    void openInLessonSaysWhichTokensAndMovesTheWindow()
    {
        const QString folder = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-llama-en-tr");
        if (!QFileInfo::exists(folder + QStringLiteral("/config.json"))) QSKIP("model folder not available");
        MainWindow window;
        QVERIFY(window.runner()->waitForIdle(10000));
        QVERIFY(window.selectEngine(window.addEngine(TransformerEngine::open(folder, 1))));
        const QString text =
            QStringLiteral("The cat sat on the mat because it was warm and the sun was shining "
                           "over the old house by the river.");
        window.setTexts(text);
        QTRY_VERIFY_WITH_TIMEOUT(window.runner()->waitForIdle(100) && window.currentResult() &&
                                     window.currentResult()->textA == text &&
                                     window.currentResult()->run.capture,
                                 20000);
        const int total = window.currentResult()->run.maps->queries();
        constexpr int kept = LessonModel::kMaxHeadTokens;
        QVERIFY2(total > kept + 4, qPrintable(QString::number(total)));
        window.openHead(2, 5);
        LessonWindow* lesson = window.openInLesson();
        QVERIFY(lesson);
        QVERIFY(window.statusBar()->currentMessage().contains(
            QStringLiteral("tokens 1–%1 of %2").arg(kept).arg(total)));
        auto* bar = lesson->findChild<LessonTokenWindowBar*>();
        QVERIFY(bar);
        QVERIFY(bar->text().contains(QStringLiteral("tokens 1–%1 of %2").arg(kept).arg(total)));

        const int first = 4;
        bar->startBox()->setValue(first + 1);
        QCOMPARE(bar->first(), first);
        QVERIFY(bar->text().contains(
            QStringLiteral("tokens %1–%2 of %3").arg(first + 1).arg(first + kept).arg(total)));
        const LessonModel& model = lesson->view()->lesson();
        QCOMPARE(model.tokens(), window.currentResult()->run.labels.mid(first, kept));
        const std::vector<float> tile =
            window.currentResult()->run.maps->tile(2, 5, first, first + kept, first, first + kept);
        const Eigen::MatrixXd& p = model.probabilities();
        double worst = 0;
        for (int i = 0; i < kept; ++i) {
            double rowSum = 0;
            for (int j = 0; j < kept; ++j)
                rowSum += tile[size_t(i * kept + j)];
            for (int j = 0; j < kept; ++j)
                worst = std::max(worst, std::abs(p(i, j) - tile[size_t(i * kept + j)] / rowSum));
        }
        QVERIFY2(worst <= 1e-4, qPrintable(QStringLiteral("max |P_lesson - P_window| = %1").arg(worst)));
    }
};

QTEST_MAIN(TestLongInputs)
#include "tst_long_inputs.moc"
