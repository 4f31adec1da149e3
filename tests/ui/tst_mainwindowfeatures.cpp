// Issue 7's pieces inside the explorer window: the Export menu writes what the view shows, presenter
// mode steps the window through heads, and settings come back on the next start.

#include "explorer/analysisrunner.h"
#include "explorer/comparisonwidget.h"
#include "explorer/headgridwidget.h"
#include "explorer/heatmapwidget.h"
#include "export/exportcontroller.h"
#include "mainwindow.h"
#include "mainwindowfeatures.h"
#include "presenter/presentermode.h"
#include "render/colormap.h"
#include "settings/appsettings.h"
#include "ui/support/testsettings.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

using namespace attnscope;

class TestMainWindowFeatures : public QObject
{
    Q_OBJECT

    static QStringList actionTexts(QMenu* menu)
    {
        QStringList texts;
        for (QAction* action : menu->actions())
            texts << action->text();
        return texts;
    }

private Q_SLOTS:
    void initTestCase() { useEmptyTestSettings(); }

    void menusAreFilled()
    {
        MainWindow window;
        QVERIFY(actionTexts(window.exportMenu()).contains(QStringLiteral("Heatmap as shown…")));
        QVERIFY(actionTexts(window.exportMenu()).contains(QStringLiteral("Head grid…")));
        QVERIFY(actionTexts(window.viewMenu()).contains(QStringLiteral("&Presenter mode")));
        QVERIFY(actionTexts(window.languageMenu()).contains(QStringLiteral("Türkçe")));
    }

    void exportsTheWorkedExampleAsShown()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // The window opens on a built-in model when one is installed; this test needs the worked example.
        QVERIFY(window.selectEngine(window.findModel(QStringLiteral("Worked example"))));
        QVERIFY(window.runner()->waitForIdle(60000)); // the run ends on a worker, however loaded the machine
        QTRY_VERIFY(window.currentResult() && window.currentResult()->run.maps &&
                    window.currentResult()->run.maps->queries() == 3);
        ExportController* controller = window.features()->exportController();
        QString target = dir.filePath(QStringLiteral("view.csv"));
        controller->askPath = [&](const QString&, const QString&, bool folder) { return folder ? dir.path() : target; };
        controller->confirmOverwrite = [](const QStringList&) { return false; };
        QStringList errors;
        controller->showError = [&](const QString& message) { errors << message; };

