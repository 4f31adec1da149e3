// The explorer's compute backend (View > Compute backend): a real built-in model gives the same
// attention on the CPU and on every GPU backend that starts here (Vulkan, OpenGL under xvfb-run), the
// status bar names the backend and its device, the choice is remembered, and a backend that cannot start
// falls back to the CPU with a one-line notice; the head scan says it runs on the CPU when a GPU backend is
// chosen.

#include "attention/attentionmaps.h"
#include "backend/cpubackend.h"
#include "explorer/ablationrunner.h"
#include "explorer/backenddescription.h"
#include "explorer/explorerresult.h"
#include "mainwindow.h"
#include "settings/appsettings.h"

#include <QAction>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>
#include <algorithm>
#include <cmath>

using namespace attnscope;

Q_DECLARE_METATYPE(attnscope::BackendKind)

namespace {

// A liveness bound, not a speed target: Mesa's software Vulkan/GL share two cores with the other tests
// (and, on a busy machine, other builds); a run there took 84 s once under load average 16.
constexpr int kIdleTimeoutMs = 180000;

// Every head of every layer, dense: [layer][head] -> row-major n_q × n_k.
std::vector<std::vector<float>> allHeads(const AttentionMaps& maps)
{
    std::vector<std::vector<float>> heads;
    for (int layer = 0; layer < maps.layers(); ++layer)
        for (int head = 0; head < maps.heads(); ++head)
            heads.push_back(maps.matrix(layer, head));
    return heads;
}

// One row per compute backend the explorer offers: "kind", and "api", the name its runs' backend text starts
// with.
void addBackendRows()
{
    QTest::addColumn<BackendKind>("kind");
    QTest::addColumn<QString>("api");
    QTest::newRow("cpu") << BackendKind::Cpu << QStringLiteral("CPU");
    QTest::newRow("vulkan") << BackendKind::Vulkan << QStringLiteral("Vulkan");
    QTest::newRow("opengl") << BackendKind::OpenGL << QStringLiteral("OpenGL");
}

} // namespace

