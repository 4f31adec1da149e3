// The model picker at real size (issue 15, point 5): it lists the Hugging Face cache and .gguf files (also
// from a folder the user adds), shows each model's parameter count and memory estimate before loading,
// refuses a model that does not fit in MemAvailable with the numbers, and loads a large model and runs its
// forward pass off the GUI thread with progress and Cancel. The cache is a fake one made here: real-shaped
// headers over sparse (all-zero) data, so a "70B" costs no disk.

#include "explorer/analysisrunner.h"
#include "explorer/modelloader.h"
#include "explorer/modelpickerdelegate.h"
#include "explorer/progresspanel.h"
#include "explorer/runstatebanner.h"
#include "i18n/languagemanager.h"
#include "mainwindow.h"
#include "model/memoryestimate.h"
#include "settings/appsettings.h"
#include "support/ggufwriter.h"
#include "support/shapedmodel.h"
#include "support/testdata.h"
#include "ui/support/shownwindow.h"
#include "ui/support/testsettings.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QScopeGuard>
#include <QScreen>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QThread>
#include <QToolButton>
#include <QtTest>
#include <atomic>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

const QString kBuiltinLlama = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-llama-en-tr");

// A mid-sized Llama (151 MB of BF16 zeros, above MainWindow::kBackgroundLoadBytes) that the built-in's
// tokenizer (4096 ids) can drive.
LlamaShape midLlama()
{
    return {4096, 1024, 2816, 6, 16, 4, 2048, false};
}

// Saves the whole screen (the picker's popup is a window of its own) when ATTNSCOPE_SCREENSHOT_DIR is set.
void screenshot(const QString& name)
{
    const QString dir = qEnvironmentVariable("ATTNSCOPE_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QApplication::processEvents();
    QGuiApplication::primaryScreen()->grabWindow(0).save(dir + QLatin1Char('/') + name);
}

} // namespace

class TestModelPicker : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void listsCacheAndGgufWithEstimates();
    void refusesWhatDoesNotFit();
    void loadsInTheBackgroundWithProgress();
    void loadingCanBeCancelled();
    void forwardPassShowsProgressAndCancels();

private:
    int indexOf(MainWindow& window, const QString& name) const;
    QTemporaryDir m_home;
    QString m_hub;
};

