// Model discovery: built-ins under the resources folder, the Hugging Face cache layout, recent folders, and
// what --model resolves to.

#include "core/support/modelfixtures.h"
#include "model/localrunners.h"
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
#include <sys/stat.h>

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
    void ollamaManifests();
    void lmStudioFolders();
    void llamaCppCache();
    void hostileLocalRunners();

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

namespace {

void writeText(const QString& path, const QByteArray& text)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
}

// An Ollama manifest as server/manifest.go's WriteManifest writes it (ollama/ollama 02e25b32: a ManifestV2
// with schemaVersion 2, the docker media type, a config layer and the model's layers).
QByteArray ollamaManifest(const QString& modelDigest)
{
    return QStringLiteral(
               R"({"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json",)"
               R"("config":{"mediaType":"application/vnd.docker.container.image.v1+json",)"
               R"("digest":"sha256:%1","size":485},"layers":[)"
               R"({"mediaType":"application/vnd.ollama.image.template","digest":"sha256:%2","size":1429},)"
               R"({"mediaType":"application/vnd.ollama.image.model","digest":"%3","size":100}]})")
        .arg(QString(64, QLatin1Char('c')), QString(64, QLatin1Char('d')), modelDigest)
        .toUtf8();
}

QStringList names(const QVector<ModelInfo>& models)
{
    QStringList list;
    for (const ModelInfo& info : models)
        list << info.name;
    return list;
}

} // namespace

// ~/.ollama/models (HOME pointed at a temp folder), then $OLLAMA_MODELS: the manifest of llama3.2:1b names
// its model layer's blob, which is listed as "Ollama: llama3.2:1b" and opens; another host keeps its full
// name.
void TestModelCatalog::ollamaManifests()
{
    QTemporaryDir home;
    qputenv("HOME", home.path().toUtf8());
    qunsetenv("OLLAMA_MODELS");
    const QString models = home.filePath(QStringLiteral(".ollama/models"));
    QCOMPARE(LocalRunners::ollamaModelsDir(), models);
    const QString hex = QString(64, QLatin1Char('a'));
    QDir().mkpath(models + QStringLiteral("/blobs"));
    writeGgufFromFolder(oracleFolder(QStringLiteral("llama_s0")),
                        models + QStringLiteral("/blobs/sha256-") + hex, GgmlType::F32);
    writeText(models + QStringLiteral("/manifests/registry.ollama.ai/library/llama3.2/1b"),
              ollamaManifest(QStringLiteral("sha256:") + hex));
    writeText(models + QStringLiteral("/manifests/example.com/team/tiny/latest"),
              ollamaManifest(QStringLiteral("sha256:") + hex));

    const LocalRunnerScan scan = LocalRunners::scanOllama();
    QCOMPARE(names(scan.models), (QStringList{QStringLiteral("Ollama: example.com/team/tiny:latest"),
                                              QStringLiteral("Ollama: llama3.2:1b")}));
    QVERIFY2(scan.skipped.isEmpty(), qPrintable(scan.skipped.value(0).reason));
    const ModelInfo& llama = scan.models[1];
    QCOMPARE(llama.path, QFileInfo(models + QStringLiteral("/blobs/sha256-") + hex).absoluteFilePath());
    QCOMPARE(llama.architecture, QStringLiteral("llama"));
    QCOMPARE(llama.kind, QStringLiteral("decoder"));
    QVERIFY(ModelCatalog::localRunnerModels().size() >= 2);
    QCOMPARE(ModelCatalog::resolve(QStringLiteral("Ollama: llama3.2:1b")), llama.path);
    QCOMPARE(TransformerModel::open(llama.path)->config().modelType, QStringLiteral("llama"));

    // OLLAMA_MODELS moves the store: the one under HOME is no longer read.
    QTemporaryDir elsewhere;
    qputenv("OLLAMA_MODELS", elsewhere.path().toUtf8());
    QCOMPARE(LocalRunners::ollamaModelsDir(), elsewhere.path());
    QVERIFY(LocalRunners::scanOllama().models.isEmpty());
    qunsetenv("OLLAMA_MODELS");
}

