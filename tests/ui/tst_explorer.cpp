// The explorer window: outdated results never shown over newer ones, cancellation, item models under
// QAbstractItemModelTester, responsiveness while a 2,048-token input is computed, labels as exact
// substrings, grid keyboard navigation.

#include "attention/attentionmaps.h"
#include "explorer/analysisrunner.h"
#include "explorer/headgridwidget.h"
#include "explorer/headstatsmodel.h"
#include "explorer/syntheticengine.h"
#include "explorer/wordtokenizer.h"
#include "heatmapwidget.h"
#include "mainwindow.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QThread>
#include <QTimer>
#include <QtTest>

using namespace attnscope;

namespace {

std::shared_ptr<ExplorerResult> resultWithText(const QString& text)
{
    auto result = std::make_shared<ExplorerResult>();
    result->textA = text;
    return result;
}

std::shared_ptr<const SyntheticEngine> smallEngine(bool causal = false)
{
    SyntheticEngine::Config config;
    config.layers = 2;
    config.heads = 4;
    config.causal = causal;
    config.threads = 1;
    return std::make_shared<SyntheticEngine>(config);
}

} // namespace

class TestExplorer : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void slowOutdatedJobDoesNotOverwriteNewerOne()
    {
        AnalysisRunner runner;
        QSignalSpy spy(&runner, &AnalysisRunner::resultReady);
        // The first job ignores its cancel flag and finishes long after the second.
        runner.startWork([](const std::atomic<bool>&) {
            QThread::msleep(400);
            return resultWithText(QStringLiteral("old"));
        });
        const quint64 newer = runner.startWork([](const std::atomic<bool>&) { return resultWithText(QStringLiteral("new")); });
        QVERIFY(runner.waitForIdle(10000));
        QCOMPARE(spy.count(), 1);
        const auto delivered = spy.at(0).at(0).value<std::shared_ptr<const ExplorerResult>>();
        QCOMPARE(delivered->textA, QStringLiteral("new"));
        QCOMPARE(delivered->job, newer);
        QCOMPARE(runner.droppedResults(), 1);
    }

    void windowKeepsTheNewestResult()
    {
        MainWindow window;
        QVERIFY(window.runner()->waitForIdle(10000)); // the worked example at start-up
        auto engine = smallEngine();
        window.runner()->startWork([engine](const std::atomic<bool>&) {
            QThread::msleep(400);
            auto r = std::make_shared<ExplorerResult>();
            r->textA = QStringLiteral("old");
            r->run = engine->run(QStringLiteral("old text"), std::nullopt, nullptr);
            r->analysis = *analyzeAttention(*r->run.maps, r->run.roles);
            return r;
        });
        window.runner()->start(engine, QStringLiteral("the newest text"), std::nullopt);
        QVERIFY(window.runner()->waitForIdle(20000));
        QVERIFY(window.currentResult());
        QCOMPARE(window.currentResult()->textA, QStringLiteral("the newest text"));
        QCOMPARE(window.heatmap()->data().rowLabels.value(1), QStringLiteral("the"));
    }

    void startingANewJobCancelsTheOldOne()
    {
        AnalysisRunner runner;
        std::atomic<bool> sawCancel{false};
        runner.startWork([&sawCancel](const std::atomic<bool>& cancel) -> std::shared_ptr<ExplorerResult> {
            QElapsedTimer timer;
            timer.start();
            while (!cancel.load() && timer.elapsed() < 5000)
                QThread::msleep(1);
            sawCancel = cancel.load();
            return nullptr;
        });
        QThread::msleep(20);
        runner.startWork([](const std::atomic<bool>&) { return resultWithText(QStringLiteral("x")); });
        QVERIFY(runner.waitForIdle(10000));
        QVERIFY(sawCancel.load());
    }

    void engineFailureIsReported()
    {
        AnalysisRunner runner;
        QSignalSpy failed(&runner, &AnalysisRunner::failed);
        runner.startWork([](const std::atomic<bool>&) -> std::shared_ptr<ExplorerResult> {
            throw EngineError("model.safetensors: tensor bert.pooler.dense.weight is missing");
        });
        QVERIFY(runner.waitForIdle(5000));
        QCOMPARE(failed.count(), 1);
        QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("pooler")));
    }

    void labelsAreExactSubstrings()
    {
        const QString text = QStringLiteral("Kupa bavula sığmadı çünkü çok büyüktü.");
        const WordTokens words = wordTokenize(text, std::nullopt, true);
        QCOMPARE(words.tokens.size(), 9); // [CLS] 6 words "." [SEP]
        const QList<uint> codePoints = text.toUcs4();
        for (int i = 0; i < words.tokens.size(); ++i) {
            if (words.special[size_t(i)])
                continue;
            const auto [b, e] = words.offsets[size_t(i)];
            QCOMPARE(QString::fromUcs4(reinterpret_cast<const char32_t*>(codePoints.constData() + b), e - b), words.tokens.at(i));
        }
        QCOMPARE(words.tokens.at(6), QStringLiteral("büyüktü"));
        QCOMPARE(wordTokenize(QStringLiteral("didn't"), std::nullopt, true).tokens.at(1), QStringLiteral("didn't"));
    }

    void syntheticHeadsShowTheirDesignedPatterns()
    {
        // The demo is only useful if the statistics recognise what each head was built to do.
        for (bool causal : {false, true}) {
            const auto engine = smallEngine(causal);
            const AttentionRun run = engine->run(QStringLiteral("The trophy didn't fit into the suitcase because it was too big."),
                                                 std::nullopt, nullptr);
            const auto analysis = analyzeAttention(*run.maps, run.roles);
            QVERIFY(analysis);
            for (const HeadStats& s : analysis->stats) {
                const HeadLabel designed = engine->designedPattern(s.layer, s.head);
                QVERIFY2(s.label == designed,
                         qPrintable(QStringLiteral("causal %1 L%2 H%3: %4, built as %5")
                                        .arg(causal).arg(s.layer).arg(s.head)
                                        .arg(headLabelName(s.label), headLabelName(designed))));
            }
        }
    }

    void itemModelsPassTheTester()
    {
        const auto engine = smallEngine();
        const AttentionRun run = engine->run(QStringLiteral("kedi mindere oturdu"), std::nullopt, nullptr);
        const auto analysis = analyzeAttention(*run.maps, run.roles);
        HeadStatsModel model;
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(HeadStatsModel::SortRole);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setStats(analysis->stats);
        QCOMPARE(model.rowCount(), 8);
        QCOMPARE(model.columnCount(), HeadStatsModel::FirstMetricColumn + int(allHeadMetrics().size()));
        // Sorting by sink mass puts the head with the most sink mass first.
        const int sinkColumn = HeadStatsModel::FirstMetricColumn + 2;
        QCOMPARE(HeadStatsModel::metricForColumn(sinkColumn), HeadMetric::SinkMass);
        proxy.sort(sinkColumn, Qt::DescendingOrder);
        double best = 0;
        for (const HeadStats& s : model.stats())
            best = std::max(best, s.sinkMass);
        QCOMPARE(proxy.index(0, sinkColumn).data(HeadStatsModel::SortRole).toDouble(), best);
        // Raising a threshold relabels in place.
        LabelThresholds strict;
        strict.sink = strict.noOp = strict.previous = strict.next = strict.self = 1.01;
        strict.broadEntropy = 1.01;
        model.setThresholds(strict);
        for (int r = 0; r < model.rowCount(); ++r)
            QCOMPARE(model.index(r, HeadStatsModel::LabelColumn).data().toString(), headLabelDisplayName(HeadLabel::Mixed));
        model.setStats({});
        QCOMPARE(model.rowCount(), 0);
    }

    void gridArrowKeysMoveBetweenHeadsAndLayers()
    {
        MainWindow window;
        window.addEngine(smallEngine());
        window.selectEngine(3);
        QVERIFY(window.runner()->waitForIdle(10000));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        HeadGridWidget* grid = window.grid();
        grid->setFocus();
        grid->select(0, 0);
        QSignalSpy activated(grid, &HeadGridWidget::headActivated);
        QTest::keyClick(grid, Qt::Key_Right);
        QTest::keyClick(grid, Qt::Key_Down);
        QCOMPARE(grid->selected(), std::make_pair(1, 1));
        QCOMPARE(activated.count(), 2);
        QTest::keyClick(grid, Qt::Key_Down); // already on the last layer
        QCOMPARE(grid->selected(), std::make_pair(1, 1));
        // The heatmap follows.
        QVERIFY(window.heatmap()->data().title.contains(QStringLiteral("layer 1 head 1")));
        // Clicking a thumbnail opens that head.
        const QRectF thumb = grid->layoutForTests().thumbnailRect(0, 3);
        QTest::mouseClick(grid, Qt::LeftButton, {}, thumb.center().toPoint());
        QCOMPARE(grid->selected(), std::make_pair(0, 3));
    }

    void staysResponsiveWhileComputing2048Tokens()
    {
        MainWindow window;
        SyntheticEngine::Config config;
        config.layers = 2;
        config.heads = 4;
        const int index = window.addEngine(std::make_shared<SyntheticEngine>(config));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.runner()->waitForIdle(10000));
        QStringList words;
        const QStringList vocabulary = QStringLiteral("the cat sat on a mat and looked at birds in trees").split(QLatin1Char(' '));
        for (int i = 0; i < 2046; ++i)
            words << vocabulary.at(i % vocabulary.size());
        // Measure the largest gap between ticks of a 10 ms timer while the job runs and is shown.
        QElapsedTimer clock;
        qint64 last = 0, maxGap = 0;
        QTimer ticker;
        ticker.setInterval(10);
        connect(&ticker, &QTimer::timeout, [&] {
            const qint64 now = clock.elapsed();
            maxGap = std::max(maxGap, now - last);
            last = now;
        });
        QElapsedTimer total;
        total.start();
        clock.start();
        ticker.start();
        window.selectEngine(index);
        window.setTexts(words.join(QLatin1Char(' ')));
        QTRY_VERIFY_WITH_TIMEOUT(window.currentResult() && window.currentResult()->run.maps &&
                                     window.currentResult()->run.maps->queries() == 2048,
                                 120000);
        // Let the window paint the result (grid, tiled heatmap, arcs) under the same watch.
        QTest::qWait(300);
        ticker.stop();
        qInfo("2,048 tokens: result shown after %lld ms; largest event-loop gap %lld ms", total.elapsed(), maxGap);
        QVERIFY2(maxGap < 100, qPrintable(QStringLiteral("event loop blocked for %1 ms").arg(maxGap)));
        QVERIFY(window.heatmap()->isTiled());
        QVERIFY(window.statusText().contains(QStringLiteral("2048")));
    }
};

QTEST_MAIN(TestExplorer)
#include "tst_explorer.moc"
