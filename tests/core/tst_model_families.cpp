// Every model family against its reference (tests/data/oracle, see its README): upstream transformers in
// float64 (the oracle kit) for GPT-NeoX, Phi, Mistral, RoBERTa, XLM-R, DistilBERT and Llama's linear/dynamic
// RoPE scaling; the numpy reference (tools/oracle/reference.py, cross-checked against the kit) for Llama 3
// and YaRN scaling, Qwen2, Qwen3, Gemma 1/2/3, Phi-3, SmolLM3 and gpt-oss (reference_gpt_oss.py: P with the
// learned sinks, rows summing to less than 1). Each family in F32 and in BF16 storage, to 1e-5,
// through the dense and the tiled capture; the residual stream against the reference's hidden states; and the
// checkpoint variants each family's unit reads (other tensor layouts, config formats).

#include "attention/tiledattentionmaps.h"
#include "core/support/modelfixtures.h"
#include "model/modelconfig.h"
#include "model/transformermodel.h"
#include "support/testdata.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

struct FamilyCase
{
    const char* name;
    const char* modelType;
};

const FamilyCase kCases[] = {
    {"gpt_neox_s0", "gpt_neox"},
    {"gpt_neox_s1", "gpt_neox"},
    {"phi_s0", "phi"},
    {"phi_s1", "phi"},
    {"mistral_s0", "mistral"},
    {"mistral_s1", "mistral"},
    {"roberta_s0", "roberta"},
    {"roberta_s1", "roberta"},
    {"xlmr_s0", "xlm-roberta"},
    {"xlmr_s1", "xlm-roberta"},
    {"distilbert_s0", "distilbert"},
    {"distilbert_s1", "distilbert"},
    {"llama_linear_s0", "llama"},
    {"llama_dynamic_s1", "llama"},
    {"llama3_s0", "llama"},
    {"llama3_s1", "llama"},
    {"yarn_s0", "llama"},
    {"yarn_s1", "qwen3"},
    {"qwen2_s0", "qwen2"},
    {"qwen2_s1", "qwen2"},
    {"qwen3_s0", "qwen3"},
    {"qwen3_s1", "qwen3"},
    {"gemma_s0", "gemma"},
    {"gemma_s1", "gemma"},
    {"gemma2_s0", "gemma2"},
    {"gemma2_s1", "gemma2"},
    {"gemma3_s0", "gemma3_text"},
    {"gemma3_s1", "gemma3_text"},
    {"phi3_s0", "phi3"},
    {"phi3_s1", "phi3"},
    {"smollm3_s0", "smollm3"},
    {"smollm3_s1", "smollm3"},
    {"gpt_oss_s0", "gpt_oss"},
    {"gpt_oss_s1", "gpt_oss"},
};

double runError(const QString& folder, const QString& caseName, const RunOptions& options = {})
{
    const auto model = TransformerModel::open(folder);
    return maxAbsError(*model->run(oracleInputIds(caseName), {}, options).maps, oracleAttentions(caseName));
}

// The bytes of an F32 or BF16 tensor as floats.
std::vector<float> floatsOf(const TensorToWrite& t)
{
    std::vector<float> values;
    if (t.dtype == TensorDtype::F32) {
        values.resize(size_t(t.data.size() / 4));
        std::memcpy(values.data(), t.data.constData(), size_t(t.data.size()));
    } else {
        for (qsizetype i = 0; i + 1 < t.data.size(); i += 2) {
            const quint32 bits = quint32(quint16(uchar(t.data[i]) | (uchar(t.data[i + 1]) << 8))) << 16;
            float f;
            std::memcpy(&f, &bits, 4);
            values.push_back(f);
        }
    }
    return values;
}

TensorToWrite f32Tensor(const QString& name, const std::vector<qint64>& shape,
                        const std::vector<float>& values)
{
    return {
        name, TensorDtype::F32, shape,
        QByteArray(reinterpret_cast<const char*>(values.data()), qsizetype(values.size() * sizeof(float)))};
}

} // namespace

class TestModelFamilies : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void matchesReference_data();
    void matchesReference();
    void tiledMatchesReference_data();
    void tiledMatchesReference();
    void residualStreamMatchesHiddenStates_data();
    void residualStreamMatchesHiddenStates();
    void distilBertComputesSinusoidalPositions();
    void phiReadsSeparateProjections();
    void gemma3MultimodalCheckpoint();
    void ropeParametersOfTransformers5();
    void modelsListTheFamilies();
    void configsOfReleasedModels_data();
    void configsOfReleasedModels();
    void unsupportedRopeScalingIsNamed_data();
    void unsupportedRopeScalingIsNamed();
};

