// "Open in lesson" in the explorer: triggering the action on a real model's head opens a LessonWindow
// whose softmax step equals that head's attention (the P the explorer shows) to 1e-5, with the tokens'
// labels; the synthetic demo (no Q/K/V) leave the action disabled. The lesson's KV-cache calculator shows
// the explorer's decoder.

#include "attention/attentionmaps.h"
#include "explorer/explorerresult.h"
#include "explorer/guidedmodellist.h"
#include "explorer/syntheticengine.h"
#include "explorer/transformerengine.h"
#include "lesson/kvcachepanel.h"
#include "lesson/lessonlauncher.h"
#include "lesson/lessonview.h"
#include "lesson/lessonwindow.h"
#include "mainwindow.h"

#include <QAction>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QTableWidget>
#include <QtTest>
#include <cmath>

using namespace attnscope;

class TestOpenInLesson : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void openedWindowShowsTheHeadsAttention_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("layer");
        QTest::addColumn<int>("head");
        // Causal, GQA, RoPE: a longer input, the first 16 tokens are an exact prefix.
        QTest::newRow("tiny-llama L2 H5")
            << QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-llama-en-tr")
            << QStringLiteral("The cat sat on the mat because it was warm and the sun was shining.") << 2
            << 5;
        // Bidirectional: the whole input fits in 16 tokens.
        QTest::newRow("bert_s0 L1 H2") << QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/bert_s0")
                                       << QStringLiteral("the quick brown fox") << 1 << 2;
    }

    void openedWindowShowsTheHeadsAttention()
    {
        QFETCH(QString, folder);
        QFETCH(QString, text);
        QFETCH(int, layer);
        QFETCH(int, head);
        if (!QFileInfo::exists(folder + QStringLiteral("/config.json"))) QSKIP("model folder not available");
        MainWindow window;
        QVERIFY(window.runner()->waitForIdle(10000));
        QVERIFY(window.selectEngine(window.addEngine(TransformerEngine::open(folder, 1))));
        window.setTexts(text);
        QTRY_VERIFY_WITH_TIMEOUT(window.runner()->waitForIdle(100) && window.currentResult() &&
                                     window.currentResult()->textA == text &&
                                     window.currentResult()->run.capture,
                                 20000);
        window.openHead(layer, head);
        QAction* action = window.openInLessonAction();
        QVERIFY(action->isEnabled());
        QVERIFY(window.lessonMenu()->actions().contains(action));
        QVERIFY(window.findChildren<LessonWindow*>().isEmpty());

        action->trigger();

        const QList<LessonWindow*> windows = window.findChildren<LessonWindow*>();
        QCOMPARE(windows.size(), 1);
        QVERIFY(windows.first()->isVisible());
        const LessonModel& lesson = windows.first()->view()->lesson();
        const AttentionMaps& maps = *window.currentResult()->run.maps;
        const int count = std::min(maps.queries(), int(LessonModel::kMaxHeadTokens));
        if (!window.currentResult()->run.roles.causal)
            QCOMPARE(count, maps.queries()); // the row chose an input that fits whole
        QCOMPARE(lesson.tokenCount(), count);
        QCOMPARE(lesson.tokens(), window.currentResult()->run.labels.mid(0, count));
        const Eigen::MatrixXd& p = lesson.probabilities();
        const std::vector<float> expected = maps.tile(layer, head, 0, count, 0, count);
        double worst = 0;
        for (int i = 0; i < count; ++i)
            for (int j = 0; j < count; ++j)
                worst = std::max(worst, std::abs(p(i, j) - double(expected[size_t(i * count + j)])));
        QVERIFY2(worst <= 1e-5, qPrintable(QStringLiteral("max |P_lesson - P_head| = %1").arg(worst)));
    }

    // The calculator's first row is the chosen decoder, with its layers, KV heads and head size as its
    // config.json gives them and the bytes by hand; a lesson window already open follows a change of
    // model, and an encoder (it keeps no KV cache) leaves only the published models.
    void kvCalculatorShowsTheChosenDecoder()
    {
        MainWindow window;
        QVERIFY(window.runner()->waitForIdle(10000));
        auto firstRow = [](const LessonWindow* lesson) {
            const QTableWidget* table = lesson->view()->kvCachePanel()->table();
            QStringList cells;
            for (int c = 0; c < table->columnCount(); ++c)
                cells << table->item(0, c)->text();
            return cells;
        };
        // tiny-llama-en-tr: 4 layers, 8 heads, 4 KV heads, hidden 128 (head size 16). Per token:
        // 4 × 2 × 4 × 16 numbers × 2 bytes (FP16) = 1,024 bytes.
        auto tiny = TransformerEngine::open(
            QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-llama-en-tr"), 1);
        const QString tinyName = tiny->displayName();
        QVERIFY(window.selectEngine(window.addEngine(std::move(tiny))));
        LessonWindow* lesson = window.lessonLauncher()->openWorkedExample();
        QCOMPARE(firstRow(lesson).mid(0, 5),
                 (QStringList{tinyName, QStringLiteral("GQA"), QStringLiteral("4"),
                              QStringLiteral("2 × 4 KV heads × 16"), formatBytesForPeople(1024)}));

        // An encoder: the published models only.
        QVERIFY(window.selectEngine(window.addEngine(
            TransformerEngine::open(QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/bert_s0"), 1))));
        QCOMPARE(firstRow(lesson).first(), QStringLiteral("Llama-3-8B"));
        QCOMPARE(lesson->view()->kvCachePanel()->table()->rowCount(), int(kvCachePresets().size()));

        // gpt2_s0: 2 layers, 4 heads (each its own keys and values: MHA), n_embd 32 (head size 8):
        // 2 × 2 × 4 × 8 × 2 = 256 bytes.
        auto oracle = TransformerEngine::open(QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/gpt2_s0"), 1);
        const QString oracleName = oracle->displayName();
        QVERIFY(window.selectEngine(window.addEngine(std::move(oracle))));
        QCOMPARE(firstRow(lesson).mid(0, 5),
                 (QStringList{oracleName, QStringLiteral("MHA"), QStringLiteral("2"),
                              QStringLiteral("2 × 4 KV heads × 8"), formatBytesForPeople(256)}));
        // A window opened now starts with it too.
        QCOMPARE(firstRow(window.lessonLauncher()->openWorkedExample()).first(), oracleName);
        QVERIFY(window.runner()->waitForIdle(20000));
    }

    // Issue 34, point 5: a lesson opened on a model whose heads show no sink says so and names the guided
    // list's real decoder; the worked example says nothing about sinks, and a result with a sink head gets no
    // note. The truth is the attention itself: no head of gpt2_s0 (a 2-layer decoder with random weights)
    // puts half of its attention on the first token (LabelThresholds::sink), read from the maps here, not
    // from the head statistics. (The built-in tiny-llama is no such case on every text: one of its heads
    // puts 0.63 on the first token of the sentence of openedWindowShowsTheHeadsAttention.)
    void noSinkModelLessonPointsToTheGuidedDecoder()
    {
        MainWindow window;
        QVERIFY(window.runner()->waitForIdle(10000));
        QVERIFY(window.selectEngine(window.addEngine(
            TransformerEngine::open(QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/gpt2_s0"), 1))));
        const QString text =
            QStringLiteral("The cat sat on the mat because it was warm and the sun was shining.");
        window.setTexts(text);
        QTRY_VERIFY_WITH_TIMEOUT(window.runner()->waitForIdle(100) && window.currentResult() &&
                                     window.currentResult()->textA == text &&
                                     window.currentResult()->run.capture,
                                 20000);
        const AttentionMaps& maps = *window.currentResult()->run.maps;
        const int n = maps.queries();
        double largest = 0; // the mean of P[i, 0] over the queries after the first (P[0, 0] is 1 when causal)
        for (int layer = 0; layer < maps.layers(); ++layer)
            for (int head = 0; head < maps.heads(); ++head) {
                const std::vector<float> p = maps.tile(layer, head, 0, n, 0, n);
                double sum = 0;
                for (int i = 1; i < n; ++i)
                    sum += p[size_t(i * n)];
                largest = std::max(largest, sum / (n - 1));
            }
        QVERIFY2(largest < 0.4, qPrintable(QString::number(largest))); // well under the 0.5 of a sink
        window.openHead(1, 2);
        QVERIFY(window.openInLessonAction()->isEnabled());
        window.openInLessonAction()->trigger();
        const QList<LessonWindow*> windows = window.findChildren<LessonWindow*>();
        QCOMPARE(windows.size(), 1);
        const QLabel* note = windows.first()->view()->modelNote();
        QVERIFY(note->isVisible());
        QVERIFY(!guidedStreamingDecoder().isEmpty());
        QVERIFY2(note->text().contains(guidedStreamingDecoder()), qPrintable(note->text()));
        QVERIFY2(note->text().contains(QLatin1String("too small to have attention sinks")),
                 qPrintable(note->text()));

        LessonWindow* worked = window.lessonLauncher()->openWorkedExample();
        QVERIFY(!worked->view()->modelNote()->isVisible());
        QVERIFY(worked->view()->modelNote()->text().isEmpty());

        // The same run with one head made a sink in its statistics: no note.
        ExplorerResult withSink = *window.currentResult();
        withSink.analysis.stats.front().sinkMass = 0.9;
        QString message;
        LessonWindow* sinkLesson = window.lessonLauncher()->openHead(&withSink, 1, 2, &message);
        QVERIFY2(sinkLesson, qPrintable(message));
        QVERIFY(!sinkLesson->view()->modelNote()->isVisible());
        QVERIFY(window.runner()->waitForIdle(20000));
    }

    void demoEngineLeavesTheActionDisabled()
    {
        MainWindow window;
        QVERIFY(window.runner()->waitForIdle(10000));
        SyntheticEngine::Config config;
        config.layers = 2;
        config.heads = 2;
        config.threads = 1;
        QVERIFY(window.selectEngine(window.addEngine(std::make_shared<SyntheticEngine>(config))));
        window.setTexts(QStringLiteral("a synthetic demo"));
        QTRY_VERIFY_WITH_TIMEOUT(window.runner()->waitForIdle(100) && window.currentResult() &&
                                     window.currentResult()->textA == QStringLiteral("a synthetic demo"),
                                 20000);
        QVERIFY(!window.currentResult()->run.capture);
        QVERIFY(!window.openInLessonAction()->isEnabled());
        QVERIFY(!window.openInLesson());
        QVERIFY(window.findChildren<LessonWindow*>().isEmpty());
    }
};

QTEST_MAIN(TestOpenInLesson)
#include "tst_openinlesson.moc"