        QVERIFY(window.features()->exportHeatmap());
        QFile csv(target);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 4);
        QCOMPARE(lines[0], QByteArray("query\\key,kedi,mindere,oturdu"));
        QCOMPARE(lines[1].split(',').at(1).toFloat(), window.heatmap()->data().value(0, 0));

        // A second export to the same file is declined by the (simulated) user: nothing changes.
        const QDateTime before = QFileInfo(target).lastModified();
        QVERIFY(!window.features()->exportHeatmap());
        QCOMPARE(QFileInfo(target).lastModified(), before);

        // The view's colour map is the export's.
        window.colorMapBox()->setCurrentIndex(window.colorMapBox()->findData(int(ColorMapKind::Magma)));
        target = dir.filePath(QStringLiteral("view.png"));
        QVERIFY(window.features()->exportHeatmap());
        const QImage image(target);
        QCOMPARE(image.size(), controller->imageSize * controller->scaleFactor);
        QVERIFY(errors.isEmpty());

        target = dir.filePath(QStringLiteral("grid.svg"));
        window.statusBar()->clearMessage();
        QVERIFY(window.features()->exportGrid());
        QVERIFY(QFileInfo(target).size() > 1000);
        // Where it went, and nothing more: the page kept its size.
        QCOMPARE(window.statusBar()->currentMessage(),
                 QStringLiteral("Saved to ") + QDir::toNativeSeparators(target));
        // A page too small for the grid's thumbnails and labels grows, and the status bar says so: to the
        // size the file has, from the size asked, and why.
        const QSize asked = controller->imageSize;
        controller->imageSize = QSize(60, 50);
        target = dir.filePath(QStringLiteral("small-grid.png"));
        QVERIFY(window.features()->exportGrid());
        const QSize page = QImage(target).size() / controller->scaleFactor;
        QVERIFY2(page.width() > 60 && page.height() > 50,
                 qPrintable(QStringLiteral("%1x%2").arg(page.width()).arg(page.height())));
        const QString notice = window.statusBar()->currentMessage();
        QVERIFY2(
            notice.contains(
                QStringLiteral("enlarged from 60×50 to %1×%2 px").arg(page.width()).arg(page.height())) &&
                notice.contains(QLatin1String("small-grid.png")) &&
                notice.contains(QLatin1String("head's number")),
            qPrintable(notice));
        QVERIFY(errors.isEmpty());
        controller->imageSize = asked;

        // The three view exports, from their Export menu entries: files of the asked size, the arcs with the
        // tokens as SVG text.
        auto trigger = [&window](const QString& text) {
            for (QAction* action : window.exportMenu()->actions())
                if (action->text() == text) {
                    action->trigger();
                    return true;
                }
            return false;
        };
        target = dir.filePath(QStringLiteral("arcs.svg"));
        QVERIFY(trigger(QStringLiteral("Arcs as shown…")));
        QFile svg(target);
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray arcs = svg.readAll();
        QVERIFY(arcs.contains(">mindere</text>"));
        // Stamped with the heads it shows (issue 36), unless the Export menu's setting is off.
        QAction* stamp = window.features()->exportStampAction();
        QVERIFY(stamp && stamp->isCheckable() && stamp->isChecked());
        QVERIFY2(arcs.contains("kedi mindere oturdu") && arcs.contains("layer 0, head 0"), arcs.right(1500).constData());
        stamp->setChecked(false);
        target = dir.filePath(QStringLiteral("arcs-bare.svg"));
        QVERIFY(trigger(QStringLiteral("Arcs as shown…")));
        QFile bare(target);
        QVERIFY(bare.open(QIODevice::ReadOnly));
        const QByteArray bareArcs = bare.readAll();
        QVERIFY(bareArcs.contains(">mindere</text>") && !bareArcs.contains("layer 0, head 0"));
        stamp->setChecked(true);
        for (const QString& text : {QStringLiteral("Comparison as shown…"), QStringLiteral("Statistics chart…")}) {
            target = dir.filePath(text.left(4) + QStringLiteral(".png"));
            QVERIFY2(trigger(text), qPrintable(text));
            const QImage view(target);
            // The comparison's page is fitted to its panes (ComparisonWidget::exportPageSize).
            const QSize expected = text.startsWith(QLatin1String("Comp"))
                                       ? window.comparison()->exportPageSize(controller->imageSize)
                                       : controller->imageSize;
            QCOMPARE(view.size(), expected * controller->scaleFactor);
            // A page other than the one asked is said in the status bar, with both sizes and why. Two
            // square panes side by side cannot fill 1200×1000: the comparison's page is always fitted here.
            if (text.startsWith(QLatin1String("Comp"))) QVERIFY(expected != controller->imageSize);
            if (expected != controller->imageSize) {
                const QString said = window.statusBar()->currentMessage();
                QVERIFY2(said.contains(QStringLiteral("the page is %1×%2 px instead of %3×%4")
                                           .arg(expected.width())
                                           .arg(expected.height())
                                           .arg(controller->imageSize.width())
                                           .arg(controller->imageSize.height())) &&
                             said.contains(QLatin1String("every token's label")),
                         qPrintable(said));
            }
            // Not an empty page: the panes or the bars cover a good part of it.
            int coloured = 0, probes = 0;
            for (int y = 0; y < view.height(); y += 9)
                for (int x = 0; x < view.width(); x += 9, ++probes)
                    coloured += view.pixelColor(x, y) != QColor(Qt::white);
            QVERIFY2(coloured > probes / 10, qPrintable(QStringLiteral("%1: %2 of %3").arg(text).arg(coloured).arg(probes)));
        }
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    }

    void presenterStepsThroughHeads()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.selectEngine(window.findModel(QStringLiteral("Synthetic encoder"))); // several layers and heads
        QVERIFY(window.runner()->waitForIdle(60000)); // the run ends on a worker, however loaded the machine
        QTRY_VERIFY(window.currentResult() && window.currentResult()->analysis.heads > 1);
        QTRY_COMPARE(window.features()->presenter()->headCursor().heads(), window.currentResult()->analysis.heads);
        PresenterMode* presenter = window.features()->presenter();
        const double normalFont = window.heatmap()->heatmapStyle().fontPointSize;
        presenter->setActive(true);
        QCOMPARE(window.palette().color(QPalette::Window), QColor(Qt::black));
        QVERIFY(window.heatmap()->heatmapStyle().fontPointSize >= normalFont * 1.5);
        QVERIFY(window.heatmap()->heatmapStyle().lineWidth >= 2.0);
        const auto start = window.grid()->selected();
        presenter->stepActions().at(0)->trigger(); // next head
        QCOMPARE(window.grid()->selected(), std::make_pair(start.first, start.second + 1));
        presenter->stepActions().at(2)->trigger(); // next layer
        QCOMPARE(window.grid()->selected(), std::make_pair(start.first + 1, start.second + 1));
        // The big read-out follows the heatmap's hover text.
        Q_EMIT window.heatmap()->hoverChanged(QStringLiteral("a → b: 0.5"));
        QCOMPARE(presenter->readout()->text(), QStringLiteral("a → b: 0.5"));
        presenter->setActive(false);
        QCOMPARE(window.heatmap()->heatmapStyle().fontPointSize, normalFont);
    }

    void settingsComeBack()
    {
        {
            MainWindow window;
            window.colorMapBox()->setCurrentIndex(window.colorMapBox()->findData(int(ColorMapKind::Cividis)));
            window.scaleBox()->setCurrentIndex(window.scaleBox()->findData(int(HeatmapScale::Log)));
            window.resize(1111, 777);
            window.features()->saveSettings();
        }
        MainWindow window;
        QCOMPARE(ColorMapKind(window.colorMapBox()->currentData().toInt()), ColorMapKind::Cividis);
        QCOMPARE(HeatmapScale(window.scaleBox()->currentData().toInt()), HeatmapScale::Log);
        QCOMPARE(window.size(), QSize(1111, 777));
        QCOMPARE(window.heatmap()->heatmapStyle().colorMap, ColorMapKind::Cividis);
    }
};

QTEST_MAIN(TestMainWindowFeatures)
#include "tst_mainwindowfeatures.moc"
