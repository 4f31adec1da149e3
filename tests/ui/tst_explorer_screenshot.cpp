// Writes PNGs of the whole explorer window (one per tab) into the build directory so a person can look
// at them. Not compared pixel for pixel; it checks only that the window drew something.

#include "explorer/comparisonwidget.h"
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
        window.selectEngine(1); // synthetic encoder demo
        window.setTexts(QStringLiteral("The trophy didn't fit into the suitcase because it was too big."));
        QVERIFY(window.runner()->waitForIdle(20000));
        window.openHead(1, 2);
        const QStringList names{QStringLiteral("heatmap"), QStringLiteral("compare"), QStringLiteral("arcs"),
                                QStringLiteral("statistics")};
        for (int tab = 0; tab < window.tabs()->count(); ++tab) {
            window.tabs()->setCurrentIndex(tab);
            if (tab == 1)
                window.comparison()->setMode(ComparisonWidget::Mode::Difference);
            QCOMPARE(window.width(), 1400); // rebuilding panes must not widen the window
            QTest::qWait(150);

            const QImage image = window.grab().toImage();
            QVERIFY(!image.isNull());
            const QString path = QDir(QStringLiteral(QT_TESTCASE_BUILDDIR)).filePath(
                QStringLiteral("explorer-%1.png").arg(names.value(tab)));
            QVERIFY(image.save(path));
            qInfo("wrote %s", qPrintable(path));
        }
    }
};

QTEST_MAIN(TestExplorerScreenshot)
#include "tst_explorer_screenshot.moc"