// ~/.lmstudio/models and the older ~/.cache/lm-studio/models, publisher/repo/file.gguf; a vision projector
// and a file at the wrong depth are not listed.
void TestModelCatalog::lmStudioFolders()
{
    QTemporaryDir home;
    qputenv("HOME", home.path().toUtf8());
    const QStringList dirs = LocalRunners::lmStudioModelsDirs();
    QCOMPARE(dirs, (QStringList{home.filePath(QStringLiteral(".lmstudio/models")),
                                home.filePath(QStringLiteral(".cache/lm-studio/models"))}));
    QDir().mkpath(dirs[0] + QStringLiteral("/lmstudio-community/tiny-GGUF"));
    QDir().mkpath(dirs[1] + QStringLiteral("/TheBloke/old-GGUF"));
    writeGgufFromFolder(oracleFolder(QStringLiteral("gpt2_s0")),
                        dirs[0] + QStringLiteral("/lmstudio-community/tiny-GGUF/tiny-Q8_0.gguf"),
                        GgmlType::Q8_0);
    writeGgufFromFolder(oracleFolder(QStringLiteral("gpt2_s0")),
                        dirs[0] + QStringLiteral("/lmstudio-community/tiny-GGUF/mmproj-tiny-f16.gguf"),
                        GgmlType::F32);
    writeGgufFromFolder(oracleFolder(QStringLiteral("gpt2_s0")), dirs[0] + QStringLiteral("/loose.gguf"),
                        GgmlType::F32);
    writeGgufFromFolder(oracleFolder(QStringLiteral("gpt2_s0")),
                        dirs[1] + QStringLiteral("/TheBloke/old-GGUF/old.F32.gguf"), GgmlType::F32);
    LocalRunnerScan scan;
    for (const QString& dir : dirs)
        scan += LocalRunners::scanLmStudio(dir);
    QCOMPARE(names(scan.models),
             (QStringList{QStringLiteral("LM Studio: lmstudio-community/tiny-GGUF/tiny-Q8_0.gguf"),
                          QStringLiteral("LM Studio: TheBloke/old-GGUF/old.F32.gguf")}));
    QCOMPARE(scan.models[0].architecture, QStringLiteral("gpt2"));
    QCOMPARE(scan.skipped.size(), 1);
    QVERIFY(scan.skipped[0].reason.contains(QLatin1String("mmproj")));
}

