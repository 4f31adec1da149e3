// Honest state: the model box, the window title, the grid and every view describe the same run, through
// each transition a user makes. A failed run says why in the banner on the views (with the action to run
// a window of a too-long input) and clears them; read-outs and messages are cleared at each new result.
// Also: every built-in example runs on every built-in model, or offers a window that runs.

#include "attention/attentionmaps.h"
#include "explorer/arcwidget.h"
#include "explorer/attentionmeasure.h"
#include "explorer/comparisonwidget.h"
#include "explorer/examplesentences.h"
#include "explorer/explorerbackend.h"
#include "explorer/explorersession.h"
#include "explorer/flowview.h"
#include "explorer/headgridwidget.h"
#include "explorer/headstatsmodel.h"
#include "explorer/heatmapwidget.h"
#include "explorer/layerchartwidget.h"
#include "explorer/runstatebanner.h"
#include "explorer/transformerengine.h"
#include "i18n/languagemanager.h"
#include "mainwindow.h"
#include "mainwindowfeatures.h"
#include "model/modelcatalog.h"
#include "presenter/presentermode.h"
#include "settings/appsettings.h"
#include "support/testdata.h"
#include "ui/support/languagerows.h"
#include "ui/support/shownwindow.h"
#include "ui/support/testsettings.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QtTest>

using namespace attnscope;

namespace {

QString paragraph(int words)
{
    QStringList out;
    for (int i = 0; i < words; ++i)
        out << QStringLiteral("word%1").arg(i % 37);
    return out.join(QLatin1Char(' '));
}

QComboBox* modelBox(MainWindow& window)
{
    return window.modelBox();
}

const QString kCatOnTheMat = QStringLiteral("The cat sat on the mat.");

bool waitForRun(MainWindow& window)
{
    return window.runner()->waitForIdle(60000);
}

// Shows the window (resized first where a size is given), runs `text` on the model called `model` and waits
// until the window shows the result.
bool showAndRun(MainWindow& window, const QString& model, const QString& text, std::optional<QSize> size = {})
{
    if (!showExposed(window, size) || !window.selectEngine(window.findModel(model))) return false;
    window.setTexts(text);
    return waitForRun(window) && QTest::qWaitFor([&] { return window.currentResult() != nullptr; }, 20000);
}

} // namespace