void TestModelFamilies::matchesReference_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QString>("modelType");
    for (const FamilyCase& c : kCases)
        QTest::newRow(c.name) << QString::fromLatin1(c.name) << QString::fromLatin1(c.modelType);
}

void TestModelFamilies::matchesReference()
{
    QFETCH(QString, caseName);
    QFETCH(QString, modelType);
    const auto model = TransformerModel::open(oracleFolder(caseName));
    QCOMPARE(model->config().modelType, modelType);
    checkMatchesOracle(*model, caseName);
}

void TestModelFamilies::tiledMatchesReference_data()
{
    matchesReference_data();
}

// The same through attentionTiled and TiledAttentionMaps: soft caps and windows in the online softmax and in
// the tiles recomputed from the logsumexp.
void TestModelFamilies::tiledMatchesReference()
{
    QFETCH(QString, caseName);
    RunOptions options;
    options.denseLimit = 4;
    const auto model = TransformerModel::open(oracleFolder(caseName));
    const AttentionCapture capture = model->run(oracleInputIds(caseName), {}, options);
    QVERIFY(dynamic_cast<const TiledAttentionMaps*>(capture.maps.get()));
    const double error = maxAbsError(*capture.maps, oracleAttentions(caseName));
    QVERIFY2(error <= 1e-5, qPrintable(QStringLiteral("max abs error %1").arg(error)));
}

void TestModelFamilies::residualStreamMatchesHiddenStates_data()
{
    matchesReference_data();
}

// hidden.npy holds transformers' hidden_states: the input of every layer, then (decoders) the last output
// after the final norm or (encoders) the last layer's output. The residual stream at every boundary must
// match them, relative to the largest |h| (the hidden states grow to ~20 in these wide random models).
void TestModelFamilies::residualStreamMatchesHiddenStates()
{
    QFETCH(QString, caseName);
    const auto model = TransformerModel::open(oracleFolder(caseName));
    RunOptions options;
    options.keepResiduals = true;
    const AttentionCapture capture = model->run(oracleInputIds(caseName), {}, options);
    const NpyArray hidden = readNpyFile(oracleFolder(caseName) + QStringLiteral("/hidden.npy"));
    const int layers = model->config().layers, n = capture.tokens(), h = model->config().hidden;
    QCOMPARE(hidden.shape, (std::vector<qint64>{layers + 1, n, h}));
    QCOMPARE(int(capture.residuals.size()), layers + 1);
    QCOMPARE(int(capture.residualNorms.size()), layers + 1);
    const int compared = model->config().isDecoder() ? layers : layers + 1; // decoders: the last is normed
    double scale = 1.0;
    for (double v : hidden.values)
        scale = std::max(scale, std::abs(v));
    double worst = 0;
    for (int b = 0; b < compared; ++b)
        for (int i = 0; i < n * h; ++i)
            worst = std::max(worst, std::abs(double(capture.residuals[size_t(b)][size_t(i)]) -
                                             hidden.values[size_t(b) * size_t(n) * size_t(h) + size_t(i)]));
    qInfo("%s: residual stream max abs error %.3g (max |h| %.3g)", qPrintable(caseName), worst, scale);
    QVERIFY2(worst <= 1e-5 * scale, qPrintable(QStringLiteral("max abs error %1").arg(worst)));
    // The kept statistics describe the kept vectors.
    for (int b = 0; b <= layers; ++b)
        for (int t = 0; t < n; ++t) {
            double sum = 0, largest = 0;
            for (int i = 0; i < h; ++i) {
                const double v = capture.residuals[size_t(b)][size_t(t) * size_t(h) + size_t(i)];
                sum += v * v;
                largest = std::max(largest, std::abs(v));
            }
            QVERIFY(std::abs(capture.residualNorms[size_t(b)][size_t(t)] - std::sqrt(sum)) <=
                    1e-5 * std::sqrt(sum));
            QCOMPARE(double(capture.residualMaxAbs[size_t(b)][size_t(t)]), largest);
        }
}