void TestModelPicker::initTestCase()
{
    QVERIFY(m_home.isValid());
    useEmptyTestSettings();
    // English as the application loads it (its plural forms: "1 model added", "21 tokens"), so the
    // screenshots show what a user sees.
    QVERIFY(LanguageManager::shared()->setLanguage(QStringLiteral("en")));
    qputenv("HF_HUB_CACHE", QByteArray());
    qputenv("HF_HOME", m_home.filePath(QStringLiteral("hf")).toUtf8());
    m_hub = m_home.filePath(QStringLiteral("hf/hub"));
    // models--ORG--NAME/snapshots/REV/ as huggingface_hub lays it out.
    const QString tiny = m_hub + QStringLiteral("/models--org--tiny-llama/snapshots/r1");
    for (const char* file : {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"})
        QVERIFY(copyFileReplacing(kBuiltinLlama + QLatin1Char('/') + QLatin1String(file),
                                  tiny + QLatin1Char('/') + QLatin1String(file)));
    QVERIFY(writeShapedLlama(m_hub + QStringLiteral("/models--meta-llama--Llama-3.1-70B/snapshots/r1"),
                             LlamaShape::llama31_70b()));
    for (const char* name : {"mid-llama", "mid-llama-b"}) {
        const QString folder =
            m_hub + QStringLiteral("/models--test--%1/snapshots/r1").arg(QLatin1String(name));
        QVERIFY(writeShapedLlama(folder, midLlama()));
        QVERIFY(copyFileReplacing(kBuiltinLlama + QStringLiteral("/tokenizer.json"),
                                  folder + QStringLiteral("/tokenizer.json")));
    }
}

int TestModelPicker::indexOf(MainWindow& window, const QString& name) const
{
    for (int i = 0; i < window.modelCount(); ++i)
        if (window.modelBox()->itemText(i) == name) return i;
    return -1;
}

void TestModelPicker::listsCacheAndGgufWithEstimates()
{
    MainWindow window;
    QVERIFY(showSettled(window));
    const int tiny = indexOf(window, QStringLiteral("org/tiny-llama"));
    const int huge = indexOf(window, QStringLiteral("meta-llama/Llama-3.1-70B"));
    QVERIFY(tiny >= 0);
    QVERIFY(huge >= 0);
    // Parameter counts from the headers: the 70B's published 70,553,706,496; the tiny one's hand count
    // 4096·128·2 + 4·(2·128 + 128² + 2·128·64 + 128² + 3·128·352) + 128.
    const qint64 tinyCount =
        4096LL * 128 * 2 + 4LL * (2 * 128 + 128 * 128 + 2 * 128 * 64 + 128 * 128 + 3 * 128 * 352) + 128;
    QCOMPARE(window.modelInfo(tiny).parameters, tinyCount);
    QCOMPARE(window.modelInfo(huge).parameters, Q_INT64_C(70553706496));
    const QString hugeDetails =
        window.modelBox()->itemData(huge, ModelPickerDelegate::kModelDetailsRole).toString();
    QVERIFY2(hugeDetails.startsWith(QStringLiteral("70.55 B parameters · needs ≈ 14")),
             qPrintable(hugeDetails));
    QVERIFY(window.modelBox()->itemData(huge, Qt::ToolTipRole).toString().contains(hugeDetails));

    // A folder of .gguf files, added by the user: listed (and remembered for the next window).
    QTemporaryDir ggufDir;
    QVERIFY(ggufDir.isValid());
    QDir().mkpath(ggufDir.filePath(QStringLiteral("llama")));
    writeGgufFromFolder(QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/llama3_s0"),
                        ggufDir.filePath(QStringLiteral("llama/llama3-f16.gguf")), GgmlType::F16);
    const int before = window.modelCount();
    window.addModelListFolder(ggufDir.path());
    QCOMPARE(window.modelCount(), before + 1);
    const int gguf = indexOf(window, QStringLiteral("llama/llama3-f16.gguf"));
    QVERIFY(gguf >= 0);
    QVERIFY(window.modelFolder(gguf).endsWith(QStringLiteral("llama3-f16.gguf")));
    QVERIFY(window.modelInfo(gguf).parameters > 0);
    {
        MainWindow next;
        QVERIFY(indexOf(next, QStringLiteral("llama/llama3-f16.gguf")) >= 0);
        QVERIFY(next.runner()->waitForIdle(60000));
    }

    // The status bar says it in words: "1 model added from …", "21 tokens", never "(s)".
    QStringList status;
    for (const QLabel* label : window.statusBar()->findChildren<QLabel*>())
        if (!label->text().isEmpty()) status << label->text();
    QVERIFY2(
        status.contains(QStringLiteral("1 model added from ") + QDir::toNativeSeparators(ggufDir.path())),
        qPrintable(status.join(QStringLiteral(" | "))));
    QVERIFY2(!status.join(QLatin1Char(' ')).contains(QStringLiteral("(s)")),
             qPrintable(status.join(QStringLiteral(" | "))));

    window.modelBox()->showPopup();
    window.modelBox()->view()->setCurrentIndex(window.modelBox()->model()->index(huge, 0));
    QTRY_VERIFY(window.modelDetailsLabel()->text().startsWith(hugeDetails));
    QVERIFY(window.modelDetailsLabel()->text().endsWith(QStringLiteral(" available")));
    screenshot(QStringLiteral("model-picker-1280x800.png"));
    window.modelBox()->hidePopup();
}

void TestModelPicker::refusesWhatDoesNotFit()
{
    MainWindow window;
    QVERIFY(showSettled(window));
    const int before = window.currentEngineIndex();
    const int huge = indexOf(window, QStringLiteral("meta-llama/Llama-3.1-70B"));
    const std::optional<qint64> available = availableMemoryBytes();
    QVERIFY(available);
    QVERIFY2(*available < 141LL * 1000 * 1000 * 1000,
             "this test assumes a machine with less than 141 GB free");
    QVERIFY(!window.selectEngine(huge));
    QVERIFY(!window.isLoadingModel());
    QCOMPARE(window.currentEngineIndex(), before);
    QCOMPARE(window.runStateBanner()->state(), RunStateBanner::State::Failure);
    const QString message = window.runStateBanner()->text();
    QVERIFY2(message.contains(QStringLiteral("meta-llama/Llama-3.1-70B is not loaded: it needs about 14")),
             qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("141.11 GB of weights")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("MemAvailable")), qPrintable(message));
    QVERIFY2(
        message.contains(QStringLiteral("only ") + formatBytes(*available).section(QLatin1Char('.'), 0, 0)),
        qPrintable(message)); // the figure moves as others use memory; its integer part rarely does
    screenshot(QStringLiteral("model-refused-1280x800.png"));
}

void TestModelPicker::loadsInTheBackgroundWithProgress()
{
    MainWindow window;
    QVERIFY(showSettled(window));
    const int mid = indexOf(window, QStringLiteral("test/mid-llama"));
    QVERIFY(mid >= 0);
    QVERIFY(window.modelInfo(mid).weightBytes >= MainWindow::kBackgroundLoadBytes);
    QSignalSpy progress(window.modelLoader(), &ModelLoader::progress);
    QSignalSpy results(window.runner(), &AnalysisRunner::resultReady);
    QVERIFY(window.selectEngine(mid));
    QVERIFY(window.isLoadingModel()); // returned at once: the GUI thread is free while it loads
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoadingModel(), 60000);
    QCOMPARE(window.currentEngineIndex(), mid);
    QVERIFY(!window.progressPanel()->isVisible());
    // Opening, then the weights read in byte counts that end at the files' size.
    QVERIFY(progress.size() >= 2);
    QCOMPARE(progress.first().at(1).value<ModelLoader::Stage>(), ModelLoader::Stage::Opening);
    const QList<QVariant> last = progress.last();
    QCOMPARE(last.at(1).value<ModelLoader::Stage>(), ModelLoader::Stage::ReadingWeights);
    QCOMPARE(last.at(2).toLongLong(), last.at(3).toLongLong());
    QVERIFY(last.at(3).toLongLong() >= window.modelInfo(mid).weightBytes);
    // Then the text runs on it.
    QTRY_VERIFY_WITH_TIMEOUT(window.currentResult() &&
                                 window.currentResult()->modelName.contains(QStringLiteral("mid-llama")),
                             60000);
}