class TestExplorerBackend : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // AppSettings goes to a test location
        qputenv("ATTNSCOPE_RESOURCES_DIR", QByteArray(ATTNSCOPE_SOURCE_DIR "/resources"));
        qputenv("HF_HUB_CACHE", QByteArray("/nonexistent/attnscope-test-hub"));
        AppSettings().setComputeBackend(QStringLiteral("cpu"));
    }

    void sameAttentionOnEveryBackend_data() { addBackendRows(); }

    // The built-in model opens on the first example sentence; its attention on the backend chosen
    // matches the CPU core's within 1e-5 (probabilities in [0, 1]).
    void sameAttentionOnEveryBackend()
    {
        QFETCH(BackendKind, kind);
        QFETCH(QString, api);
        MainWindow window;
        QVERIFY(window.runner()->waitForIdle(kIdleTimeoutMs));
        QVERIFY2(window.currentResult() && window.currentResult()->run.maps, "no built-in model result");
        window.setComputeBackend(BackendKind::Cpu);
        QVERIFY(window.runner()->waitForIdle(kIdleTimeoutMs));
        const auto cpu = window.currentResult();
        QVERIFY(cpu && cpu->run.maps);
        const QString cpuDevice = CpuBackend().deviceName();
        QCOMPARE(cpu->run.backend, QStringLiteral("CPU · ") + cpuDevice);
        QVERIFY(window.backendStatus().contains(QStringLiteral("CPU · ") + cpuDevice));
        const auto reference = allHeads(*cpu->run.maps);

        window.setComputeBackend(kind);
        QVERIFY(window.runner()->waitForIdle(kIdleTimeoutMs));
        QCOMPARE(window.computeBackendChoice(), kind);
        QCOMPARE(AppSettings().computeBackend(), backendKindName(kind));
        const auto* action =
            window.computeMenu()->findChild<QAction*>(QStringLiteral("backend-") + backendKindName(kind));
        QVERIFY(action && action->isChecked());
        const auto result = window.currentResult();
        QVERIFY(result && result->run.maps && result != cpu);
        const auto heads = allHeads(*result->run.maps);
        QCOMPARE(heads.size(), reference.size());
        double worst = 0;
        for (size_t h = 0; h < heads.size(); ++h) {
            QCOMPARE(heads[h].size(), reference[h].size());
            for (size_t i = 0; i < heads[h].size(); ++i)
                worst = std::max(worst, double(std::abs(heads[h][i] - reference[h][i])));
        }
        QVERIFY2(worst <= 1e-5, qPrintable(QStringLiteral("max |P - P_cpu| = %1").arg(worst)));

        if (!window.backendNotice().isEmpty()) {
            // It could not start here: the CPU ran it, and the status bar says so in one line.
            QVERIFY(!window.backendNotice().contains(QLatin1Char('\n')));
            QVERIFY(window.backendNotice().contains(QLatin1String("using the CPU")));
            QCOMPARE(result->run.backend, QStringLiteral("CPU · ") + cpuDevice);
            QSKIP(qPrintable(QStringLiteral("%1 cannot start here: %2").arg(api, window.backendNotice())));
        }
        // The status bar names the backend and the device it ran on.
        QVERIFY(result->run.backend.startsWith(api + QStringLiteral(" · ")));
        QVERIFY(result->run.backend.size() > api.size() + 3);
        QCOMPARE(result->run.backend, window.computeBackendDescription());
        QVERIFY2(window.backendStatus().contains(result->run.backend), qPrintable(window.backendStatus()));
        qInfo("%s", qPrintable(window.backendStatus()));
    }

    // A GPU that cannot start: the CPU computes, the notice says why in one line in the status bar,
    // and the choice is still remembered for the next window.
    void backendThatCannotStartFallsBackWithNotice_data()
    {
        QTest::addColumn<BackendKind>("kind");
        QTest::newRow("vulkan") << BackendKind::Vulkan;
        QTest::newRow("opengl") << BackendKind::OpenGL;
    }

    void backendThatCannotStartFallsBackWithNotice()
    {
        QFETCH(BackendKind, kind);
        AppSettings().setComputeBackend(QStringLiteral("cpu"));
        MainWindow window;
        QVERIFY(window.runner()->waitForIdle(kIdleTimeoutMs));
        const auto cpu = window.currentResult();
        QVERIFY(cpu && cpu->run.maps);
        QVERIFY(window.backendNotice().isEmpty());
        qputenv("ATTNSCOPE_GPU_FAULT", "start");
        window.setComputeBackend(kind);
        qunsetenv("ATTNSCOPE_GPU_FAULT");
        QVERIFY(window.runner()->waitForIdle(kIdleTimeoutMs));
        const QString notice = window.backendNotice();
        QVERIFY(notice.contains(QLatin1String("using the CPU")));
        QVERIFY(!notice.contains(QLatin1Char('\n')));
        auto* label = window.findChild<QLabel*>(QStringLiteral("backendNotice"));
        QVERIFY(label && !label->isHidden());
        QCOMPARE(label->text(), notice);
        const auto result = window.currentResult();
        QVERIFY(result && result->run.maps && result != cpu);
        QCOMPARE(result->run.backend, QStringLiteral("CPU · ") + CpuBackend().deviceName());
        QCOMPARE(allHeads(*result->run.maps), allHeads(*cpu->run.maps)); // the CPU core, bit for bit
        QCOMPARE(AppSettings().computeBackend(), backendKindName(kind));

        // Back to the CPU: the notice goes.
        window.setComputeBackend(BackendKind::Cpu);
        QVERIFY(window.backendNotice().isEmpty());
        QVERIFY(label->isHidden());
        QVERIFY(window.runner()->waitForIdle(kIdleTimeoutMs));
    }

    // The head scan's passes run on the CPU core whatever backend the views use: with a GPU backend chosen,
    // the progress bar says so while it runs and the note after it, naming the backend not used.
    void scanSaysItRunsOnTheCpu_data() { addBackendRows(); }

    void scanSaysItRunsOnTheCpu()
    {
        QFETCH(BackendKind, kind);
        QFETCH(QString, api);
        QVERIFY(scanBackendNote(nullptr).isEmpty());
        const CpuBackend cpu;
        QVERIFY(scanBackendNote(&cpu).isEmpty());
        MainWindow window;
        QVERIFY(window.runner()->waitForIdle(kIdleTimeoutMs));
        QVERIFY(window.selectEngine(window.findModel(QStringLiteral("tiny-bert"))));
        window.setComputeBackend(kind);
        window.setTexts(QStringLiteral("Kupa [MASK] sığmadı çünkü çok büyüktü."));
        QVERIFY(window.runner()->waitForIdle(kIdleTimeoutMs));
        if (!window.backendNotice().isEmpty())
            QSKIP(qPrintable(QStringLiteral("%1 cannot start here: %2").arg(api, window.backendNotice())));
        QVERIFY(window.ablationUnavailableReason().isEmpty());
        QSignalSpy scanned(window.ablationRunner(), &AblationRunner::scanFinished);
        window.scanButton()->click();
        const QString bar = window.scanProgressBar()->format();
        QVERIFY(scanned.wait(60000));
        const QString note = window.scanNote()->text();
        // The note says what the grid's colours mean (issue 36), in words, not just "KL".
        QVERIFY2(note.contains(
                     QLatin1String("how much the model's prediction changes when that head is switched off")),
                 qPrintable(note));
        if (kind == BackendKind::Cpu) {
            QVERIFY2(!bar.contains(QLatin1String("CPU")) && !note.contains(QLatin1String("CPU")),
                     qPrintable(bar + QStringLiteral(" / ") + note));
            return;
        }
        for (const QString& text : {bar, note}) {
            QVERIFY2(text.contains(QLatin1String("on the CPU")) && text.contains(api), qPrintable(text));
            QVERIFY(!text.contains(QLatin1Char('\n')));
        }
        window.setComputeBackend(BackendKind::Cpu);
        QVERIFY(window.runner()->waitForIdle(kIdleTimeoutMs));
    }

    void choiceIsRememberedByTheNextWindow()
    {
        AppSettings().setComputeBackend(QStringLiteral("opengl"));
        {
            MainWindow window;
            QCOMPARE(window.computeBackendChoice(), BackendKind::OpenGL);
            QVERIFY(window.runner()->waitForIdle(kIdleTimeoutMs));
        }
        AppSettings().setComputeBackend(QStringLiteral("no-such-backend"));
        QCOMPARE(AppSettings().computeBackend(), QStringLiteral("auto"));
    }
};

QTEST_MAIN(TestExplorerBackend)
#include "tst_explorer_backend.moc"