// distilbert_s1 stores the sinusoidal table (sinusoidal_pos_embds); without it the runtime computes the table
// and must give the same attention.
void TestModelFamilies::distilBertComputesSinusoidalPositions()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("computed"));
    copyModel(oracleFolder(QStringLiteral("distilbert_s1")), folder, [](std::vector<TensorToWrite>& tensors) {
        tensors.erase(std::remove_if(tensors.begin(), tensors.end(),
                                     [](const TensorToWrite& t) {
                                         return t.name.endsWith(QLatin1String("position_embeddings.weight"));
                                     }),
                      tensors.end());
    });
    const double error = runError(folder, QStringLiteral("distilbert_s1"));
    QVERIFY2(error <= 1e-5, qPrintable(QString::number(error)));
    // A learned table cannot be computed: without it the model does not open.
    editModelConfig(folder, QStringLiteral("sinusoidal_pos_embds"), false);
    try {
        TransformerModel::open(folder);
        QFAIL("opened without its position table");
    } catch (const ModelError& e) {
        QVERIFY2(e.message().contains(QStringLiteral("position_embeddings.weight is missing")), e.what());
    }
}

// phi_s0 comes from transformers 4.36.dev, which fused the projections into one head-interleaved
// query_key_value; the hub's Phi-2 stores q_proj, k_proj, v_proj. Split the same weights that way.
void TestModelFamilies::phiReadsSeparateProjections()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("split"));
    const QJsonObject config =
        readJsonObject(oracleFolder(QStringLiteral("phi_s0")) + QStringLiteral("/config.json"));
    const int hidden = config.value(QLatin1String("hidden_size")).toInt();
    const int heads = config.value(QLatin1String("num_attention_heads")).toInt(), d = hidden / heads;
    copyModel(oracleFolder(QStringLiteral("phi_s0")), folder, [&](std::vector<TensorToWrite>& tensors) {
        std::vector<TensorToWrite> out;
        for (const TensorToWrite& t : tensors) {
            if (!t.name.contains(QLatin1String("query_key_value"))) {
                out.push_back(t);
                continue;
            }
            const bool weight = t.name.endsWith(QLatin1String(".weight"));
            const std::vector<float> fused = floatsOf(t);
            const int columns = weight ? hidden : 1;
            const QString stem = t.name.left(t.name.indexOf(QLatin1String("query_key_value")));
            const char* parts[] = {"q_proj", "k_proj", "v_proj"};
            for (int part = 0; part < 3;
                 ++part) { // fused row (head·3 + part)·d + i is row head·d + i of part
                std::vector<float> rows;
                for (int head = 0; head < heads; ++head)
                    for (int i = 0; i < d; ++i) {
                        const size_t row = size_t((head * 3 + part) * d + i);
                        rows.insert(rows.end(), fused.begin() + std::ptrdiff_t(row * size_t(columns)),
                                    fused.begin() + std::ptrdiff_t((row + 1) * size_t(columns)));
                    }
                const QString name = stem + QLatin1String(parts[part]) +
                                     (weight ? QStringLiteral(".weight") : QStringLiteral(".bias"));
                out.push_back(f32Tensor(
                    name, weight ? std::vector<qint64>{hidden, hidden} : std::vector<qint64>{hidden}, rows));
            }
        }
        tensors = out;
    });
    const double error = runError(folder, QStringLiteral("phi_s0"));
    QVERIFY2(error <= 1e-5, qPrintable(QString::number(error)));
}

// Gemma 3's image-text checkpoints (model_type "gemma3") hold the text model under text_config and
// language_model.model.*; AttnScope runs that text model.
void TestModelFamilies::gemma3MultimodalCheckpoint()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("multimodal"));
    copyModel(oracleFolder(QStringLiteral("gemma3_s0")), folder, [](std::vector<TensorToWrite>& tensors) {
        for (TensorToWrite& t : tensors)
            t.name = QStringLiteral("language_model.") + t.name;
        tensors.push_back(
            f32Tensor(QStringLiteral("vision_tower.vision_model.post_layernorm.weight"), {4}, {1, 1, 1, 1}));
    });
    QJsonObject text =
        readJsonObject(oracleFolder(QStringLiteral("gemma3_s0")) + QStringLiteral("/config.json"));
    text.remove(QStringLiteral("architectures"));
    writeJsonObject(
        folder + QStringLiteral("/config.json"),
        QJsonObject{
            {QStringLiteral("architectures"), QJsonArray{QStringLiteral("Gemma3ForConditionalGeneration")}},
            {QStringLiteral("model_type"), QStringLiteral("gemma3")},
            {QStringLiteral("text_config"), text},
            {QStringLiteral("vision_config"), QJsonObject{{QStringLiteral("hidden_size"), 4}}}});
    const auto model = TransformerModel::open(folder);
    QCOMPARE(model->config().modelType, QStringLiteral("gemma3"));
    const double error = runError(folder, QStringLiteral("gemma3_s0"));
    QVERIFY2(error <= 1e-5, qPrintable(QString::number(error)));
}