void TestModelPicker::loadingCanBeCancelled()
{
    MainWindow window;
    QVERIFY(showSettled(window));
    const int before = window.currentEngineIndex();
    const int mid = indexOf(window, QStringLiteral("test/mid-llama-b"));
    QSignalSpy cancelled(window.modelLoader(), &ModelLoader::cancelled);
    QSignalSpy loaded(window.modelLoader(), &ModelLoader::loaded);
    // The load holds before it opens the model until the test lets it go: the progress is there to see
    // and the cancel lands mid-load however fast or loaded the machine is.
    std::atomic<bool> held{false}, released{false};
    window.modelLoader()->setLoadStartHook([&] {
        held.store(true);
        while (!released.load())
            QThread::msleep(2);
    });
    const auto release = qScopeGuard([&] { released.store(true); }); // also when a check fails
    QVERIFY(window.selectEngine(mid));
    QVERIFY(window.isLoadingModel());
    QTRY_VERIFY_WITH_TIMEOUT(held.load(), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(window.progressPanel()->isVisible(), 60000);
    QVERIFY(window.isLoadingModel());
    window.progressPanel()->cancelButton()->click();
    released.store(true);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoadingModel(), 60000);
    QCOMPARE(cancelled.size(), 1);
    QCOMPARE(loaded.size(), 0);
    QCOMPARE(window.currentEngineIndex(), before);
    QCOMPARE(window.modelBox()->currentIndex(), before);
    QVERIFY(window.engines()[size_t(mid)] == nullptr);
    QVERIFY(!window.progressPanel()->isVisible());
}

void TestModelPicker::forwardPassShowsProgressAndCancels()
{
    MainWindow window;
    QVERIFY(showSettled(window));
    const int tiny = indexOf(window, QStringLiteral("org/tiny-llama"));
    QVERIFY(window.selectEngine(tiny));
    QVERIFY(window.runner()->waitForIdle(60000));
    // Every layer reports, in order, on the GUI thread.
    QSignalSpy progress(window.runner(), &AnalysisRunner::progress);
    window.setTexts(QStringLiteral("Kedi mindere oturdu ve uyudu."));
    QVERIFY(window.runner()->waitForIdle(60000));
    QCOMPARE(progress.size(), 4); // tiny-llama-en-tr has 4 layers
    for (int i = 0; i < progress.size(); ++i) {
        QCOMPARE(progress.at(i).at(1).toInt(), i + 1);
        QCOMPARE(progress.at(i).at(2).toInt(), 4);
    }
    // Cancel: the run's result never arrives and the status says so.
    QSignalSpy results(window.runner(), &AnalysisRunner::resultReady);
    window.setTexts(QStringLiteral("Bir başka cümle, biraz daha uzun bir cümle."));
    window.progressPanel()->cancelButton()->click();
    QVERIFY(window.runner()->waitForIdle(60000));
    QCOMPARE(results.size(), 0);
    QVERIFY(window.statusText().contains(QStringLiteral("cancelled")));
}

QTEST_MAIN(TestModelPicker)
#include "tst_model_picker.moc"
