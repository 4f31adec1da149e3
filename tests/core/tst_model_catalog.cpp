// Model discovery: built-ins under the resources folder, the Hugging Face cache layout, recent folders, and
// what --model resolves to.

#include "core/support/modelfixtures.h"
#include "model/modelcatalog.h"
#include "model/modelerror.h"
#include "model/transformermodel.h"
#include "support/ggufwriter.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace attnscope;
using namespace attnscope::testing;

class TestModelCatalog : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void huggingFaceCache();
    void builtinModelsComeFirst();
    void resolve();
    void recentFolders();
    void ggufFiles();

private:
    QTemporaryDir m_home;
    QString m_hub;
    QString m_resources;
};

void TestModelCatalog::initTestCase()
{
    QVERIFY(m_home.isValid());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_model_catalog"));
    QSettings().remove(QStringLiteral("models/recent"));
    // A fake cache: two models, one with two snapshots where refs/main picks the older one.
    qputenv("HF_HUB_CACHE", QByteArray());
    qputenv("HF_HOME", m_home.filePath(QStringLiteral("hf")).toUtf8());
    m_hub = m_home.filePath(QStringLiteral("hf/hub"));
    copyModel(oracleFolder(QStringLiteral("gpt2_s1")),
              m_hub + QStringLiteral("/models--org--tiny-gpt2/snapshots/abc"));
    copyModel(oracleFolder(QStringLiteral("llama_s0")),
              m_hub + QStringLiteral("/models--tiny-llama/snapshots/old"));
    copyModel(oracleFolder(QStringLiteral("bert_s0")),
              m_hub + QStringLiteral("/models--tiny-llama/snapshots/new"));
    QDir().mkpath(m_hub + QStringLiteral("/models--tiny-llama/refs"));
    QFile ref(m_hub + QStringLiteral("/models--tiny-llama/refs/main"));
    QVERIFY(ref.open(QIODevice::WriteOnly));
    ref.write("old\n");
    ref.close();
    QDir().mkpath(m_hub + QStringLiteral("/models--empty/snapshots/x")); // no config.json: not listed
    QDir().mkpath(m_hub + QStringLiteral("/datasets--something/snapshots/x"));

    m_resources = m_home.filePath(QStringLiteral("resources"));
    copyModel(oracleFolder(QStringLiteral("bert_s1")),
              m_resources + QStringLiteral("/models/tiny-bert-test"));
    QFile about(m_resources + QStringLiteral("/models/tiny-bert-test/attnscope.json"));
    QVERIFY(about.open(QIODevice::WriteOnly));
    about.write(R"({"description": "A test encoder"})");
    about.close();
    qputenv("ATTNSCOPE_RESOURCES_DIR", m_resources.toUtf8());
}

void TestModelCatalog::huggingFaceCache()
{
    QCOMPARE(ModelCatalog::huggingFaceHubDir(), m_hub);
    const QVector<ModelInfo> models = ModelCatalog::cachedModels();
    QCOMPARE(models.size(), 2);
    const ModelInfo& gpt2 = models[0];
    QCOMPARE(gpt2.name, QStringLiteral("org/tiny-gpt2"));
    QCOMPARE(gpt2.architecture, QStringLiteral("gpt2"));
    QCOMPARE(gpt2.kind, QStringLiteral("decoder"));
    QCOMPARE(gpt2.layers, 2);
    QCOMPARE(gpt2.heads, 4);
    QCOMPARE(
        gpt2.fileBytes,
        QFileInfo(m_hub + QStringLiteral("/models--org--tiny-gpt2/snapshots/abc/model.safetensors")).size());
    QVERIFY(!gpt2.builtin);
    const ModelInfo& llama = models[1];
    QCOMPARE(llama.name, QStringLiteral("tiny-llama"));
    QCOMPARE(llama.architecture, QStringLiteral("llama")); // refs/main -> the "old" snapshot
    QCOMPARE(llama.kvHeads, 2);
}

void TestModelCatalog::builtinModelsComeFirst()
{
    QCOMPARE(ModelCatalog::resourcesDir(), QDir(m_resources).absolutePath());
    const QVector<ModelInfo> all = ModelCatalog::allModels();
    QCOMPARE(all.size(), 3);
    QCOMPARE(all[0].name, QStringLiteral("tiny-bert-test"));
    QVERIFY(all[0].builtin);
    QCOMPARE(all[0].description, QStringLiteral("A test encoder"));
    QCOMPARE(all[0].kind, QStringLiteral("encoder"));
    // Opened, a built-in model keeps its name and description.
    const auto model = TransformerModel::open(ModelCatalog::resolve(QStringLiteral("tiny-bert-test")));
    QCOMPARE(model->info().name, QStringLiteral("tiny-bert-test"));
    QVERIFY(model->info().builtin);
    QCOMPARE(model->info().description, QStringLiteral("A test encoder"));
    const auto cached = TransformerModel::open(ModelCatalog::resolve(QStringLiteral("org/tiny-gpt2")));
    QVERIFY(!cached->info().builtin);
}