// $LLAMA_CACHE, else $XDG_CACHE_HOME/llama.cpp, else ~/.cache/llama.cpp. A -hf download is
// <org>_<repo>_<file>.gguf with a <file>.json sidecar whose url names the Hub file (common/arg.cpp and
// common/common.cpp of ggml-org/llama.cpp 17fce9be); without a readable sidecar the file name stays.
void TestModelCatalog::llamaCppCache()
{
    QTemporaryDir home;
    qputenv("HOME", home.path().toUtf8());
    qunsetenv("LLAMA_CACHE");
    qunsetenv("XDG_CACHE_HOME");
    QCOMPARE(LocalRunners::llamaCppCacheDir(), home.filePath(QStringLiteral(".cache/llama.cpp")));
    qputenv("XDG_CACHE_HOME", home.filePath(QStringLiteral("xdg")).toUtf8());
    QCOMPARE(LocalRunners::llamaCppCacheDir(), home.filePath(QStringLiteral("xdg/llama.cpp")));
    const QString cache = home.filePath(QStringLiteral("cache"));
    qputenv("LLAMA_CACHE", cache.toUtf8());
    QCOMPARE(LocalRunners::llamaCppCacheDir(), cache);

    QDir().mkpath(cache);
    const QString file = QStringLiteral("ggml-org_tiny-GGUF_tiny-Q8_0.gguf");
    writeGgufFromFolder(oracleFolder(QStringLiteral("gpt2_s0")), cache + QLatin1Char('/') + file,
                        GgmlType::Q8_0);
    writeText(cache + QLatin1Char('/') + file + QStringLiteral(".json"),
              R"({"etag":"\"abc\"","lastModified":"Mon, 01 Dec 2025 00:00:00 GMT",)"
              R"("url":"https://huggingface.co/ggml-org/tiny-GGUF/resolve/main/tiny-Q8_0.gguf"})");
    writeGgufFromFolder(oracleFolder(QStringLiteral("gpt2_s0")), cache + QStringLiteral("/bare_file.gguf"),
                        GgmlType::F32);
    writeText(cache + QStringLiteral("/bare_file.gguf.json"),
              R"({"url":"https://huggingface.co/../../etc/x.gguf"})");
    const LocalRunnerScan scan = LocalRunners::scanLlamaCpp();
    QCOMPARE(names(scan.models),
             (QStringList{QStringLiteral("llama.cpp: bare_file.gguf"),
                          QStringLiteral("llama.cpp: ggml-org/tiny-GGUF/tiny-Q8_0.gguf")}));
    QCOMPARE(scan.models[1].path, QFileInfo(cache + QLatin1Char('/') + file).absoluteFilePath());
    qunsetenv("LLAMA_CACHE");
    qunsetenv("XDG_CACHE_HOME");
}

// Each hostile layout is skipped with a reason; none hangs (a FIFO is never opened for reading) or crashes,
// and nothing outside blobs/ is read.
void TestModelCatalog::hostileLocalRunners()
{
    QTemporaryDir home;
    qputenv("HOME", home.path().toUtf8());
    const QString models = home.filePath(QStringLiteral(".ollama/models"));
    const QString library = models + QStringLiteral("/manifests/registry.ollama.ai/library");
    QDir().mkpath(models + QStringLiteral("/blobs"));
    // A GGUF outside blobs/ that a "../" digest would reach.
    writeGgufFromFolder(oracleFolder(QStringLiteral("gpt2_s0")), models + QStringLiteral("/outside.gguf"),
                        GgmlType::F32);
    writeText(library + QStringLiteral("/notjson/latest"), "this is not JSON {");
    writeText(library + QStringLiteral("/escape/latest"),
              ollamaManifest(QStringLiteral("sha256:../../outside.gguf")));
    writeText(library + QStringLiteral("/absolute/latest"),
              ollamaManifest(models + QStringLiteral("/outside.gguf")));
    writeText(library + QStringLiteral("/noblob/latest"),
              ollamaManifest(QStringLiteral("sha256:") + QString(64, QLatin1Char('b'))));
    writeText(library + QStringLiteral("/nolayer/latest"), R"({"schemaVersion":2,"layers":[]})");
    // A manifest over the 1 MiB limit (sparse: no disk used).
    QDir().mkpath(library + QStringLiteral("/huge"));
    {
        QFile huge(library + QStringLiteral("/huge/latest"));
        QVERIFY(huge.open(QIODevice::WriteOnly));
        QVERIFY(huge.resize(qint64(2) << 30));
    }
    QDir().mkpath(library + QStringLiteral("/fifo"));
    QCOMPARE(::mkfifo(QFile::encodeName(library + QStringLiteral("/fifo/latest")).constData(), 0600), 0);
    // A symbolic-link loop among the model folders and a manifest that links to itself.
    QVERIFY(QFile::link(library, library + QStringLiteral("/loop")));
    QDir().mkpath(library + QStringLiteral("/self"));
    QVERIFY(QFile::link(library + QStringLiteral("/self/latest"), library + QStringLiteral("/self/latest")));
    // A blob that is a FIFO.
    const QString fifoHex = QString(64, QLatin1Char('e'));
    QCOMPARE(
        ::mkfifo(QFile::encodeName(models + QStringLiteral("/blobs/sha256-") + fifoHex).constData(), 0600),
        0);
    writeText(library + QStringLiteral("/fifoblob/latest"),
              ollamaManifest(QStringLiteral("sha256:") + fifoHex));

    const LocalRunnerScan scan = LocalRunners::scanOllama(models);
    QVERIFY2(scan.models.isEmpty(), qPrintable(names(scan.models).join(QLatin1Char(','))));
    QMap<QString, QString> reasons; // model folder -> reason
    for (const SkippedModelFile& skipped : scan.skipped) {
        const QString relative = QDir(library).relativeFilePath(skipped.path);
        reasons.insert(relative.section(QLatin1Char('/'), 0, 0), skipped.reason);
    }
    QVERIFY(reasons.value(QStringLiteral("notjson")).contains(QLatin1String("not a JSON manifest")));
    QVERIFY(reasons.value(QStringLiteral("escape")).contains(QLatin1String("not sha256:<64 hex digits>")));
    QVERIFY(reasons.value(QStringLiteral("absolute")).contains(QLatin1String("not sha256:<64 hex digits>")));
    QVERIFY(reasons.value(QStringLiteral("nolayer")).contains(QLatin1String("no layer of mediaType")));
    QVERIFY2(reasons.value(QStringLiteral("huge")).contains(QLatin1String("limit")),
             qPrintable(reasons.value(QStringLiteral("huge"))));
    QVERIFY2(reasons.value(QStringLiteral("fifo")).contains(QLatin1String("FIFO")),
             qPrintable(reasons.value(QStringLiteral("fifo"))));
    QVERIFY(!reasons.value(QStringLiteral("self")).isEmpty());
    QVERIFY(!reasons.value(QStringLiteral("noblob")).isEmpty());
    QVERIFY2(reasons.value(QStringLiteral("fifoblob")).contains(QLatin1String("FIFO")),
             qPrintable(reasons.value(QStringLiteral("fifoblob"))));
    // The loop is walked at Ollama's fixed depth: its manifests are seen again under "loop/...", no deeper.
    for (const SkippedModelFile& skipped : scan.skipped)
        QVERIFY2(QDir(library).relativeFilePath(skipped.path).count(QLatin1Char('/')) <= 3,
                 qPrintable(skipped.path));

    // The same hostile files in llama.cpp's cache and LM Studio's tree.
    const QString cache = home.filePath(QStringLiteral("llama-cache"));
    QDir().mkpath(cache);
    QCOMPARE(::mkfifo(QFile::encodeName(cache + QStringLiteral("/pipe.gguf")).constData(), 0600), 0);
    QCOMPARE(::mkfifo(QFile::encodeName(cache + QStringLiteral("/x.gguf.json")).constData(), 0600), 0);
    writeGgufFromFolder(oracleFolder(QStringLiteral("gpt2_s0")), cache + QStringLiteral("/x.gguf"),
                        GgmlType::F32);
    writeText(cache + QStringLiteral("/fake.gguf"), "not a gguf at all");
    QVERIFY(QFile::link(cache + QStringLiteral("/loop.gguf"), cache + QStringLiteral("/loop.gguf")));
    const LocalRunnerScan llama = LocalRunners::scanLlamaCpp(cache);
    QCOMPARE(names(llama.models),
             QStringList{QStringLiteral("llama.cpp: x.gguf")}); // the FIFO sidecar is ignored
    QCOMPARE(llama.skipped.size(), 3);
}

QTEST_GUILESS_MAIN(TestModelCatalog)
#include "tst_model_catalog.moc"