class TestExplorerState : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        useEmptyTestSettings();
        QVERIFY2(!ModelCatalog::builtinModels().isEmpty(), "the built-in models are part of the repository");
    }

    // The status bar's read-outs (tokens, backend, time) are apart: a visible divider line between each
    // two, clear of both texts.
    void statusBarReadoutsAreDivided()
    {
        MainWindow window;
        QVERIFY(showAndRun(window, QStringLiteral("Synthetic encoder"), kCatOnTheMat, QSize(1280, 800)));
        QWidget* bar = window.statusBar();
        const QImage shot = bar->grab().toImage();
        const QColor background = bar->palette().window().color();
        for (const char* name : {"backendLabel", "timeLabel"}) {
            auto* label = bar->findChild<QLabel*>(QLatin1String(name));
            auto* divider = bar->findChild<QFrame*>(QLatin1String(name) + QStringLiteral("Divider"));
            QVERIFY2(label && divider && divider->isVisible() && !label->text().isEmpty(), name);
            const QRect line = divider->geometry();
            QVERIFY2(line.right() < label->geometry().left(), name);
            // The divider draws: a pixel unlike the bar's background in its middle row.
            bool drawn = false;
            for (int x = line.left(); x <= line.right(); ++x)
                drawn = drawn || shot.pixelColor(x, line.center().y()) != background;
            QVERIFY2(drawn, name);
        }
        // Token count | backend | time, in that order.
        QVERIFY(window.statusText().contains(QStringLiteral("token")));
        const auto left = [&](const QString& name) {
            return bar->findChild<QWidget*>(name)->geometry().left();
        };
        QVERIFY(left(QStringLiteral("backendLabelDivider")) < left(QStringLiteral("backendLabel")));
        QVERIFY(left(QStringLiteral("backendLabel")) < left(QStringLiteral("timeLabelDivider")));
        QVERIFY(left(QStringLiteral("timeLabelDivider")) < left(QStringLiteral("timeLabel")));
    }

    // "Compare heads" starts from the head open in the explorer (a grid click, --head) and its first pane
    // follows it; the other panes show the heads after it until the user picks theirs, then keep those.
    void comparisonFollowsTheOpenHead()
    {
        MainWindow window;
        QVERIFY(showAndRun(window, QStringLiteral("Synthetic encoder"), kCatOnTheMat));
        window.openHead(1, 3);
        const auto following = window.comparison()->heads();
        QCOMPARE(int(following.size()), 2);
        QCOMPARE(following[0], std::make_pair(1, 3));
        QCOMPARE(following[1], std::make_pair(1, 4)); // not the L0 H1 it was made with
        window.comparison()->setHeads({{0, 0}, {2, 5}});
        window.openHead(1, 3);
        const auto heads = window.comparison()->heads();
        QCOMPARE(int(heads.size()), 2);
        QCOMPARE(heads[0], std::make_pair(1, 3));
        QCOMPARE(heads[1], std::make_pair(2, 5));
        window.tabs()->setCurrentWidget(window.comparison());
        QTRY_VERIFY(!window.comparison()->panes().empty());
        QVERIFY2(window.comparison()->panes().front()->data().title.contains(QStringLiteral("L1 H3")),
                 qPrintable(window.comparison()->panes().front()->data().title));
    }

    // Issue 36: arcs show the open head and the heads the user picked, not the comparison's default
    // neighbour; the Flow tab's rollout follows the measure, and its title says which.
    void arcsAndFlowShowWhatWasChosen()
    {
        MainWindow window;
        QVERIFY(showAndRun(window, QStringLiteral("tiny-bert-en-tr"), kCatOnTheMat));
        window.openHead(1, 3);
        QCOMPARE(window.arcs()->heads(), (std::vector<std::pair<int, int>>{{1, 3}}));
        window.comparison()->setHeads({{0, 0}, {0, 5}});
        window.openHead(1, 3);
        QCOMPARE(window.arcs()->heads(), (std::vector<std::pair<int, int>>{{1, 3}, {0, 5}}));

        window.tabs()->setCurrentWidget(window.flowView());
        QCOMPARE(window.flowView()->kind(), FlowKind::RolloutWeight);
        window.setMeasure(AttentionMeasure::Contribution);
        QCOMPARE(window.flowView()->kind(), FlowKind::RolloutContribution);
        QTRY_VERIFY_WITH_TIMEOUT(
            window.flowView()->heatmap()->data().title.contains(QStringLiteral("‖αf(x)‖")), 20000);
        window.setMeasure(AttentionMeasure::Weight);
        QCOMPARE(window.flowView()->kind(), FlowKind::RolloutWeight);
        QTRY_VERIFY_WITH_TIMEOUT(
            window.flowView()->heatmap()->data().title.contains(QStringLiteral("α")) &&
                !window.flowView()->heatmap()->data().title.contains(QStringLiteral("‖")),
            20000);
        // The residual views do not depend on the measure: chosen, they stay.
        window.flowView()->setKind(FlowKind::ResidualNorm);
        window.setMeasure(AttentionMeasure::Contribution);
        QCOMPARE(window.flowView()->kind(), FlowKind::ResidualNorm);
    }

    // The statistics table marks the open head's row, however it is sorted, and shows it.
    void statisticsTableMarksTheOpenHead()
    {
        MainWindow window;
        QVERIFY(showAndRun(window, QStringLiteral("Synthetic encoder"), kCatOnTheMat, QSize(1280, 800)));
        QTableView* table = window.statsTable();
        table->sortByColumn(HeadStatsModel::FirstMetricColumn, Qt::DescendingOrder);
        window.tabs()->setCurrentWidget(table->parentWidget()->parentWidget());
        const int layer = window.currentResult()->analysis.layers - 1,
                  head = window.currentResult()->analysis.heads - 2;
        window.openHead(layer, head);
        const QModelIndexList rows = table->selectionModel()->selectedRows();
        QCOMPARE(rows.size(), 1);
        auto* proxy = qobject_cast<QSortFilterProxyModel*>(table->model());
        QVERIFY(proxy);
        const HeadStats& s = window.statsModel()->stats()[size_t(proxy->mapToSource(rows.front()).row())];
        QCOMPARE(s.layer, layer);
        QCOMPARE(s.head, head);
        QCoreApplication::processEvents();
        QVERIFY(table->viewport()->rect().intersects(table->visualRect(rows.front())));
    }

    // The threshold row of the statistics tab, in both languages: each box sits right after its label (the
    // label's buddy), and in each row the next label follows the previous box after no more than a few
    // pixels: no column padded out to a longer label in the other row.
    void statisticsThresholdsSitTogether_data() { addLanguageRows(); }
    void statisticsThresholdsSitTogether()
    {
        SET_ROW_LANGUAGE(languages);
        MainWindow window;
        QVERIFY(showAndRun(window, QStringLiteral("tiny-bert-en-tr"), QStringLiteral("The cat sat."),
                           QSize(1280, 800)));
        QWidget* tab = window.statsTable()->parentWidget()->parentWidget();
        window.tabs()->setCurrentWidget(tab);
        QCoreApplication::processEvents();
        struct Pair
        {
            QRect label, box;
        };
        std::vector<Pair> pairs;
        for (QLabel* label : tab->findChildren<QLabel*>())
            if (auto* box = qobject_cast<QDoubleSpinBox*>(label->buddy()))
                pairs.push_back({QRect(label->mapTo(tab, QPoint(0, 0)), label->size()),
                                 QRect(box->mapTo(tab, QPoint(0, 0)), box->size())});
        QCOMPARE(int(pairs.size()), 6);
        std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
            return std::make_pair(a.box.center().y(), a.box.left()) <
                   std::make_pair(b.box.center().y(), b.box.left());
        });
        const QFontMetrics metrics = window.statsTable()->fontMetrics();
        for (size_t i = 0; i < pairs.size(); ++i) {
            const Pair& p = pairs[i];
            QVERIFY(p.label.right() < p.box.left() && p.box.left() - p.label.right() <= 12);
            QVERIFY(std::abs(p.label.center().y() - p.box.center().y()) <= 3);
            if (i > 0 && std::abs(pairs[i - 1].box.center().y() - p.box.center().y()) <= 3) {
                const int gap = p.label.left() - pairs[i - 1].box.right();
                QVERIFY2(
                    gap > 0 && gap <= 3 * metrics.averageCharWidth() + 12,
                    qPrintable(
                        QStringLiteral("%1 px between threshold %2 and the one before").arg(gap).arg(i)));
            }
        }
    }

    void modelSwitchWithAFailingInput()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // A long text runs on the synthetic demo (any length).
        QVERIFY(window.selectEngine(window.findModel(QStringLiteral("Synthetic encoder"))));
        window.setTexts(paragraph(400));
        QVERIFY(waitForRun(window));
        QTRY_VERIFY(window.currentResult() &&
                    window.currentResult()->modelName.startsWith(QStringLiteral("Synthetic")));
        QCOMPARE(window.runStateBanner()->state(), RunStateBanner::State::Hidden);
        // Then tiny-llama-en-tr, which takes 256 positions: the run fails and says why, on the views.
        const int llama = window.findModel(QStringLiteral("tiny-llama-en-tr"));
        QVERIFY(llama >= 0);
        QVERIFY(window.selectEngine(llama));
        QVERIFY(waitForRun(window));
        QTRY_COMPARE(window.runStateBanner()->state(), RunStateBanner::State::TooLong);
        QVERIFY(window.runStateBanner()->isVisible());
        QVERIFY2(
            window.runStateBanner()->text().contains(QStringLiteral("> 256 positions of tiny-llama-en-tr")),
            qPrintable(window.runStateBanner()->text()));
        // Model box, title and views agree: llama, failed, nothing of the synthetic run left.
        QCOMPARE(modelBox(window)->currentText(), QStringLiteral("tiny-llama-en-tr"));
        QVERIFY2(window.windowTitle().contains(QStringLiteral("tiny-llama-en-tr")) &&
                     window.windowTitle().contains(QStringLiteral("failed")),
                 qPrintable(window.windowTitle()));
        QVERIFY(!window.currentResult());
        QCOMPARE(window.heatmap()->data().rows, 0);
        QVERIFY(window.heatmap()->placeholder().contains(QStringLiteral("256")));
        QCOMPARE(window.statsModel()->rowCount(), 0);
        QVERIFY(!window.grid()->isStale());
        QVERIFY(window.heatmapReadout()->text().isEmpty());
        QVERIFY(window.statusBar()->currentMessage().isEmpty());

        // The banner's action runs the first 256 tokens: a result on llama, the banner says what is shown.
        window.runStateBanner()->firstTokensButton()->click();
        QVERIFY(waitForRun(window));
        QTRY_VERIFY(window.currentResult());
        QCOMPARE(window.currentResult()->run.maps->queries(), 256);
        QVERIFY(window.currentResult()->run.totalTokens > 256);
        QCOMPARE(window.runStateBanner()->state(), RunStateBanner::State::Window);
        QVERIFY(window.runStateBanner()->text().contains(QStringLiteral("first 256 of")));
        QCOMPARE(window.windowTitle(), QStringLiteral("AttnScope — tiny-llama-en-tr"));
        QVERIFY(window.heatmap()->data().title.contains(QStringLiteral("first 256 of")));
        // The run ends on the model's last kept token: a decoder keeps <s> and the first 255 text tokens.
        QCOMPARE(window.currentResult()->run.labels.front(), QStringLiteral("<s>"));
    }

    void failureThenSuccessClearsTheReadouts()
    {
        MainWindow window;
        QVERIFY(showAndRun(window, QStringLiteral("Synthetic decoder"),
                           QStringLiteral("kedi mindere oturdu ve uyudu")));
        // A hover read-out of this run, beside the heatmap and in presenter mode's read-out.
        window.features()->presenter()->setActive(true);
        QTRY_VERIFY(window.isPresenting());
        HeatmapWidget* heatmap = window.heatmap();
        // The classroom screen is the heatmap: at least 70% of the window (full screen on a desktop; this
        // X server has no window manager to make it so), its cells stretched to fill it. Waited for (the
        // heatmap is laid out anew after the switch), with a bound that only guards against a hang.
        QTRY_VERIFY2_WITH_TIMEOUT(heatmap->width() * heatmap->height() >=
                                      0.7 * window.width() * window.height(),
                                  qPrintable(QStringLiteral("%1×%2 of %3×%4")
                                                 .arg(heatmap->width())
                                                 .arg(heatmap->height())
                                                 .arg(window.width())
                                                 .arg(window.height())),
                                  20000);
        QVERIFY(heatmap->heatmapStyle().dark && heatmap->heatmapStyle().stretchCells);
        const QPointF at = heatmap->geometryForTests().cellRect(2, 1).center();
        // Delivered to the widget itself: an X-server move is sometimes dropped under xvfb.
        QMouseEvent move(QEvent::MouseMove, at, heatmap->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                         Qt::NoModifier);
        QCoreApplication::sendEvent(heatmap, &move);
        QTRY_VERIFY(!window.features()->presenter()->readout()->text().isEmpty());
        QVERIFY(!window.heatmapReadout()->text().isEmpty());
        QVERIFY(!window.features()->presenter()->readout()->text().contains(QLatin1Char('E')));
        // A failing run (llama, too long) clears them...
        window.selectEngine(window.findModel(QStringLiteral("tiny-llama-en-tr")));
        window.setTexts(paragraph(400));
        QVERIFY(waitForRun(window));
        QTRY_COMPARE(window.runStateBanner()->state(), RunStateBanner::State::TooLong);
        QVERIFY(window.features()->presenter()->readout()->text().isEmpty());
        QVERIFY(window.heatmapReadout()->text().isEmpty());
        // ... and the success after it hides the banner and shows no read-out of the failure.
        window.setTexts(QStringLiteral("kedi mindere oturdu"));
        QVERIFY(waitForRun(window));
        QTRY_VERIFY(window.currentResult());
        QCOMPARE(window.runStateBanner()->state(), RunStateBanner::State::Hidden);
        QVERIFY(!window.runStateBanner()->isVisible());
        QVERIFY(window.features()->presenter()->readout()->text().isEmpty());
        QCOMPARE(window.windowTitle(), QStringLiteral("AttnScope — tiny-llama-en-tr"));
        QVERIFY(window.heatmap()->data().rows > 0);
        QVERIFY(window.statsModel()->rowCount() > 0);
        window.features()->presenter()->setActive(false);
    }

    // Presenter mode on a 1280×800 screen (and 1920×1080): the whole window stays on the screen, so nothing
    // (status bar, read-out, colour bar) is cut off at its bottom or right edge. The window's maximum size
    // stands in for a screen of that size (the X server of the test suite is larger).
    void presenterModeFitsTheScreen_data()
    {
        QTest::addColumn<QSize>("screen");
        QTest::newRow("1280x800") << QSize(1280, 800);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }
    void presenterModeFitsTheScreen()
    {
        QFETCH(QSize, screen);
        const QSize available = QGuiApplication::primaryScreen()->size();
        if (available.width() < screen.width() || available.height() < screen.height())
            QSKIP("the X server's screen is smaller than this size");
        MainWindow window;
        window.setMaximumSize(screen);
        QVERIFY(
            showAndRun(window, QStringLiteral("tiny-bert-en-tr"),
                       QStringLiteral("The trophy didn't fit into the suitcase because it was too big.")));
        window.features()->presenter()->setActive(true);
        QTRY_VERIFY(window.isPresenting());
        // The window manager's resize and the layouts' passes arrive as events: poll until they have (10 s
        // at most, which only a hung server would need), rather than wait a fixed time and hope.
        const auto size = [&] { return QStringLiteral("%1×%2").arg(window.width()).arg(window.height()); };
        QTRY_VERIFY2_WITH_TIMEOUT(window.width() <= screen.width() && window.height() <= screen.height(),
                                  qPrintable(size()), 10000);
        // Everything shown lies inside the window: the status bar's last read-out included.
        const auto firstOutside = [&]() -> QString {
            for (QWidget* child : window.findChildren<QWidget*>()) {
                if (!child->isVisibleTo(&window) || child->parentWidget() != &window) continue;
                const QRect inWindow(child->mapTo(&window, QPoint(0, 0)), child->size());
                if (!QRect(QPoint(0, 0), window.size()).contains(inWindow))
                    return QStringLiteral("%1 at %2,%3 %4×%5 in %6")
                        .arg(QString::fromLatin1(child->metaObject()->className()))
                        .arg(inWindow.x())
                        .arg(inWindow.y())
                        .arg(inWindow.width())
                        .arg(inWindow.height())
                        .arg(size());
            }
            return QString();
        };
        QTRY_COMPARE_WITH_TIMEOUT(firstOutside(), QString(), 10000);
        window.features()->presenter()->setActive(false);
    }

    void successOnAnotherModelReplacesEverything()
    {
        MainWindow window;
        QVERIFY(showAndRun(window, QStringLiteral("Synthetic encoder"), QStringLiteral("the cat sat")));
        const int bert = window.findModel(QStringLiteral("tiny-bert-en-tr"));
        QVERIFY(bert >= 0);
        QVERIFY(window.selectEngine(bert));
        // Until the new result arrives the old picture is marked as such, and the title says so.
        QVERIFY(window.heatmap()->staleText().contains(QStringLiteral("tiny-bert-en-tr")) ||
                window.currentResult()->modelName == QStringLiteral("tiny-bert-en-tr"));
        QVERIFY(waitForRun(window));
        QTRY_VERIFY(window.currentResult() &&
                    window.currentResult()->modelName == QStringLiteral("tiny-bert-en-tr"));
        QVERIFY(window.heatmap()->staleText().isEmpty());
        QVERIFY(!window.grid()->isStale());
        QCOMPARE(modelBox(window)->currentText(), QStringLiteral("tiny-bert-en-tr"));
        QCOMPARE(window.windowTitle(), QStringLiteral("AttnScope — tiny-bert-en-tr"));
        QVERIFY(window.heatmap()->data().title.startsWith(QStringLiteral("tiny-bert-en-tr")));
        QCOMPARE(window.statsModel()->stats().size(),
                 size_t(window.currentResult()->analysis.layers * window.currentResult()->analysis.heads));
        // The window chosen for one model's positions is not carried to another.
        QVERIFY(window.tokenWindow().isWhole());
    }

    void everyExampleRunsOnEveryBuiltInModel()
    {
        auto backend = std::make_shared<ExplorerBackend>();
        for (const ModelInfo& info : ModelCatalog::builtinModels()) {
            const auto engine = TransformerEngine::open(info.path, 1);
            for (const QString& example : exampleSentences()) {
                try {
                    const AttentionRun run = engine->run(example, std::nullopt, nullptr);
                    QVERIFY(run.maps && run.maps->queries() <= engine->maxTokens());
                } catch (const InputTooLongError& e) {
                    // Offered as a window, which runs.
                    QVERIFY(e.tokens() > e.limit());
                    QCOMPARE(e.limit(), engine->maxTokens());
                    for (bool fromEnd : {false, true}) {
                        const AttentionRun run =
                            engine->run(example, std::nullopt, nullptr, TokenWindow{e.limit(), fromEnd});
                        QVERIFY(run.maps);
                        QCOMPARE(run.maps->queries(), e.limit());
                        QCOMPARE(run.totalTokens, e.tokens());
                        QCOMPARE(run.labels.size(), e.limit());
                    }
                }
            }
        }
    }

    void gridAndHeatmapSayWhatTheyShow()
    {
        MainWindow window;
        QVERIFY(showAndRun(window, QStringLiteral("Synthetic encoder"),
                           QStringLiteral("the trophy did not fit into the suitcase")));
        HeadGridWidget* grid = window.grid();
        const auto& stats = window.statsModel()->stats();
        const int heads = window.currentResult()->analysis.heads;
        // Tooltip of a thumbnail: layer, head, label, sink and [SEP] mass, as the table writes them.
        const HeadStats& s = stats[size_t(1 * heads + 3)];
        const QString tip = grid->headToolTip(1, 3);
        QVERIFY2(tip.contains(QStringLiteral("Layer 1, head 3")) &&
                     tip.contains(headLabelDisplayName(s.label)),
                 qPrintable(tip));
        QVERIFY(tip.contains(QLocale().toString(s.sinkMass, 'f', 3)));
        QVERIFY(tip.contains(QStringLiteral("[SEP] mass ") + QLocale().toString(s.sepMass, 'f', 3)));
        // Badges carry the head number, also when sorted (the head moves to another slot).
        grid->setSortMetric(HeadMetric::SinkMass);
        for (int h = 0; h < heads; ++h)
            QVERIFY(grid->headBadge(1, h).startsWith(QStringLiteral("H%1 ").arg(h)));
        // Find sink / no-op heads: rings exactly the heads labelled so, and opens the strongest of them: the
        // largest first-token or [SEP] mass (the head the first start opens, issue 36).
        window.findSinkAndNoOpHeads();
        std::vector<std::pair<int, int>> expected;
        for (const HeadStats& h : stats)
            if (h.label == HeadLabel::Sink || h.label == HeadLabel::NoOp)
                expected.emplace_back(h.layer, h.head);
        QVERIFY(!expected.empty()); // the demo builds a sink and a [SEP] head into every layer
        QCOMPARE(grid->highlighted(), expected);
        const std::pair<int, int> strongest = testing::strongestSinkOrSepHeadByHand(stats);
        QVERIFY(std::find(expected.begin(), expected.end(), strongest) != expected.end());
        QCOMPARE(grid->selected(), strongest);
        // A heatmap cell's tooltip (and read-out): query, key and the value shown.
        HeatmapWidget* heatmap = window.heatmap();
        const QRectF cell = heatmap->geometryForTests().cellRect(2, 0);
        const QString text = heatmap->hoverText(cell.center());
        QVERIFY2(text.startsWith(heatmap->data().rowLabels.at(2) + QStringLiteral(" → ") +
                                 heatmap->data().colLabels.at(0)),
                 qPrintable(text));
        QVERIFY(!text.contains(QLatin1Char('E')));
        // The strip's metric lies on the fixed 0..1 axis, whatever the other heads do.
        QVERIFY(std::abs(grid->stripValue(s, HeadMetric::SinkMass) - s.sinkMass) < 1e-12);
        QVERIFY(grid->stripValue(s, HeadMetric::Entropy) <= 1.0);
    }

    // An empty or spaces-only text is the empty state (issue 36): no run over [CLS] [SEP] alone (whose
    // heads mean nothing), the views cleared with one line that says to type a sentence; a text runs again.
    void anEmptyTextRunsNothing()
    {
        MainWindow window;
        QVERIFY(showAndRun(window, QStringLiteral("tiny-bert-en-tr"), QStringLiteral("The cat sat.")));
        const quint64 jobBefore = window.runner()->currentJob();
        QSignalSpy empty(window.session(), &ExplorerSession::textEmpty);
        for (const QString& text : {QString(), QStringLiteral("  \n\t ")}) {
            window.setTexts(text);
            QVERIFY(waitForRun(window));
            QCOMPARE(window.runner()->currentJob(), jobBefore); // nothing started
            QVERIFY(!window.currentResult());
            QVERIFY(window.session()->waitsForText());
            QCOMPARE(window.runStateBanner()->state(), RunStateBanner::State::EmptyText);
            QVERIFY(window.runStateBanner()->isVisible());
            QVERIFY2(window.runStateBanner()->text().startsWith(QStringLiteral("Type a sentence")),
                     qPrintable(window.runStateBanner()->text()));
            QCOMPARE(window.heatmap()->data().rows, 0);
            QVERIFY(window.heatmap()->placeholder().startsWith(QStringLiteral("Type a sentence")));
            QCOMPARE(window.statsModel()->rowCount(), 0);
            QVERIFY(window.heatmapReadout()->text().isEmpty());
        }
        QCOMPARE(empty.count(), 2);
        window.setTexts(QStringLiteral("A dog ran."));
        QVERIFY(waitForRun(window));
        QTRY_VERIFY(window.currentResult());
        QVERIFY(!window.session()->waitsForText());
        QCOMPARE(window.runStateBanner()->state(), RunStateBanner::State::Hidden);
    }

    void decodersGetNoSepColumn()
    {
        MainWindow window;
        QVERIFY(
            showAndRun(window, QStringLiteral("tiny-llama-en-tr"), QStringLiteral("kedi mindere oturdu")));
        QVERIFY(window.currentResult()->run.roles.sepPositions.empty()); // <s> kedi mindere oturdu: no [SEP]
        QTableView* table = window.statsTable();
        QVERIFY(table);
        const auto metrics = allHeadMetrics();
        const int sepColumn =
            HeadStatsModel::FirstMetricColumn +
            int(std::find(metrics.begin(), metrics.end(), HeadMetric::SepMass) - metrics.begin());
        QVERIFY(table->isColumnHidden(sepColumn));
        QVERIFY(!window.layerChart()->showsSep());
        // Nor a "next token" column (0 under the causal mask) or a "[CLS] mass" one (the BOS at 0 is the
        // sink mass again): both are what the numbers say, for every head.
        auto columnOf = [&](HeadMetric metric) {
            return HeadStatsModel::FirstMetricColumn +
                   int(std::find(metrics.begin(), metrics.end(), metric) - metrics.begin());
        };
        for (const HeadStats& s : window.currentResult()->analysis.stats) {
            QCOMPARE(s.next, 0.0);
            QCOMPARE(s.clsMass, s.sinkMass);
        }
        QVERIFY(table->isColumnHidden(columnOf(HeadMetric::Next)));
        QVERIFY(table->isColumnHidden(columnOf(HeadMetric::ClsMass)));
        QVERIFY(!table->isColumnHidden(columnOf(HeadMetric::SinkMass)));
        QVERIFY(!table->isColumnHidden(columnOf(HeadMetric::Previous)));
        // An encoder shows it again.
        QVERIFY(window.selectEngine(window.findModel(QStringLiteral("tiny-bert-en-tr"))));
        QVERIFY(waitForRun(window));
        QTRY_VERIFY(window.currentResult() &&
                    window.currentResult()->modelName == QStringLiteral("tiny-bert-en-tr"));
        QVERIFY(!table->isColumnHidden(sepColumn));
        QVERIFY(window.layerChart()->showsSep());
        QVERIFY(!table->isColumnHidden(columnOf(HeadMetric::Next)));
        QVERIFY(!table->isColumnHidden(columnOf(HeadMetric::ClsMass)));
        QCOMPARE(window.statsModel()
                     ->headerData(columnOf(HeadMetric::ClsMass), Qt::Horizontal)
                     .toString()
                     .simplified(),
                 QStringLiteral("[CLS] mass"));
        // The Words view: "trophy" (tr ##oph ##y) is one row and one column; every row still sums to 1.
        window.setTexts(QStringLiteral("The trophy didn't fit."));
        QVERIFY(waitForRun(window));
        QTRY_VERIFY(window.currentResult() &&
                    window.currentResult()->textA.startsWith(QStringLiteral("The trophy")));
        const int tokens = window.heatmap()->data().rows;
        auto* words = window.findChild<QCheckBox*>(QStringLiteral("wordLevel"));
        QVERIFY(words);
        QVERIFY(words->isEnabled());
        words->setChecked(true);
        const HeatmapData& merged = window.heatmap()->data();
        QVERIFY2(merged.rowLabels.contains(QStringLiteral("trophy")),
                 qPrintable(merged.rowLabels.join(QLatin1Char(' '))));
        QVERIFY(merged.rows < tokens);
        for (int r = 0; r < merged.rows; ++r) {
            double sum = 0;
            for (int c = 0; c < merged.cols; ++c)
                sum += merged.value(r, c);
            QVERIFY(std::abs(sum - 1.0) < 1e-4);
        }
        words->setChecked(false);
        QCOMPARE(window.heatmap()->data().rows, tokens);
    }
};

QTEST_MAIN(TestExplorerState)
#include "tst_explorer_state.moc"
