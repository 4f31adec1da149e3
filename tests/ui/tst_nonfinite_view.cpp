// A model whose weights hold NaN in the window (issue 18 item 4): the run fails with the runtime's own
// message ("layer 0: NaN in the queries (from weight ...?)") shown in the failure banner above the views,
// and no heatmap, grid or statistic is ever drawn from its numbers (they used to be painted as zeros).

#include "core/support/modelfixtures.h"
#include "explorer/analysisrunner.h"
#include "explorer/headgridwidget.h"
#include "explorer/headstatsmodel.h"
#include "explorer/heatmapwidget.h"
#include "explorer/runstatebanner.h"
#include "mainwindow.h"

#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <cstring>
#include <limits>

using namespace attnscope;
using namespace attnscope::testing;

class TestNonFiniteView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void nanModelShowsTheMessageAndNoHeatmap()
    {
        QStandardPaths::setTestModeEnabled(true); // opening a folder remembers it in the recent list
        QSettings().remove(QStringLiteral("models/recent"));
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("nan-gpt2"));
        copyModel(oracleFolder(QStringLiteral("gpt2_s0")), folder, [](std::vector<TensorToWrite>& tensors) {
            for (TensorToWrite& t : tensors)
                if (t.name == QLatin1String("transformer.h.0.attn.c_attn.weight")) {
                    const float nan = std::numeric_limits<float>::quiet_NaN();
                    std::memcpy(t.data.data() + 4 * 3, &nan, 4);
                }
        });

        MainWindow window;
        window.resize(1200, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.runner()->waitForIdle(20000)); // the start-up model
        QSignalSpy results(window.runner(), &AnalysisRunner::resultReady);
        QSignalSpy failures(window.runner(), &AnalysisRunner::failed);

        window.openModelFolder(folder);
        QVERIFY(window.runner()->waitForIdle(20000));
        window.setTexts(QStringLiteral("The quick brown fox"));
        QVERIFY(window.runner()->waitForIdle(20000));

        // Every run of the NaN model failed, each with the message naming the stage and the weight.
        QTRY_VERIFY(failures.size() >= 1);
        QCOMPARE(results.size(), 0);
        const QString expected = QStringLiteral("layer 0: NaN in the queries (from weight "
                                                "transformer.h.0.attn.c_attn.weight, which holds NaN?)");
        for (const QList<QVariant>& failure : failures)
            QVERIFY2(failure.at(1).toString().contains(expected), qPrintable(failure.at(1).toString()));
        // The failure banner says the same, in red, above the views.
        QTRY_COMPARE(window.runStateBanner()->state(), RunStateBanner::State::Failure);
        QVERIFY(window.runStateBanner()->isVisible());
        QVERIFY2(window.runStateBanner()->text().contains(expected),
                 qPrintable(window.runStateBanner()->text()));
        QVERIFY(window.windowTitle().contains(QStringLiteral("failed")));

        // Nothing of the NaN model reached the views: no result, no heatmap, no grid, no statistics.
        QVERIFY(!window.currentResult());
        QCOMPARE(window.heatmap()->data().rows, 0);
        for (float v : window.heatmap()->data().values)
            QVERIFY(std::isfinite(v));
        QCOMPARE(window.statsModel()->rowCount(), 0);
    }
};

QTEST_MAIN(TestNonFiniteView)
#include "tst_nonfinite_view.moc"
