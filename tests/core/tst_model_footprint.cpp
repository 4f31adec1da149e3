// What a model costs before it is loaded (model/memoryestimate.h): the parameter count read from the weight
// files' headers against hand counts from each architecture's published formula, and the memory estimate's
// parts against hand computations and the file sizes.

#include "core/support/modelfixtures.h"
#include "model/memoryestimate.h"
#include "model/modelcatalog.h"
#include "model/transformermodel.h"
#include "support/ggufwriter.h"
#include "support/shapedmodel.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

// What the catalogue reads of a Llama of `shape` written into dir/name (writeShapedLlama: the real sizes, in
// sparse files); nullopt, with a warning naming the step, where the folder cannot be written or read.
std::optional<ModelInfo> describedShapedLlama(const QTemporaryDir& dir, const QString& name,
                                              const LlamaShape& shape)
{
    const QString folder = dir.filePath(name);
    if (!dir.isValid() || !writeShapedLlama(folder, shape)) {
        qWarning("%s: the shaped Llama cannot be written", qPrintable(folder));
        return std::nullopt;
    }
    return ModelCatalog::describe(folder);
}

QJsonObject configOf(const QString& folder)
{
    QFile file(folder + QStringLiteral("/config.json"));
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

qint64 key(const QJsonObject& c, const char* name, qint64 fallback = 0)
{
    const QJsonValue v = c.value(QLatin1String(name));
    return v.isDouble() ? qint64(v.toDouble()) : fallback;
}

// BertForMaskedLM: embeddings (word, position, type, LayerNorm), per layer Q/K/V/O with biases, two
// LayerNorms, the MLP with biases; the masked-LM head (transform dense + LayerNorm, output bias; its
// decoder is tied to the word embeddings, no pooler).
qint64 bertMaskedLmCount(const QJsonObject& c)
{
    const qint64 V = key(c, "vocab_size"), h = key(c, "hidden_size"), I = key(c, "intermediate_size"),
                 L = key(c, "num_hidden_layers"), P = key(c, "max_position_embeddings"),
                 T = key(c, "type_vocab_size");
    const qint64 embeddings = V * h + P * h + T * h + 2 * h;
    const qint64 layer = 4 * (h * h + h) + 2 * h + (h * I + I) + (I * h + h) + 2 * h;
    const qint64 head = h * h + h + 2 * h + V;
    return embeddings + L * layer + head;
}

// GPT2LMHeadModel: wte, wpe, per layer ln_1, c_attn (h→3h), c_proj, ln_2, c_fc (h→4h), c_proj; ln_f; the
// LM head is tied to wte.
qint64 gpt2Count(const QJsonObject& c)
{
    const qint64 V = key(c, "vocab_size"), h = key(c, "n_embd"), L = key(c, "n_layer"),
                 P = key(c, "n_positions"), I = key(c, "n_inner", 4 * h);
    const qint64 layer = 2 * h + (h * 3 * h + 3 * h) + (h * h + h) + 2 * h + (h * I + I) + (I * h + h);
    return V * h + P * h + L * layer + 2 * h;
}

// LlamaForCausalLM (and Qwen2 with its q/k/v biases): embeddings, per layer two RMSNorms, Q (H·d), K and V
// (KV·d), O, gate/up/down; final norm; the LM head unless tied.
qint64 llamaCount(const QJsonObject& c, bool qkvBias)
{
    const qint64 V = key(c, "vocab_size"), h = key(c, "hidden_size"), I = key(c, "intermediate_size"),
                 L = key(c, "num_hidden_layers"), H = key(c, "num_attention_heads");
    const qint64 KV = key(c, "num_key_value_heads", H), d = key(c, "head_dim", h / H);
    const qint64 layer =
        2 * h + h * H * d + 2 * h * KV * d + H * d * h + 3 * h * I + (qkvBias ? H * d + 2 * KV * d : 0);
    const bool tied = c.value(QLatin1String("tie_word_embeddings")).toBool(false);
    return V * h + L * layer + h + (tied ? 0 : V * h);
}

// The data section of a .safetensors file: its size minus the 8-byte length and the JSON header.
qint64 dataBytes(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return -1;
    const QByteArray length = file.read(8);
    return file.size() - 8 - qint64(qFromLittleEndian<quint64>(length.constData()));
}

QString builtinFolder(const QString& name)
{
    return QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/") + name;
}

} // namespace

class TestModelFootprint : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void parameterCount_data();
    void parameterCount();
    void realSizeLlamaFromHeaderOnly();
    void ggufCountsTheSame();
    void estimateParts();
    void planningTokensFollowThePositions();
    void estimateAtRealSize();
    void captureFitsInEstimate();
    void memAvailable();
    void refusal();
};