void TestModelCatalog::resolve()
{
    QCOMPARE(ModelCatalog::resolve(QStringLiteral("org/tiny-gpt2")),
             QDir(m_hub + QStringLiteral("/models--org--tiny-gpt2/snapshots/abc")).absolutePath());
    QCOMPARE(ModelCatalog::resolve(QStringLiteral("tiny-llama")),
             QDir(m_hub + QStringLiteral("/models--tiny-llama/snapshots/old")).absolutePath());
    QCOMPARE(ModelCatalog::resolve(QStringLiteral("tiny-bert-test")),
             QDir(m_resources + QStringLiteral("/models/tiny-bert-test")).absolutePath());
    const QString folder = oracleFolder(QStringLiteral("llama_s1"));
    QCOMPARE(ModelCatalog::resolve(folder), QDir(folder).absolutePath());
    QString message;
    try {
        ModelCatalog::resolve(QStringLiteral("org/absent"));
    } catch (const ModelError& e) {
        message = e.message();
    }
    QVERIFY2(message.startsWith(QStringLiteral("org/absent: no such model folder")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("tiny-bert-test")), qPrintable(message));
}

void TestModelCatalog::recentFolders()
{
    const QString a = oracleFolder(QStringLiteral("bert_s0"));
    const QString b = oracleFolder(QStringLiteral("gpt2_s0"));
    ModelCatalog::addRecent(a);
    ModelCatalog::addRecent(b);
    ModelCatalog::addRecent(a);
    ModelCatalog::addRecent(m_home.filePath(QStringLiteral("gone")));
    const QStringList recent = ModelCatalog::recent();
    QCOMPARE(recent, (QStringList{a, b})); // newest first, no duplicates, missing folders dropped
}

// A repository of llama.cpp files (no config.json): each .gguf of the refs/main snapshot is listed as
// "ORG/NAME/FILE.gguf", described from its metadata, resolved by that name or by its path, and remembered
// among the recent models.
void TestModelCatalog::ggufFiles()
{
    const QString repo = m_hub + QStringLiteral("/models--org--tiny-GGUF");
    const QString snapshot = repo + QStringLiteral("/snapshots/r1");
    QDir().mkpath(snapshot + QStringLiteral("/q"));
    writeGgufFromFolder(oracleFolder(QStringLiteral("gpt2_s0")), snapshot + QStringLiteral("/tiny-F32.gguf"),
                        GgmlType::F32);
    writeGgufFromFolder(oracleFolder(QStringLiteral("gpt2_s0")),
                        snapshot + QStringLiteral("/q/tiny-Q8_0.gguf"), GgmlType::Q8_0);
    GgufWriter other;
    other.addString(QStringLiteral("general.architecture"), QStringLiteral("mamba"));
    other.write(snapshot + QStringLiteral("/other.gguf"));
    QDir().mkpath(repo + QStringLiteral("/refs"));
    QFile ref(repo + QStringLiteral("/refs/main"));
    QVERIFY(ref.open(QIODevice::WriteOnly));
    ref.write("r1");
    ref.close();

    QVector<ModelInfo> gguf;
    for (const ModelInfo& info : ModelCatalog::cachedModels())
        if (info.name.startsWith(QLatin1String("org/tiny-GGUF/"))) gguf.push_back(info);
    QCOMPARE(gguf.size(), 3);
    QCOMPARE(gguf[0].name, QStringLiteral("org/tiny-GGUF/other.gguf"));
    QCOMPARE(gguf[0].architecture, QStringLiteral("mamba")); // listed, not supported
    QCOMPARE(gguf[0].kind, QStringLiteral("unknown"));
    QCOMPARE(gguf[1].name, QStringLiteral("org/tiny-GGUF/q/tiny-Q8_0.gguf"));
    QCOMPARE(gguf[2].name, QStringLiteral("org/tiny-GGUF/tiny-F32.gguf"));
    QCOMPARE(gguf[2].architecture, QStringLiteral("gpt2"));
    QCOMPARE(gguf[2].kind, QStringLiteral("decoder"));
    QCOMPARE(gguf[2].layers, 2);
    QCOMPARE(gguf[2].heads, 4);
    QCOMPARE(gguf[2].fileBytes, QFileInfo(snapshot + QStringLiteral("/tiny-F32.gguf")).size());
    QVERIFY(gguf[1].fileBytes < gguf[2].fileBytes);

    const QString q8 = QDir(snapshot).absoluteFilePath(QStringLiteral("q/tiny-Q8_0.gguf"));
    QCOMPARE(ModelCatalog::resolve(QStringLiteral("org/tiny-GGUF/q/tiny-Q8_0.gguf")), q8);
    QCOMPARE(ModelCatalog::resolve(q8), q8);
    const auto model =
        TransformerModel::open(ModelCatalog::resolve(QStringLiteral("org/tiny-GGUF/tiny-F32.gguf")));
    QCOMPARE(model->config().layers, 2);
    QVERIFY(model->isGguf());
    ModelCatalog::addRecent(q8);
    QCOMPARE(ModelCatalog::recent().front(), q8);
    QVERIFY_THROWS_EXCEPTION(ModelError, ModelCatalog::resolve(QStringLiteral("org/tiny-GGUF/absent.gguf")));
}

QTEST_GUILESS_MAIN(TestModelCatalog)
#include "tst_model_catalog.moc"
