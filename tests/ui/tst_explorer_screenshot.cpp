// Writes PNGs of the whole explorer window (one per tab) into the build directory so a person can look
// at them. Not compared pixel for pixel; it checks only that the window drew something.

#include "explorer/comparisonwidget.h"
#include "explorer/headgridwidget.h"
#include "mainwindow.h"

#include <QDir>
#include <QTabWidget>
#include <QtTest>

using namespace attnscope;

class TestExplorerScreenshot : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void screenshots()
    {
        MainWindow window;
        window.resize(1400, 860);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // A built-in model when the build has one, else the synthetic encoder demo.
        int model = window.findModel(QStringLiteral("tiny-bert"));
        if (model < 0 || !window.selectEngine(model))
            QVERIFY(window.selectEngine(window.findModel(QStringLiteral("Synthetic encoder"))));
        window.setTexts(QStringLiteral("The trophy didn't fit into the suitcase because it was too big."));
        QVERIFY(window.runner()->waitForIdle(20000));
        window.openHead(std::min(1, window.currentResult()->analysis.layers - 1),
                        std::min(2, window.currentResult()->analysis.heads - 1));
        const QStringList names{QStringLiteral("heatmap"), QStringLiteral("compare"), QStringLiteral("arcs"),
                                QStringLiteral("statistics")};
        for (int tab = 0; tab < window.tabs()->count(); ++tab) {
            window.tabs()->setCurrentIndex(tab);
            if (tab == 1) window.comparison()->setMode(ComparisonWidget::Mode::Difference);
            QCOMPARE(window.width(), 1400); // rebuilding panes must not widen the window
            QTest::qWait(150);

            const QImage image = window.grab().toImage();
            QVERIFY(!image.isNull());
            const QString path = QDir(QStringLiteral(QT_TESTCASE_BUILDDIR))
                                     .filePath(QStringLiteral("explorer-%1.png").arg(names.value(tab)));
            QVERIFY(image.save(path));
            qInfo("wrote %s", qPrintable(path));
        }
        // The grid sorted by sink mass and coloured by [SEP] mass.
        window.grid()->setSortMetric(HeadMetric::SinkMass);
        window.grid()->setColorMetric(HeadMetric::SepMass);
        QTest::qWait(100);
        save(window, QStringLiteral("grid-sorted"));
        window.grid()->setSortMetric(std::nullopt);
        window.grid()->setColorMetric(std::nullopt);
        // The same head on the Turkish pair, tokens aligned.
        window.setTexts(QStringLiteral("Kupa bavula sığmadı çünkü çok büyüktü."));
        QVERIFY(window.runner()->waitForIdle(20000));
        window.tabs()->setCurrentIndex(1);
        window.comparison()->setMode(ComparisonWidget::Mode::TwoSentences);
        window.comparison()->setSecondSentence(QStringLiteral("Kupa bavula sığmadı çünkü çok küçüktü."));
        QVERIFY(window.comparison()->secondRunner()->waitForIdle(20000));
        QTest::qWait(150);
        save(window, QStringLiteral("two-sentences"));
        // The predictions panel: the built-in encoder filling [MASK], the built-in decoder's next token.
        if (const int encoder = window.findModel(QStringLiteral("tiny-bert-en-tr")); encoder >= 0) {
            QVERIFY(runOn(window, encoder,
                          QStringLiteral("The trophy didn't fit into the [MASK] because it was too big.")));
            window.tabs()->setCurrentIndex(0);
            QTest::qWait(150);
            save(window, QStringLiteral("predictions-encoder"));
        }
        if (const int decoder = window.findModel(QStringLiteral("tiny-llama-en-tr")); decoder >= 0) {
            QVERIFY(runOn(window, decoder, QStringLiteral("The old man walked slowly to the")));
            QTest::qWait(150);
            save(window, QStringLiteral("predictions-decoder"));
        }
        // A decoder on the long paragraph: sinks, the causal mask.
        QVERIFY(window.selectEngine(window.findModel(QStringLiteral("Synthetic decoder"))));
        window.setTexts(QStringLiteral(
            "Attention sinks appear when a model has read enough text. In a long passage, many heads "
            "send most of their attention to the very first token, whatever it says."));
        QVERIFY(window.runner()->waitForIdle(20000));
        window.tabs()->setCurrentIndex(0);
        window.openHead(0, 1);
        QTest::qWait(150);
        save(window, QStringLiteral("decoder"));
    }

private:
    // Selects model `index` and runs `text` on it; false where it cannot be selected or the run takes over
    // 20 s.
    static bool runOn(MainWindow& window, int index, const QString& text)
    {
        if (!window.selectEngine(index)) return false;
        window.setTexts(text);
        return window.runner()->waitForIdle(20000);
    }
    static void save(QWidget& window, const QString& name)
    {
        const QString path =
            QDir(QStringLiteral(QT_TESTCASE_BUILDDIR)).filePath(QStringLiteral("explorer-%1.png").arg(name));
        QVERIFY(window.grab().toImage().save(path));
        qInfo("wrote %s", qPrintable(path));
    }
};

QTEST_MAIN(TestExplorerScreenshot)
#include "tst_explorer_screenshot.moc"
