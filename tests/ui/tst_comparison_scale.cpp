// The comparison modes at classroom scale (issue 36, point 5): at 1280×800 "Difference of two heads" and
// "Same head, two sentences" draw matrices of 300 px or more, as "Heads side by side" does; the default
// second sentence is in Text A's language, so that its tokens line up with A's.

#include "explorer/analysisrunner.h"
#include "explorer/comparisonwidget.h"
#include "explorer/heatmapwidget.h"
#include "explorer/secondsentence.h"
#include "mainwindow.h"
#include "ui/support/shownwindow.h"

#include <QStandardPaths>
#include <QTabWidget>
#include <QtTest>

using namespace attnscope;

namespace {

bool runText(MainWindow& window, const QString& text)
{
    window.setTexts(text);
    return waitForShownResult(window, text);
}

} // namespace

class TestComparisonScale : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void languageOfTextA_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("language");
        const int en = int(SentenceLanguage::English), tr = int(SentenceLanguage::Turkish);
        QTest::newRow("winograd en") << QStringLiteral(
                                            "The trophy didn't fit into the suitcase because it was too big.")
                                     << en;
        QTest::newRow("kupa tr") << QStringLiteral("Kupa bavula sığmadı çünkü çok büyüktü.") << tr;
        QTest::newRow("kedi tr") << QStringLiteral("kedi mindere oturdu") << tr; // -du: Turkish past tense
        QTest::newRow("cat en") << QStringLiteral("The cat sat on the mat and studied it.") << en;
        QTest::newRow("ascii tr") << QStringLiteral("bu bir kedi ve bir kopek") << tr;
        QTest::newRow("capital İ") << QStringLiteral("İstanbul") << tr;
        QTest::newRow("empty") << QString() << en;
    }
    void languageOfTextA()
    {
        QFETCH(QString, text);
        QFETCH(int, language);
        QCOMPARE(int(guessSentenceLanguage(text)), language);
        QCOMPARE(int(guessSentenceLanguage(defaultSecondSentence(text))), language);
    }

    // In the window: an English Text A gets an English B (and a Turkish A a Turkish B) until the user types
    // a B of their own, which is then kept.
    void defaultSecondSentenceFollowsTextA()
    {
        MainWindow window;
        QVERIFY(showWithModel(window, QStringLiteral("tiny-bert-en-tr")));
        ComparisonWidget* comparison = window.comparison();
        QVERIFY(runText(window,
                        QStringLiteral("The trophy didn't fit into the suitcase because it was too big.")));
        QCOMPARE(int(guessSentenceLanguage(comparison->secondSentence())), int(SentenceLanguage::English));
        QVERIFY(runText(window, QStringLiteral("Kupa bavula sığmadı çünkü çok büyüktü.")));
        QCOMPARE(int(guessSentenceLanguage(comparison->secondSentence())), int(SentenceLanguage::Turkish));
        comparison->setSecondSentence(QStringLiteral("My own sentence."));
        QVERIFY(runText(window, QStringLiteral("The cat sat on the mat.")));
        QCOMPARE(comparison->secondSentence(), QStringLiteral("My own sentence."));
    }

    // Every mode's matrices at 1280×800 on a 12-token sentence: 300 px or more across.
    void panesAreFullSize_data()
    {
        QTest::addColumn<int>("mode");
        QTest::newRow("side by side") << int(ComparisonWidget::Mode::SideBySide);
        QTest::newRow("difference") << int(ComparisonWidget::Mode::Difference);
        QTest::newRow("two sentences") << int(ComparisonWidget::Mode::TwoSentences);
    }
    void panesAreFullSize()
    {
        QFETCH(int, mode);
        MainWindow window;
        QVERIFY(showWithModel(window, QStringLiteral("tiny-bert-en-tr")));
        QVERIFY(runText(window,
                        QStringLiteral("The trophy didn't fit into the suitcase because it was too big.")));
        ComparisonWidget* comparison = window.comparison();
        window.tabs()->setCurrentWidget(comparison);
        comparison->setMode(ComparisonWidget::Mode(mode));
        QVERIFY(comparison->secondRunner()->waitForIdle(60000));
        const int expected = mode == int(ComparisonWidget::Mode::SideBySide) ? 2 : 3;
        QTRY_COMPARE(int(comparison->panes().size()), expected);
        QTRY_VERIFY(comparison->panes().front()->isVisible());
        QCoreApplication::processEvents();
        for (HeatmapWidget* pane : comparison->panes()) {
            const HeatmapGeometry& geometry = pane->geometryForTests();
            const double side = std::min(geometry.matrixWidth(), geometry.matrixHeight());
            QVERIFY2(side >= 300, qPrintable(QStringLiteral("%1: %2 × %3 px matrix in a %4 × %5 pane")
                                                 .arg(pane->data().title)
                                                 .arg(geometry.matrixWidth())
                                                 .arg(geometry.matrixHeight())
                                                 .arg(pane->width())
                                                 .arg(pane->height())));
        }
    }
};

QTEST_MAIN(TestComparisonScale)
#include "tst_comparison_scale.moc"