// transformers 5 writes rope_parameters (theta and scaling in one object; per layer type for Gemma 3) instead
// of rope_theta + rope_scaling.
void TestModelFamilies::ropeParametersOfTransformers5()
{
    struct Variant
    {
        const char* caseName;
        std::function<void(QJsonObject&)> edit;
    };
    const Variant variants[] = {
        {"llama3_s0",
         [](QJsonObject& c) {
             QJsonObject p = c.value(QLatin1String("rope_scaling")).toObject();
             p.insert(QStringLiteral("rope_theta"), c.value(QLatin1String("rope_theta")));
             c.insert(QStringLiteral("rope_parameters"), p);
             c.remove(QStringLiteral("rope_scaling"));
             c.remove(QStringLiteral("rope_theta"));
         }},
        {"gemma3_s1",
         [](QJsonObject& c) {
             QJsonObject global = c.value(QLatin1String("rope_scaling")).toObject();
             global.insert(QStringLiteral("rope_theta"), c.value(QLatin1String("rope_theta")));
             const QJsonObject local{
                 {QStringLiteral("rope_type"), QStringLiteral("default")},
                 {QStringLiteral("rope_theta"), c.value(QLatin1String("rope_local_base_freq"))}};
             c.insert(QStringLiteral("rope_parameters"),
                      QJsonObject{{QStringLiteral("full_attention"), global},
                                  {QStringLiteral("sliding_attention"), local}});
             for (const char* key : {"rope_scaling", "rope_theta", "rope_local_base_freq"})
                 c.remove(QLatin1String(key));
         }},
    };
    for (const Variant& v : variants) {
        const QString caseName = QString::fromLatin1(v.caseName);
        QTemporaryDir dir;
        const QString folder = copyOracleCase(dir, caseName, QStringLiteral("v5"));
        QJsonObject config = readJsonObject(folder + QStringLiteral("/config.json"));
        v.edit(config);
        writeJsonObject(folder + QStringLiteral("/config.json"), config);
        const double error = runError(folder, caseName);
        QVERIFY2(error <= 1e-5, qPrintable(caseName + QStringLiteral(": ") + QString::number(error)));
    }
}

void TestModelFamilies::modelsListTheFamilies()
{
    const QStringList types = ModelConfig::supportedModelTypes();
    for (const FamilyCase& c : kCases)
        QVERIFY2(types.contains(QString::fromLatin1(c.modelType)), c.modelType);
    for (const char* other : {"bert", "gpt2", "gemma3"})
        QVERIFY(types.contains(QLatin1String(other)));
}