void TestModelFootprint::parameterCount_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<qint64>("expected");
    for (const char* name : {"bert_s0", "bert_s1"}) {
        const QString folder = oracleFolder(QLatin1String(name));
        QTest::newRow(name) << folder << bertMaskedLmCount(configOf(folder));
    }
    for (const char* name : {"gpt2_s0", "gpt2_s1"}) {
        const QString folder = oracleFolder(QLatin1String(name));
        QTest::newRow(name) << folder << gpt2Count(configOf(folder));
    }
    for (const char* name : {"llama_s0", "llama3_s0", "mistral_s0"}) {
        const QString folder = oracleFolder(QLatin1String(name));
        QTest::newRow(name) << folder << llamaCount(configOf(folder), false);
    }
    for (const char* name : {"qwen2_s0", "qwen2_s1"}) {
        const QString folder = oracleFolder(QLatin1String(name));
        QTest::newRow(name) << folder << llamaCount(configOf(folder), true);
    }
    const QString bert = builtinFolder(QStringLiteral("tiny-bert-en-tr"));
    QTest::newRow("built-in tiny-bert-en-tr") << bert << bertMaskedLmCount(configOf(bert));
    const QString llama = builtinFolder(QStringLiteral("tiny-llama-en-tr"));
    QTest::newRow("built-in tiny-llama-en-tr") << llama << llamaCount(configOf(llama), false);
}

void TestModelFootprint::parameterCount()
{
    QFETCH(QString, folder);
    QFETCH(qint64, expected);
    QVERIFY(expected > 0);
    const std::optional<ModelInfo> info = ModelCatalog::describe(folder);
    QVERIFY(info);
    QCOMPARE(info->parameters, expected);
    QCOMPARE(weightFootprint(folder).parameters, expected);
}

void TestModelFootprint::realSizeLlamaFromHeaderOnly()
{
    // Llama-3.2-1B's published count, 1,235,814,400 (tied embeddings), and Llama-3.1-70B's, 70,553,706,496;
    // by hand: 128256·2048 + 16·(2·2048 + 2048² + 2·2048·512 + 2048² + 3·2048·8192) + 2048.
    QTemporaryDir dir;
    const qint64 smallCount =
        128256LL * 2048 +
        16LL * (2 * 2048 + 2048LL * 2048 + 2 * 2048LL * 512 + 2048LL * 2048 + 3 * 2048LL * 8192) + 2048;
    QCOMPARE(smallCount, Q_INT64_C(1235814400));
    const std::optional<ModelInfo> info =
        describedShapedLlama(dir, QStringLiteral("llama-1b"), LlamaShape::llama32_1b());
    QVERIFY(info);
    QCOMPARE(info->parameters, smallCount);
    QCOMPARE(info->weightBytes, 2 * smallCount); // BF16
    QVERIFY(!info->storedAsF32);
    QCOMPARE(info->largestTensorElements, 8192LL * 2048); // an MLP matrix; the vocabulary table goes by rows

    const QString large = dir.filePath(QStringLiteral("llama-70b"));
    QVERIFY(writeShapedLlama(large, LlamaShape::llama31_70b()));
    QCOMPARE(weightFootprint(large).parameters, Q_INT64_C(70553706496));
}

void TestModelFootprint::ggufCountsTheSame()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString folder = oracleFolder(QStringLiteral("llama3_s0"));
    const QString path = dir.filePath(QStringLiteral("llama3.gguf"));
    writeGgufFromFolder(folder, path, GgmlType::F16);
    const std::optional<ModelInfo> info = ModelCatalog::describe(path);
    QVERIFY(info);
    QCOMPARE(info->parameters, llamaCount(configOf(folder), false));
    QVERIFY(!info->storedAsF32);
    QVERIFY(info->weightBytes > 2 * info->parameters - 1); // F16 data (1-D norms may stay F32)
    QVERIFY(info->weightBytes < 4 * info->parameters + 1);
}

void TestModelFootprint::estimateParts()
{
    // F32 fixture: the weights are the file's data section, nothing is converted.
    const QString folder = oracleFolder(QStringLiteral("llama3_s0"));
    const std::optional<ModelInfo> info = ModelCatalog::describe(folder);
    QVERIFY(info);
    const MemoryEstimate e = estimateMemory(*info, 8);
    QCOMPARE(e.weights, dataBytes(folder + QStringLiteral("/model.safetensors")));
    QCOMPARE(e.conversion, 0);
    // Captured attention alone: layers · heads · n² floats = 2·2·64·4 bytes, plus the Q/K the explorer keeps.
    QVERIFY(e.activations >= 2 * 2 * 8 * 8 * 4 + 2 * 8 * (2 + 2) * 16 * 4);
    QCOMPARE(e.total(), e.weights + e.conversion + e.activations + e.process);
    // Quadratic in n: doubling n quadruples the capture.
    const MemoryEstimate e2 = estimateMemory(*info, 300);
    const MemoryEstimate e4 = estimateMemory(*info, 600);
    QVERIFY(e4.activations > 3.5 * double(e2.activations));

    // F16 built-in: two of the largest non-vocabulary tensor (intermediate 512 × hidden 128) as fp32.
    const std::optional<ModelInfo> bert =
        ModelCatalog::describe(builtinFolder(QStringLiteral("tiny-bert-en-tr")));
    QVERIFY(bert);
    QCOMPARE(estimateMemory(*bert).conversion, 2 * 512 * 128 * 4);
    QCOMPARE(estimateMemory(*bert).weights, 2 * bert->parameters);
}

