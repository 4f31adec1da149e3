// The comparison modes at classroom scale (issue 36, point 5): at 1280×800 "Difference of two heads" and
// "Same head, two sentences" draw matrices of 300 px or more, as "Heads side by side" does; the default
// second sentence is in Text A's language, so that its tokens line up with A's.

#include "explorer/analysisrunner.h"
#include "explorer/comparisonwidget.h"
#include "explorer/heatmapwidget.h"
#include "explorer/secondsentence.h"
#include "mainwindow.h"
#include "ui/support/languagerows.h"
#include "ui/support/shownwindow.h"

#include <QScrollArea>
#include <QScrollBar>
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

    // Every mode's matrices at 1280×800, in the English and the Turkish window, on the Winograd
    // sentence and on its Turkish twin: 300 px or more across, and every pane inside the tab.
    void panesAreFullSize_data()
    {
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("language");
        QTest::addColumn<QString>("text");
        const std::pair<const char*, int> modes[] = {
            {"side by side", int(ComparisonWidget::Mode::SideBySide)},
            {"difference", int(ComparisonWidget::Mode::Difference)},
            {"two sentences", int(ComparisonWidget::Mode::TwoSentences)}};
        for (const auto& [name, mode] : modes)
            for (const char* language : {"en", "tr"}) {
                const QString text =
                    qstrcmp(language, "en") == 0
                        ? QStringLiteral("The trophy didn't fit into the suitcase because it was too big.")
                        : QStringLiteral("Kupa bavula sığmadı çünkü çok büyüktü.");
                QTest::addRow("%s, %s", name, language) << mode << QString::fromLatin1(language) << text;
            }
    }
    void panesAreFullSize()
    {
        QFETCH(int, mode);
        QFETCH(QString, text);
        SET_ROW_LANGUAGE(languages);
        MainWindow window;
        QVERIFY(showWithModel(window, QStringLiteral("tiny-bert-en-tr")));
        QVERIFY(runText(window, text));
        ComparisonWidget* comparison = window.comparison();
        window.tabs()->setCurrentWidget(comparison);
        comparison->setMode(ComparisonWidget::Mode(mode));
        QVERIFY(comparison->secondRunner()->waitForIdle(60000));
        const int expected = mode == int(ComparisonWidget::Mode::SideBySide) ? 2 : 3;
        QTRY_COMPARE(int(comparison->panes().size()), expected);
        QTRY_VERIFY(comparison->panes().front()->isVisible());
        QCoreApplication::processEvents();
        // Nothing runs past the tab: every pane lies inside the pane area's viewport, which does not
        // scroll sideways, and the window is no wider than the screen it was given.
        QCOMPARE(window.width(), 1280);
        QScrollArea* scroll = comparison->paneScrollArea();
        const QRect viewport = scroll->viewport()->rect();
        for (HeatmapWidget* pane : comparison->panes()) {
            const QRect inViewport(pane->mapTo(scroll->viewport(), QPoint(0, 0)), pane->size());
            QVERIFY2(viewport.contains(inViewport),
                     qPrintable(QStringLiteral("%1: pane %2,%3 %4×%5 outside the %6×%7 viewport")
                                    .arg(pane->data().title)
                                    .arg(inViewport.x())
                                    .arg(inViewport.y())
                                    .arg(inViewport.width())
                                    .arg(inViewport.height())
                                    .arg(viewport.width())
                                    .arg(viewport.height())));
        }
        QCOMPARE(scroll->horizontalScrollBar()->maximum(), 0);
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
