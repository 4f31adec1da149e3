// Presenter mode on a plain main window: theme, fonts, full screen, read-out, keyboard stepping
// through heads and layers, the examples menu; and turning it off restores the window.

#include "presenter/headcursor.h"
#include "presenter/presentermode.h"

#include <QAction>
#include <QCheckBox>
#include <QStyle>
#include <QStyleOptionButton>
#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QSignalSpy>
#include <QVBoxLayout>
#include <QtTest>

using namespace attnscope;

namespace {
double contrastRatio(QColor a, QColor b)
{
    auto luminance = [](QColor c) {
        auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
    };
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}
} // namespace

class TestPresenterMode : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void headCursorWalksEveryHead()
    {
        HeadCursor cursor(2, 3);
        QVector<QPair<int, int>> visited;
        for (int i = 0; i < 7; ++i) {
            visited << qMakePair(cursor.layer(), cursor.head());
            cursor.stepHead(+1);
        }
        QCOMPARE(visited, (QVector<QPair<int, int>>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {0, 0}}));
        cursor.set(0, 0);
        cursor.stepHead(-1);
        QCOMPARE(qMakePair(cursor.layer(), cursor.head()), qMakePair(1, 2));
        cursor.stepLayer(+1);
        QCOMPARE(qMakePair(cursor.layer(), cursor.head()), qMakePair(0, 2));
        cursor.set(9, -4);
        QCOMPARE(qMakePair(cursor.layer(), cursor.head()), qMakePair(1, 0));
        HeadCursor empty;
        empty.stepHead(1); // no model: nothing to step, no division by zero
        QVERIFY(!empty.isValid());
    }

    void highContrastTheme()
    {
        const QPalette p = PresenterMode::highContrastPalette();
        QVERIFY(contrastRatio(p.color(QPalette::Window), p.color(QPalette::WindowText)) >= 7.0);
        QVERIFY(contrastRatio(p.color(QPalette::Base), p.color(QPalette::Text)) >= 7.0);
        QVERIFY(contrastRatio(p.color(QPalette::Highlight), p.color(QPalette::HighlightedText)) >= 7.0);
        const HeatmapStyle style = PresenterMode::presenterStyle(HeatmapStyle{});
        QVERIFY(style.fontPointSize >= HeatmapStyle{}.fontPointSize * 1.5);
        QVERIFY(style.lineWidth >= 2.0);
    }

    void activatesAndRestores()
    {
        QMainWindow window;
        window.setCentralWidget(new QLabel(QStringLiteral("centre")));
        window.resize(640, 480);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QPalette palette = window.palette();
        const double pointSize = window.font().pointSizeF();
        PresenterMode presenter(&window);
        QCOMPARE(presenter.fullScreenAction()->shortcut(), QKeySequence(Qt::Key_F11));
        QVERIFY(!presenter.readoutDock()->isVisible());

        presenter.toggleAction()->trigger();
        QVERIFY(presenter.isActive());
        QCOMPARE(window.palette().color(QPalette::Window), QColor(Qt::black));
        QCOMPARE(window.centralWidget()->font().pointSizeF(), pointSize * PresenterMode::kFontScale);
        QTRY_VERIFY(window.isFullScreen());
        QVERIFY(presenter.readoutDock()->isVisible());
        presenter.showReadout(QStringLiteral("kedi → oturdu: 0.5465"));
        QCOMPARE(presenter.readout()->text(), QStringLiteral("kedi → oturdu: 0.5465"));
        QVERIFY(presenter.readout()->font().pointSizeF() >= 24);

        presenter.toggleAction()->trigger();
        QVERIFY(!presenter.isActive());
        QCOMPARE(window.palette().color(QPalette::Window), palette.color(QPalette::Window));
        QCOMPARE(window.centralWidget()->font().pointSizeF(), pointSize);
        QTRY_VERIFY(!window.isFullScreen());
        QVERIFY(!presenter.readoutDock()->isVisible());
    }

    // A check box on the presenter's black page: its box is drawn in light ink (it was black on black),
    // checked or not, and the window's own look comes back afterwards.
    void checkBoxesAreVisibleOnTheDarkPage()
    {
        QMainWindow window;
        auto* box = new QCheckBox(QStringLiteral("Words"));
        window.setCentralWidget(box);
        window.resize(640, 480);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        PresenterMode presenter(&window);
        presenter.toggleAction()->trigger();
        QVERIFY(presenter.isActive());
        QCoreApplication::processEvents();
        // The indicator: the part of the box left of its text.
        auto lightPixelsOfIndicator = [&] {
            QStyleOptionButton option;
            option.initFrom(box);
            const QRect indicator = box->style()->subElementRect(QStyle::SE_CheckBoxIndicator, &option, box);
            const QImage image = box->grab().toImage();
            int light = 0;
            for (int y = indicator.top(); y <= indicator.bottom(); ++y)
                for (int x = indicator.left(); x <= indicator.right(); ++x)
                    light += qGray(image.pixel(x, y)) > 128;
            return light;
        };
        for (bool checked : {false, true}) {
            box->setChecked(checked);
            const int light = lightPixelsOfIndicator();
            QVERIFY2(light >= 8,
                     qPrintable(QStringLiteral("checked %1: %2 light pixels").arg(checked).arg(light)));
        }
        presenter.toggleAction()->trigger();
        QCOMPARE(box->palette().color(QPalette::Window), window.palette().color(QPalette::Window));
    }

    void keyboardStepsThroughHeads()
    {
        QMainWindow window;
        auto* centre = new QLabel(QStringLiteral("centre"));
        centre->setFocusPolicy(Qt::StrongFocus);
        window.setCentralWidget(centre);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window)); // shortcuts only reach the active window
        centre->setFocus();
        PresenterMode presenter(&window);
        presenter.setHeadCursor(HeadCursor(4, 12, 0, 11));
        QSignalSpy spy(&presenter, &PresenterMode::headChanged);
        QTest::keyClick(centre, Qt::Key_PageDown);
        QCOMPARE(spy.size(), 1);
        QCOMPARE(spy.last(), (QList<QVariant>{1, 0}));
        QTest::keyClick(centre, Qt::Key_PageDown, Qt::ControlModifier);
        QCOMPARE(spy.last(), (QList<QVariant>{2, 0}));
        QTest::keyClick(centre, Qt::Key_PageUp);
        QCOMPARE(spy.last(), (QList<QVariant>{1, 11}));
        QTest::keyClick(centre, Qt::Key_PageUp, Qt::ControlModifier);
        QCOMPARE(spy.last(), (QList<QVariant>{0, 11}));
    }

    void examplesMenuEmitsSentences()
    {
        QMainWindow window;
        PresenterMode presenter(&window);
        const QStringList sentences{QStringLiteral("kedi mindere oturdu"),
                                    QStringLiteral("Kupa bavula sığmadı çünkü çok büyüktü.")};
        presenter.setExamples(sentences);
        QCOMPARE(presenter.examplesMenu()->actions().size(), 2);
        QSignalSpy spy(&presenter, &PresenterMode::exampleChosen);
        presenter.examplesMenu()->actions().at(1)->trigger();
        QCOMPARE(spy.size(), 1);
        QCOMPARE(spy.last().at(0).toString(), sentences.at(1));
    }
};

QTEST_MAIN(TestPresenterMode)
#include "tst_presentermode.moc"
