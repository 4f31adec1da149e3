// "Models that show it" in the window (issue 34, points 2 and 3): with only the built-in models the guided
// list is the page shown first; a model in the Hugging Face cache, or an Ollama model, and it is not (the
// list stays a tab). Download emits the repository (and the GGUF file) and shows the command line; the rows
// follow the UI's language. HOME and the runners' variables point at temp folders.

#include "explorer/guidedmodellist.h"
#include "i18n/languagemanager.h"
#include "mainwindow.h"
#include "settings/appsettings.h"
#include "support/ggufwriter.h"
#include "support/testdata.h"
#include "ui/support/testsettings.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

const QString kBuiltinLlama = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-llama-en-tr");

} // namespace

class TestGuidedModelList : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void onlyBuiltinsShowTheListFirst();
    void aCachedModelShowsTheExplorer();
    void anOllamaModelShowsTheExplorer();
    void downloadEmitsTheRepoAndShowsTheCommand();
    void rowsFollowTheLanguage();

private:
    QTemporaryDir m_home;
};

// Every test starts from no models at all besides the built-ins: an empty HOME, HF cache and runner folders.
void TestGuidedModelList::init()
{
    QVERIFY(m_home.isValid());
    useEmptyTestSettings();
    QVERIFY(LanguageManager::shared()->setLanguage(QStringLiteral("en")));
    QDir(m_home.path()).removeRecursively();
    QDir().mkpath(m_home.path());
    qputenv("HOME", m_home.path().toUtf8());
    qputenv("HF_HUB_CACHE", QByteArray());
    qputenv("HF_HOME", m_home.filePath(QStringLiteral("hf")).toUtf8());
    for (const char* name : {"OLLAMA_MODELS", "LLAMA_CACHE", "XDG_CACHE_HOME"})
        qunsetenv(name);
}

void TestGuidedModelList::onlyBuiltinsShowTheListFirst()
{
    MainWindow window;
    QVERIFY(window.onlyBuiltinModels());
    QVERIFY(window.guidedModels());
    QCOMPARE(window.tabs()->currentWidget(), window.guidedModels());
    QVERIFY(window.guidedModels()->models().size() >= 5);
}

void TestGuidedModelList::aCachedModelShowsTheExplorer()
{
    const QString snapshot = m_home.filePath(QStringLiteral("hf/hub/models--org--tiny-llama/snapshots/r1"));
    for (const char* file : {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"})
        QVERIFY(copyFileReplacing(kBuiltinLlama + QLatin1Char('/') + QLatin1String(file),
                                  snapshot + QLatin1Char('/') + QLatin1String(file)));
    MainWindow window;
    QVERIFY(!window.onlyBuiltinModels());
    QVERIFY(window.tabs()->currentWidget() != window.guidedModels());
    QVERIFY(window.tabs()->indexOf(window.guidedModels()) >= 0); // still there, as a tab
}

void TestGuidedModelList::anOllamaModelShowsTheExplorer()
{
    const QString models = m_home.filePath(QStringLiteral(".ollama/models"));
    const QString hex = QString(64, QLatin1Char('a'));
    QDir().mkpath(models + QStringLiteral("/blobs"));
    writeGgufFromFolder(kBuiltinLlama, models + QStringLiteral("/blobs/sha256-") + hex, GgmlType::F32);
    const QString manifest = models + QStringLiteral("/manifests/registry.ollama.ai/library/tiny/latest");
    QDir().mkpath(QFileInfo(manifest).absolutePath());
    QFile file(manifest);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(
        QStringLiteral(R"({"schemaVersion":2,"layers":[{"mediaType":"application/vnd.ollama.image.model",)"
                       R"("digest":"sha256:%1","size":1}]})")
            .arg(hex)
            .toUtf8());
    file.close();
    MainWindow window;
    QVERIFY(!window.onlyBuiltinModels());
    bool listed = false;
    for (int i = 0; i < window.modelCount(); ++i)
        listed = listed || window.modelBox()->itemText(i) == QLatin1String("Ollama: tiny:latest");
    QVERIFY(listed);
    QVERIFY(window.tabs()->currentWidget() != window.guidedModels());
}

void TestGuidedModelList::downloadEmitsTheRepoAndShowsTheCommand()
{
    GuidedModelList list;
    QSignalSpy spy(&list, &GuidedModelList::downloadRequested);
    const int gguf = list.indexOf(QStringLiteral("llama-3.1-8b-gguf"));
    QVERIFY(gguf >= 0);
    QVERIFY(list.commandText().isEmpty());
    QTest::mouseClick(list.downloadButton(gguf), Qt::LeftButton);
    QCOMPARE(spy.size(), 1);
    QCOMPARE(spy[0][0].toString(), QStringLiteral("bartowski/Meta-Llama-3.1-8B-Instruct-GGUF"));
    QCOMPARE(spy[0][1].toString(), QStringLiteral("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf"));
    QCOMPARE(list.commandText(),
             QStringLiteral("attnscope download bartowski/Meta-Llama-3.1-8B-Instruct-GGUF "
                            "--include Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf"));
    const int bert = list.indexOf(QStringLiteral("bert-sep-no-op"));
    QTest::mouseClick(list.downloadButton(bert), Qt::LeftButton);
    QCOMPARE(spy[1][0].toString(), QStringLiteral("bert-base-uncased"));
    QCOMPARE(spy[1][1].toString(), QString());
    QCOMPARE(list.commandText(), QStringLiteral("attnscope download bert-base-uncased"));
}

// The row says what the entry shows in the UI's language, and its size and memory in that locale's numbers.
void TestGuidedModelList::rowsFollowTheLanguage()
{
    GuidedModelList list;
    const int bert = list.indexOf(QStringLiteral("bert-sep-no-op"));
    const GuidedModel& model = list.models()[bert];
    QVERIFY(list.rowText(bert).contains(model.showsEnglish.toHtmlEscaped()));
    QVERIFY(list.rowText(bert).contains(QLatin1String("441 MB"))); // 441,147,956 bytes
    QVERIFY(list.rowText(bert).contains(QLatin1String("834 MB"))); // 833,912,040 bytes
    QVERIFY(LanguageManager::shared()->setLanguage(QStringLiteral("tr")));
    QTRY_VERIFY(list.rowText(bert).contains(model.showsTurkish.toHtmlEscaped()));
    QVERIFY(!list.rowText(bert).contains(model.showsEnglish.toHtmlEscaped()));
    QVERIFY(LanguageManager::shared()->setLanguage(QStringLiteral("en")));
}

QTEST_MAIN(TestGuidedModelList)
#include "tst_guided_model_list.moc"