void TestModelFamilies::configsOfReleasedModels_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<int>("headDim");
    QTest::addColumn<int>("kvHeads");
    QTest::addColumn<int>("maxPositions");
    // The fields of the released models' config.json that the readers use (issue 15 was opened on the first).
    QTest::newRow("Llama-3.2-1B")
        << QByteArray(R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "head_dim": 64,
            "hidden_act": "silu", "hidden_size": 2048, "intermediate_size": 8192, "max_position_embeddings": 131072,
            "num_attention_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
            "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                             "original_max_position_embeddings": 8192, "rope_type": "llama3"},
            "rope_theta": 500000.0, "tie_word_embeddings": true, "vocab_size": 128256})")
        << 64 << 8 << 131072;
    QTest::newRow("gemma-2-2b")
        << QByteArray(R"({"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", "head_dim": 256,
            "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 2304, "intermediate_size": 9216,
            "max_position_embeddings": 8192, "num_attention_heads": 8, "num_hidden_layers": 26,
            "num_key_value_heads": 4, "query_pre_attn_scalar": 256, "sliding_window": 4096,
            "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0, "rms_norm_eps": 1e-06,
            "rope_theta": 10000.0, "vocab_size": 256000})")
        << 256 << 4 << 8192;
    QTest::newRow("gemma-3-4b (image-text)")
        << QByteArray(R"({"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
            "text_config": {"model_type": "gemma3_text", "hidden_size": 2560, "intermediate_size": 10240,
              "num_attention_heads": 8, "num_hidden_layers": 34, "num_key_value_heads": 4, "head_dim": 256,
              "query_pre_attn_scalar": 256, "sliding_window": 1024, "rope_scaling": {"factor": 8.0,
              "rope_type": "linear"}, "vocab_size": 262208},
            "vision_config": {"hidden_size": 1152}})")
        << 256 << 4 << 131072;
    QTest::newRow("Qwen3-0.6B")
        << QByteArray(R"({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "head_dim": 128,
            "hidden_act": "silu", "hidden_size": 1024, "intermediate_size": 3072, "max_position_embeddings": 40960,
            "max_window_layers": 28, "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8,
            "rms_norm_eps": 1e-06, "rope_scaling": null, "rope_theta": 1000000, "sliding_window": null,
            "tie_word_embeddings": true, "use_sliding_window": false, "vocab_size": 151936})")
        << 128 << 8 << 40960;
    QTest::newRow("pythia-160m")
        << QByteArray(
               R"({"architectures": ["GPTNeoXForCausalLM"], "model_type": "gpt_neox", "hidden_act": "gelu",
            "hidden_size": 768, "intermediate_size": 3072, "max_position_embeddings": 2048,
            "num_attention_heads": 12, "num_hidden_layers": 12, "rotary_emb_base": 10000, "rotary_pct": 0.25,
            "use_parallel_residual": true, "vocab_size": 50304})")
        << 64 << 12 << 2048;
}

// Released models' configs are read (no weights needed: the model list describes them from config.json).
void TestModelFamilies::configsOfReleasedModels()
{
    QFETCH(QByteArray, json);
    QFETCH(int, headDim);
    QFETCH(int, kvHeads);
    QFETCH(int, maxPositions);
    QJsonParseError error;
    const QJsonObject object = QJsonDocument::fromJson(json, &error).object();
    QCOMPARE(error.error, QJsonParseError::NoError);
    const ModelConfig config = ModelConfig::fromJson(object, QStringLiteral("config.json"));
    QCOMPARE(config.headDim, headDim);
    QCOMPARE(config.kvHeads, kvHeads);
    QCOMPARE(config.maxPositions, maxPositions);
    QVERIFY(config.isDecoder());
}

void TestModelFamilies::unsupportedRopeScalingIsNamed_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QJsonValue>("ropeScaling");
    QTest::addColumn<QString>("problem");
    QTest::newRow("unknown type") << "llama3_s0"
                                  << QJsonValue(QJsonObject{
                                         {QStringLiteral("rope_type"), QStringLiteral("ntk-by-parts")}})
                                  << "rope_scaling type 'ntk-by-parts' is not supported; supported: default, "
                                     "linear, dynamic, llama3, yarn, "
                                     "longrope";
    QTest::newRow("llama3 without its factors")
        << "llama3_s0"
        << QJsonValue(QJsonObject{{QStringLiteral("rope_type"), QStringLiteral("llama3")},
                                  {QStringLiteral("factor"), 8.0}})
        << "rope_scaling of type 'llama3' needs low_freq_factor";
    QTest::newRow("longrope factors of the wrong length")
        << "phi3_s0"
        << QJsonValue(QJsonObject{{QStringLiteral("type"), QStringLiteral("longrope")},
                                  {QStringLiteral("short_factor"), QJsonArray{1.0, 2.0}},
                                  {QStringLiteral("long_factor"), QJsonArray{1.0, 2.0}}})
        << "short_factor and long_factor need 4 entries each";
}

// A config the runtime cannot honour is refused in one line naming config.json and the setting.
void TestModelFamilies::unsupportedRopeScalingIsNamed()
{
    QFETCH(QString, caseName);
    QFETCH(QJsonValue, ropeScaling);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    const QString folder = copyOracleCase(dir, caseName);
    editModelConfig(folder, QStringLiteral("rope_scaling"), ropeScaling);
    try {
        TransformerModel::open(folder);
        QFAIL("opened");
    } catch (const ModelError& e) {
        const QString message = e.message();
        QVERIFY2(message.startsWith(QDir::toNativeSeparators(folder + QStringLiteral("/config.json: "))),
                 e.what());
        QVERIFY2(message.contains(problem), e.what());
        QVERIFY(!message.contains(QLatin1Char('\n')));
    }
}

QTEST_GUILESS_MAIN(TestModelFamilies)
#include "tst_model_families.moc"