// The picker plans for 512 tokens, or for the model's positions where it takes fewer: the built-in decoder
// (256 positions) is estimated at the 256 tokens it can run, not at an input the window would refuse.
void TestModelFootprint::planningTokensFollowThePositions()
{
    const std::optional<ModelInfo> decoder =
        ModelCatalog::describe(builtinFolder(QStringLiteral("tiny-llama-en-tr")));
    QVERIFY(decoder);
    QCOMPARE(decoder->maxPositions, 256);
    QCOMPARE(planningTokens(*decoder), 256);
    const MemoryEstimate e = estimateMemory(*decoder);
    QCOMPARE(e.tokens, 256);
    QCOMPARE(e.total(), estimateMemory(*decoder, 256).total());
    QVERIFY(e.total() < estimateMemory(*decoder, 512).total()); // the capture grows with n²

    ModelInfo info = *decoder;
    info.maxPositions = 131072; // Llama 3's: more than the planning count
    QCOMPARE(estimateMemory(info).tokens, kPlanningTokens);
    info.maxPositions = 512;
    QCOMPARE(estimateMemory(info).tokens, 512);
    info.maxPositions = 0; // not said (a GGUF without a context length): the planning count
    QCOMPARE(estimateMemory(info).tokens, kPlanningTokens);
}

void TestModelFootprint::estimateAtRealSize()
{
    QTemporaryDir dir;
    const std::optional<ModelInfo> info =
        describedShapedLlama(dir, QStringLiteral("llama-1b"), LlamaShape::llama32_1b());
    QVERIFY(info);
    const MemoryEstimate e = estimateMemory(*info, 512);
    QCOMPARE(e.weights, Q_INT64_C(2471628800));
    QCOMPARE(e.conversion, 2 * 8192LL * 2048 * 4);
    // 16 layers · 32 heads · 512² floats of captured attention = 537 MB, beyond 256 tokens no Q/K.
    const qint64 capture = 16LL * 32 * 512 * 512 * 4;
    QVERIFY(e.activations > capture);
    QVERIFY(e.activations < capture + 200 * 1000 * 1000);
}

void TestModelFootprint::captureFitsInEstimate()
{
    // A real pass: the capture the model returns fits in the estimate's activations.
    const QString folder = oracleFolder(QStringLiteral("llama3_s0"));
    const auto model = TransformerModel::open(folder);
    const std::vector<int> ids = oracleInputIds(QStringLiteral("llama3_s0"));
    RunOptions options;
    options.queryKeyLimit = 256;
    const AttentionCapture capture = model->run(ids, {}, options);
    const qint64 n = qint64(ids.size());
    const qint64 captured = qint64(model->config().layers) * model->config().heads * n * n * 4;
    QCOMPARE(qint64(capture.maps->layers()) * capture.maps->heads() * capture.maps->queries() *
                 capture.maps->keys() * 4,
             captured);
    QVERIFY(estimateMemory(model->info(), int(n)).activations >= captured);
    QCOMPARE(model->info().parameters, llamaCount(configOf(folder), false));
}

void TestModelFootprint::memAvailable()
{
    const QByteArray meminfo = "MemTotal:       24576000 kB\nMemFree:         1000000 kB\n"
                               "MemAvailable:   10240000 kB\nBuffers:          12345 kB\n";
    QCOMPARE(parseMemAvailable(meminfo), std::optional<qint64>(10240000LL * 1024));
    QCOMPARE(parseMemAvailable("MemTotal: 1 kB\n"), std::nullopt);
    QCOMPARE(parseMemAvailable("MemAvailable: lots kB\n"), std::nullopt);
    QCOMPARE(parseMemAvailable(QByteArray()), std::nullopt);
#ifdef Q_OS_LINUX
    const std::optional<qint64> here = availableMemoryBytes();
    QVERIFY(here && *here > 0);
#endif
}

void TestModelFootprint::refusal()
{
    QTemporaryDir dir;
    std::optional<ModelInfo> info =
        describedShapedLlama(dir, QStringLiteral("llama-70b"), LlamaShape::llama31_70b());
    QVERIFY(info);
    info->name = QStringLiteral("org/llama-70b");
    const MemoryEstimate e = estimateMemory(*info);
    QCOMPARE(e.weights, 2 * Q_INT64_C(70553706496));
    const QString message = memoryRefusal(*info, e, 8LL * 1000 * 1000 * 1000);
    QVERIFY2(message.startsWith(QStringLiteral("org/llama-70b needs about 1")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("141.11 GB of weights")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("only 8.00 GB is available")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("for 512 tokens")), qPrintable(message));
    QCOMPARE(memoryRefusal(*info, e, e.total()), QString());
    QVERIFY(!memoryRefusal(*info, e, e.total() - 1).isEmpty());
}

QTEST_GUILESS_MAIN(TestModelFootprint)
#include "tst_model_footprint.moc"
