// Hostile model folders (issue 18): each case once crashed, read out of bounds, ran out of memory, hit
// undefined behaviour or silently gave garbage; now each gives one ModelError that names the file and the
// problem. The safetensors rules, config.json's limits and domains, and NaN/Inf in the weights.

#include "backend/cpubackend.h"
#include "core/support/modelfixtures.h"
#include "model/modelconfig.h"
#include "model/transformermodel.h"
#include "support/testdata.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <cstring>
#include <limits>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Sets element `index` (every element when -1) of a F32, F16 or BF16 tensor to `value`.
void setElements(TensorToWrite& tensor, qint64 index, float value)
{
    const int size = dtypeSize(tensor.dtype);
    const qint64 count = tensor.data.size() / size;
    for (qint64 i = 0; i < count; ++i) {
        if (index >= 0 && i != index) continue;
        std::uint32_t bits;
        std::memcpy(&bits, &value, 4);
        char* at = tensor.data.data() + i * size;
        if (tensor.dtype == TensorDtype::F32) {
            std::memcpy(at, &value, 4);
        } else if (tensor.dtype == TensorDtype::BF16) {
            const std::uint16_t b = std::uint16_t(bits >> 16);
            std::memcpy(at, &b, 2);
        } else { // F16: only the special values the tests use
            const std::uint16_t h = std::isnan(value) ? 0x7e00 : value > 0 ? 0x7c00 : 0xfc00;
            std::memcpy(at, &h, 2);
        }
    }
}

TensorToWrite* findTensor(std::vector<TensorToWrite>& tensors, const QString& name)
{
    for (TensorToWrite& t : tensors)
        if (t.name == name) return &t;
    return nullptr;
}

} // namespace

class TestHostileModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void lmHeadBiasShapeIsChecked_data();
    void lmHeadBiasShapeIsChecked();
    void absurdLayerCountIsRefusedAtOnce_data();
    void absurdLayerCountIsRefusedAtOnce();
    void configOutsideItsDomain_data();
    void configOutsideItsDomain();
    void safetensorsRules_data();
    void safetensorsRules();
    void shardIndexProblems_data();
    void shardIndexProblems();
    void danglingSymlinkIsNamed();
    void nonFiniteNumbersAreNamed_data();
    void nonFiniteNumbersAreNamed();
    void overflowIsCaughtOnEveryAttentionPath();
    void finiteModelsStillRun();
    void attentionOnlySkipsTheLastFeedForward_data();
    void attentionOnlySkipsTheLastFeedForward();
};

// Issue 18 item 1: cls.predictions.decoder.bias of shape [1] was read as a [V] bias (heap-buffer-overflow
// READ in ops::linear); now the shape validation refuses it at open.
void TestHostileModel::lmHeadBiasShapeIsChecked_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<bool>("atEnd"); // the tensor written last in the file (the f32 variant of the report)
    QTest::newRow("bf16") << "bert_s1" << false;
    QTest::newRow("f32, last in the file") << "bert_s0" << true;
}

void TestHostileModel::lmHeadBiasShapeIsChecked()
{
    QFETCH(QString, caseName);
    QFETCH(bool, atEnd);
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("model"));
    copyModel(oracleFolder(caseName), folder, [&](std::vector<TensorToWrite>& tensors) {
        auto bias = std::find_if(tensors.begin(), tensors.end(), [](const TensorToWrite& t) {
            return t.name == QLatin1String("cls.predictions.bias");
        });
        QVERIFY(bias != tensors.end());
        TensorToWrite small = *bias;
        tensors.erase(bias);
        small.name = QStringLiteral("cls.predictions.decoder.bias");
        small.shape = {1};
        small.data = small.data.left(dtypeSize(small.dtype));
        if (atEnd)
            tensors.push_back(small);
        else
            tensors.insert(tensors.begin(), small);
    });
    const QString message = modelOpenError(folder);
    QVERIFY2(message.contains(QStringLiteral(
                 "tensor cls.predictions.decoder.bias has shape [1] but config.json implies [114]")),
             qPrintable(message));
    QVERIFY(message.startsWith(folder + QStringLiteral("/model.safetensors: ")));
}

// Item 3: n_layer 10^9 built a list of 16·10^9 tensor names (over 6 GB in 10 s) before refusing.
void TestHostileModel::absurdLayerCountIsRefusedAtOnce_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QString>("key");
    QTest::addColumn<double>("layers");
    QTest::addColumn<QString>("problem");
    QTest::newRow("GPT-2, 10^9") << "gpt2_s0"
                                 << "n_layer" << 1e9 << "n_layer 1000000000 is more than AttnScope supports";
    QTest::newRow("BERT, 10^9") << "bert_s0"
                                << "num_hidden_layers" << 1e9
                                << "num_hidden_layers 1000000000 is more than AttnScope supports";
    // Within the limit but beyond what the file holds: refused before the shape walk.
    QTest::newRow("Llama, 4000") << "llama_s0"
                                 << "num_hidden_layers" << 4000.0 << "4000 layers, but the weights hold only";
}

void TestHostileModel::absurdLayerCountIsRefusedAtOnce()
{
    QFETCH(QString, caseName);
    QFETCH(QString, key);
    QFETCH(double, layers);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    const QString folder = copyOracleCase(dir, caseName);
    editModelConfig(folder, key, layers);
    QElapsedTimer timer;
    timer.start();
    const QString message = modelOpenError(folder);
    QVERIFY2(message.contains(problem), qPrintable(message));
    QVERIFY2(message.startsWith(folder + QStringLiteral("/config.json: ")), qPrintable(message));
    QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
}

// Items 4, 8, 9, 10: values outside their mathematical domain, sizes whose products overflowed (4 × n_embd),
// numbers where strings belong (activation_function: 3 became gelu_new), an unreadable rope_scaling.
void TestHostileModel::configOutsideItsDomain_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("json"); // the value, as JSON
    QTest::addColumn<QString>("problem");
    QTest::newRow("rope_theta 0") << "llama_s0"
                                  << "rope_theta"
                                  << "0"
                                  << "rope_theta is 0, but RoPE's base must be above 0";
    QTest::newRow("rope_theta < 0") << "llama_s0"
                                    << "rope_theta"
                                    << "-10000"
                                    << "RoPE's base must be above 0";
    QTest::newRow("rms_norm_eps < 0")
        << "llama_s0"
        << "rms_norm_eps"
        << "-1e-06"
        << "rms_norm_eps is -1e-06, but a normalisation epsilon cannot be negative";
    QTest::newRow("layer_norm_eps < 0") << "bert_s0"
                                        << "layer_norm_eps"
                                        << "-1"
                                        << "epsilon cannot be negative";
    QTest::newRow("layer_norm_epsilon < 0") << "gpt2_s0"
                                            << "layer_norm_epsilon"
                                            << "-0.5"
                                            << "epsilon cannot be negative";
    QTest::newRow("activation_function 3") << "gpt2_s0"
                                           << "activation_function"
                                           << "3"
                                           << "activation_function must be a string, not 3";
    QTest::newRow("hidden_act list") << "bert_s0"
                                     << "hidden_act"
                                     << "[\"gelu\"]"
                                     << "hidden_act must be a string";
    QTest::newRow("model_type number") << "bert_s0"
                                       << "model_type"
                                       << "7"
                                       << "model_type must be a string, not 7";
    QTest::newRow("architectures string") << "bert_s0"
                                          << "architectures"
                                          << "\"BertForMaskedLM\""
                                          << "architectures must be a list of class names";
    QTest::newRow("rope_scaling {}") << "llama_s0"
                                     << "rope_scaling"
                                     << "{}"
                                     << "rope_scaling {} names no rope_type (or type)";
    QTest::newRow("rope_scaling without a type") << "llama_s0"
                                                 << "rope_scaling"
                                                 << "{\"factor\": 2}"
                                                 << "rope_scaling names no rope_type (or type)";
    QTest::newRow("rope_scaling type 5") << "llama_s0"
                                         << "rope_scaling"
                                         << "{\"type\": 5, \"factor\": 2}"
                                         << "rope_scaling names no rope_type (or type)";
    QTest::newRow("rope_scaling 5") << "llama_s0"
                                    << "rope_scaling"
                                    << "5"
                                    << "rope_scaling must be an object";
    QTest::newRow("rope_scaling factor 0") << "llama_s0"
                                           << "rope_scaling"
                                           << "{\"type\": \"linear\", \"factor\": 0}"
                                           << "rope_scaling.factor must be positive";
    // Converted to int unchecked: undefined behaviour (float-cast-overflow).
    QTest::newRow("llama3 original positions 1e300")
        << "llama_s0"
        << "rope_scaling"
        << "{\"rope_type\": \"llama3\", \"factor\": 8, \"low_freq_factor\": 1, \"high_freq_factor\": 4, "
           "\"original_max_position_embeddings\": 1e300}"
        << "rope_scaling.original_max_position_embeddings must be a whole number from 1 to";
    QTest::newRow("llama3 low_freq_factor 0")
        << "llama_s0"
        << "rope_scaling"
        << "{\"rope_type\": \"llama3\", \"factor\": 8, \"low_freq_factor\": 0, \"high_freq_factor\": 4, "
           "\"original_max_position_embeddings\": 64}"
        << "rope_scaling.low_freq_factor must be positive";
    QTest::newRow("dynamic factor 1e300") << "llama_s0"
                                          << "rope_scaling"
                                          << "{\"type\": \"dynamic\", \"factor\": 1e300}"
                                          << "takes max_position_embeddings";
    QTest::newRow("yarn attention_factor < 0")
        << "llama_s0"
        << "rope_scaling"
        << "{\"rope_type\": \"yarn\", \"factor\": 2, \"original_max_position_embeddings\": 64, "
           "\"attention_factor\": -1}"
        << "rope_scaling.attention_factor must be positive";
    // The families added since: the same domains.
    QTest::newRow("Gemma 2 query_pre_attn_scalar 0") << "gemma2_s0"
                                                     << "query_pre_attn_scalar"
                                                     << "0"
                                                     << "query_pre_attn_scalar is 0, but it must be above 0";
    QTest::newRow("Gemma 2 rope_theta < 0") << "gemma2_s0"
                                            << "rope_theta"
                                            << "-1"
                                            << "RoPE's base must be above 0";
    QTest::newRow("Gemma 2 soft cap < 0") << "gemma2_s0"
                                          << "attn_logit_softcapping"
                                          << "-50"
                                          << "soft caps must be positive";
    QTest::newRow("Gemma 3 rms_norm_eps < 0") << "gemma3_s0"
                                              << "rms_norm_eps"
                                              << "-1e-06"
                                              << "epsilon cannot be negative";
    QTest::newRow("Phi-3 rms_norm_eps < 0") << "phi3_s0"
                                            << "rms_norm_eps"
                                            << "-1"
                                            << "epsilon cannot be negative";
    QTest::newRow("Phi layer_norm_eps < 0") << "phi_s0"
                                            << "layer_norm_eps"
                                            << "-1"
                                            << "epsilon cannot be negative";
    QTest::newRow("GPT-NeoX layer_norm_eps < 0") << "gpt_neox_s0"
                                                 << "layer_norm_eps"
                                                 << "-1"
                                                 << "epsilon cannot be negative";
    QTest::newRow("GPT-NeoX rotary_emb_base 0") << "gpt_neox_s0"
                                                << "rotary_emb_base"
                                                << "0"
                                                << "RoPE's base must be above 0";
    QTest::newRow("Qwen2 max_window_layers 1e20") << "qwen2_s0"
                                                  << "max_window_layers"
                                                  << "1e20"
                                                  << "max_window_layers must be an integer from 0 to";
    QTest::newRow("RoBERTa pad_token_id 1e20") << "roberta_s0"
                                               << "pad_token_id"
                                               << "1e20"
                                               << "pad_token_id must be an integer from 0 to";
    QTest::newRow("DistilBERT n_layers 10^9") << "distilbert_s0"
                                              << "n_layers"
                                              << "1000000000"
                                              << "n_layers 1000000000 is more than AttnScope supports";
    QTest::newRow("Gemma 2 sliding_window 1e12") << "gemma2_s0"
                                                 << "sliding_window"
                                                 << "1e12"
                                                 << "sliding_window 1000000000000 is more than";
    // 4 × 2^29 overflowed int (the default n_inner); the limit keeps every derived size in range.
    QTest::newRow("n_embd 2^29") << "gpt2_s0"
                                 << "n_embd"
                                 << "536870912"
                                 << "n_embd 536870912 is more than AttnScope supports";
    QTest::newRow("vocab_size 2^30") << "bert_s0"
                                     << "vocab_size"
                                     << "1073741824"
                                     << "vocab_size 1073741824 is more than";
    QTest::newRow("heads 10^5") << "llama_s0"
                                << "num_attention_heads"
                                << "100000"
                                << "is more than AttnScope supports";
    QTest::newRow("positions 1e12") << "gpt2_s0"
                                    << "n_positions"
                                    << "1e12"
                                    << "n_positions 1000000000000 is more than";
    QTest::newRow("fractional size") << "bert_s0"
                                     << "hidden_size"
                                     << "32.5"
                                     << "hidden_size must be a positive integer";
}

void TestHostileModel::configOutsideItsDomain()
{
    QFETCH(QString, caseName);
    QFETCH(QString, key);
    QFETCH(QString, json);
    QFETCH(QString, problem);
    QJsonObject config = readJsonObject(oracleFolder(caseName) + QStringLiteral("/config.json"));
    config.insert(key, QJsonDocument::fromJson(QByteArray("[" + json.toUtf8() + "]")).array().at(0));
    QString message;
    try {
        ModelConfig::fromJson(config, QStringLiteral("config.json"));
    } catch (const ModelError& e) {
        message = e.message();
    }
    QVERIFY2(message.startsWith(QStringLiteral("config.json: ")) && message.contains(problem),
             qPrintable(message));
    QVERIFY(!message.contains(QLatin1Char('\n')));
}

// Upstream safetensors' rules: a header names each tensor once (the last of two equal keys won), sizes
// are computed without overflow ("needs -9223372036854775808" for a 2^32 × 2^32 × 2^32 × 32 shape), the
// data has no holes, the header is a JSON object from its first byte, __metadata__ holds strings.
void TestHostileModel::safetensorsRules_data()
{
    QTest::addColumn<QByteArray>("header");
    QTest::addColumn<int>("dataBytes");
    QTest::addColumn<QString>("problem");
    QTest::newRow("duplicate tensor")
        << QByteArray(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                      R"("a":{"dtype":"F32","shape":[2],"data_offsets":[16,24]}})")
        << 24 << "the header names tensor a twice";
    QTest::newRow("duplicate field")
        << QByteArray(R"({"a":{"dtype":"F32","dtype":"F16","shape":[4],"data_offsets":[0,16]}})") << 16
        << "key \"dtype\" appears twice in the header entry a";
    QTest::newRow("duplicate escaped key")
        << QByteArray(R"({"ab":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                      R"("a\u0062":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})")
        << 8 << "names tensor ab twice";
    QTest::newRow("shape overflows")
        << QByteArray(
               R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,4294967296,32],"data_offsets":[0,16]}})")
        << 16 << "whose F32 data would need more than 2^63 bytes";
    QTest::newRow("hole") << QByteArray(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                                        R"("b":{"dtype":"F32","shape":[4],"data_offsets":[32,48]}})")
                          << 48 << "bytes [16, 32) of the data belong to no tensor";
    QTest::newRow("trailing bytes") << QByteArray(
                                           R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})")
                                    << 20 << "the last 4 bytes of the data belong to no tensor";
    QTest::newRow("not starting with {")
        << QByteArray(R"( {"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})") << 4
        << "does not start with '{'";
    QTest::newRow("metadata not strings")
        << QByteArray(R"({"__metadata__":{"format":7},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})")
        << 4 << "__metadata__ field format is not a string";
}

void TestHostileModel::safetensorsRules()
{
    QFETCH(QByteArray, header);
    QFETCH(int, dataBytes);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("model.safetensors"));
    writeRequiredFile(path, rawSafetensors(header, dataBytes));
    QString message;
    try {
        SafetensorsFile file(path);
    } catch (const ModelError& e) {
        message = e.message();
    }
    QVERIFY2(message.startsWith(path + QStringLiteral(": ")) && message.contains(problem),
             qPrintable(message));
}

// Item 10: a weight_map value of 5 was "invalid shard name ''"; a tensor in two shards silently took the
// last one.
void TestHostileModel::shardIndexProblems_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("problem");
    QTest::newRow("shard name is a number") << "number"
                                            << "model.safetensors.index.json"
                                            << "maps to 5, not to a shard's file name";
    QTest::newRow("tensor in two shards") << "twice"
                                          << "model-2.safetensors"
                                          << "is also in";
}

void TestHostileModel::shardIndexProblems()
{
    QFETCH(QString, kind);
    QFETCH(QString, file);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    const QString folder = copyOracleCase(dir, QStringLiteral("gpt2_s0"));
    const QString single = folder + QStringLiteral("/model.safetensors");
    const std::vector<TensorToWrite> tensors = readTensors(single);
    QFile::remove(single);
    writeSafetensors(folder + QStringLiteral("/model-1.safetensors"), tensors);
    QJsonObject map;
    for (const TensorToWrite& t : tensors)
        map.insert(t.name, QStringLiteral("model-1.safetensors"));
    if (kind == QLatin1String("number")) {
        map.insert(tensors.front().name, 5);
    } else {
        writeSafetensors(folder + QStringLiteral("/model-2.safetensors"), {tensors.front()});
        map.insert(QStringLiteral("extra"), QStringLiteral("model-2.safetensors"));
    }
    writeRequiredFile(folder + QStringLiteral("/model.safetensors.index.json"),
                      QJsonDocument(QJsonObject{{QStringLiteral("weight_map"), map}}).toJson());
    const QString message = modelOpenError(folder);
    const int colon = int(message.indexOf(QStringLiteral(": ")));
    QVERIFY2(colon > 0 && message.left(colon).endsWith(file) && message.contains(problem),
             qPrintable(message));
}

// Item 10: a dangling symbolic link was "no model.safetensors ...".
void TestHostileModel::danglingSymlinkIsNamed()
{
    QTemporaryDir dir;
    const QString folder = copyOracleCase(dir, QStringLiteral("bert_s0"));
    const QString weights = folder + QStringLiteral("/model.safetensors");
    QFile::remove(weights);
    QVERIFY(QFile::link(dir.filePath(QStringLiteral("gone.safetensors")), weights));
    const QString message = modelOpenError(folder);
    QVERIFY2(message.startsWith(weights + QStringLiteral(": a symbolic link to ")) &&
                 message.contains(QStringLiteral("gone.safetensors, which does not exist")),
             qPrintable(message));
}

// Item 4: NaN and Inf in the weights gave plausible pictures (rows painted as 0, "mixed" heads, ranked
// "nan" predictions); now the stage where they appear is named, with the weight they came from.
void TestHostileModel::nonFiniteNumbersAreNamed_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QString>("tensor");
    QTest::addColumn<qint64>("index"); // -1: every element
    QTest::addColumn<float>("value");
    QTest::addColumn<QString>("when"); // open, run or predict
    QTest::addColumn<QString>("problem");
    QTest::newRow("NaN in GPT-2's fused QKV")
        << "gpt2_s0"
        << "transformer.h.0.attn.c_attn.weight" << qint64(5) << kNaN << "run"
        << "layer 0: NaN in the queries (from weight "
           "transformer.h.0.attn.c_attn.weight, which holds NaN?)";
    // Finite weights whose products overflow: q = k = 1e30 in every dimension, q·k = inf, softmax NaN.
    QTest::newRow("1e30 in GPT-2's fused QKV bias")
        << "gpt2_s0"
        << "transformer.h.1.attn.c_attn.bias" << qint64(-1) << 1e30f << "run"
        << "layer 1: NaN in the attention scores (from weight "
           "transformer.h.1.attn.c_attn.bias, which holds values up to 1e+30?)";
    QTest::newRow("NaN in Llama's MLP")
        << "llama_s0"
        << "model.layers.1.mlp.down_proj.weight" << qint64(0) << kNaN << "run"
        << "layer 1: NaN in the hidden states after its feed-forward (from weight "
           "model.layers.1.mlp.down_proj.weight, which holds NaN?)";
    QTest::newRow("Inf in a bf16 Llama's query")
        << "llama_s1"
        << "model.layers.0.self_attn.q_proj.weight" << qint64(-1) << kInf << "run"
        << "in the queries (from weight "
           "model.layers.0.self_attn.q_proj.weight, which holds +Inf?)";
    QTest::newRow("NaN in BERT's word embeddings")
        << "bert_s0"
        << "bert.embeddings.word_embeddings.weight" << qint64(-1) << kNaN << "run"
        << "embeddings: NaN in the embedded tokens (from weight "
           "bert.embeddings.word_embeddings.weight, which holds NaN?)";
    QTest::newRow("NaN in a f16 norm, refused at open")
        << "gpt2_s1"
        << "transformer.h.1.ln_1.weight" << qint64(3) << kNaN << "open"
        << "tensor transformer.h.1.ln_1.weight holds NaN at element 3";
    QTest::newRow("-Inf in a bf16 bias, refused at open")
        << "bert_s1"
        << "bert.encoder.layer.0.output.dense.bias" << qint64(0) << -kInf << "open"
        << "tensor bert.encoder.layer.0.output.dense.bias holds -Inf at element 0";
    QTest::newRow("Inf in BERT's LM head")
        << "bert_s1"
        << "cls.predictions.transform.dense.weight" << qint64(-1) << kInf << "predict"
        << "in the logits (from weight cls.predictions.transform.dense.weight, which holds +Inf?)";
    QTest::newRow("NaN in Llama's lm_head")
        << "llama_s0"
        << "lm_head.weight" << qint64(7) << kNaN << "predict"
        << "LM head: NaN in the logits (from weight lm_head.weight, which holds NaN?)";
}

void TestHostileModel::nonFiniteNumbersAreNamed()
{
    QFETCH(QString, caseName);
    QFETCH(QString, tensor);
    QFETCH(qint64, index);
    QFETCH(float, value);
    QFETCH(QString, when);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("model"));
    copyModel(oracleFolder(caseName), folder, [&](std::vector<TensorToWrite>& tensors) {
        TensorToWrite* t = findTensor(tensors, tensor);
        QVERIFY(t);
        setElements(*t, index, value);
    });
    std::vector<int> ids = oracleInputIds(caseName);
    QVERIFY(!ids.empty());
    QString message;
    try {
        const auto model = TransformerModel::open(folder);
        QVERIFY2(when != QLatin1String("open"), "opened");
        const AttentionCapture capture = model->run(ids, {});
        QVERIFY2(when != QLatin1String("run"), "ran");
        // The attention is fine when only the head is broken; the prediction is refused.
        for (int l = 0; l < capture.layers(); ++l)
            for (float p : capture.maps->matrix(l, 0))
                QVERIFY(std::isfinite(p));
        model->predict(ids, {}, 5, {},
                       model->config().isDecoder() ? std::vector<int>{} : std::vector<int>{1});
    } catch (const ModelError& e) {
        message = e.message();
    }
    QVERIFY2(message.contains(problem), qPrintable(message));
    QVERIFY2(message.startsWith(folder + QStringLiteral("/model.safetensors: ")), qPrintable(message));
    // The stage is named first: "layer 1: NaN in ...", "LM head: Inf in ...".
    if (when != QLatin1String("open")) {
        static const QRegularExpression stage(
            QStringLiteral("safetensors: (embeddings|layer \\d+|LM head): (NaN|Inf) in "));
        QVERIFY2(stage.match(message).hasMatch(), qPrintable(message));
    }
    QVERIFY(!message.contains(QLatin1Char('\n')));
}

// Scores that overflow (q · k = 1e30 · 1e30) are caught on every path the attention can take: the dense
// kernel turns them into NaN probabilities, the online softmax of the tiled kernel (long inputs, GPU
// backends) skips NaN scores as if masked and would have returned rows of zeros.
void TestHostileModel::overflowIsCaughtOnEveryAttentionPath()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("model"));
    copyModel(oracleFolder(QStringLiteral("gpt2_s0")), folder, [](std::vector<TensorToWrite>& tensors) {
        setElements(*findTensor(tensors, QStringLiteral("transformer.h.1.attn.c_attn.bias")), -1, 1e30f);
    });
    const auto model = TransformerModel::open(folder);
    CpuBackend backend;
    RunOptions dense, tiled, onBackend, tiledOnBackend;
    tiled.denseLimit = 2;
    onBackend.backend = &backend;
    tiledOnBackend.backend = &backend;
    tiledOnBackend.denseLimit = 2;
    for (const RunOptions* options : {&dense, &tiled, &onBackend, &tiledOnBackend}) {
        QString message;
        try {
            model->run(oracleInputIds(QStringLiteral("gpt2_s0")), {}, *options);
        } catch (const ModelError& e) {
            message = e.message();
        }
        QVERIFY2(message.contains(
                     QStringLiteral("layer 1: NaN in the attention scores (from weight "
                                    "transformer.h.1.attn.c_attn.bias, which holds values up to 1e+30?)")),
                 qPrintable(message));
    }
}

// The checks cost nothing in correctness: the oracle cases still run and predict.
void TestHostileModel::finiteModelsStillRun()
{
    for (const char* name : {"bert_s0", "bert_s1", "gpt2_s0", "gpt2_s1", "llama_s0", "llama_s1"}) {
        const QString caseName = QString::fromLatin1(name);
        const auto model = TransformerModel::open(oracleFolder(caseName));
        const std::vector<int> ids = oracleInputIds(caseName);
        const AttentionCapture capture = model->run(ids, {});
        QVERIFY(maxAbsError(*capture.maps, oracleAttentions(caseName)) < 1e-4);
        const std::vector<Prediction> p = model->predict(
            ids, {}, 3, {}, model->config().isDecoder() ? std::vector<int>{} : std::vector<int>{1});
        QVERIFY(!p.empty() && std::isfinite(p.front().top.front().probability));
    }
}

QTEST_GUILESS_MAIN(TestHostileModel)
// RunOptions::attentionOnly (the CLI's `attention`): the last layer's feed-forward is not computed. Shown by
// poisoning its output weight with NaN: a full pass refuses it, the attention-only pass never reads it and
// gives every map exactly as the clean model's full pass does (and so the upstream reference).
void TestHostileModel::attentionOnlySkipsTheLastFeedForward_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QString>("tensor"); // %1: the last layer
    QTest::newRow("llama f32") << "llama_s0"
                               << "model.layers.%1.mlp.down_proj.weight";
    QTest::newRow("llama bf16") << "llama_s1"
                                << "model.layers.%1.mlp.down_proj.weight";
    QTest::newRow("bert") << "bert_s0"
                          << "bert.encoder.layer.%1.output.dense.weight";
    QTest::newRow("gpt2") << "gpt2_s0"
                          << "transformer.h.%1.mlp.c_proj.weight";
}

void TestHostileModel::attentionOnlySkipsTheLastFeedForward()
{
    QFETCH(QString, caseName);
    QFETCH(QString, tensor);
    const std::vector<int> ids = oracleInputIds(caseName);
    const auto clean = TransformerModel::open(oracleFolder(caseName));
    const int layers = clean->config().layers;
    RunOptions options;
    options.denseLimit = 0; // as the CLI runs it
    const AttentionCapture expected = clean->run(ids, {}, options);
    QCOMPARE(int(expected.residualNorms.size()), layers + 1);

    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("model"));
    const QString poisoned = tensor.arg(layers - 1);
    copyModel(oracleFolder(caseName), folder, [&](std::vector<TensorToWrite>& tensors) {
        TensorToWrite* t = findTensor(tensors, poisoned);
        QVERIFY(t);
        setElements(*t, -1, kNaN);
    });
    const auto model = TransformerModel::open(folder);
    QString fullPassError;
    try {
        model->run(ids, {}, options);
    } catch (const ModelError& e) {
        fullPassError = e.message();
    }
    QVERIFY2(fullPassError.contains(poisoned), qPrintable(fullPassError));

    options.attentionOnly = true;
    const AttentionCapture capture = model->run(ids, {}, options);
    QCOMPARE(capture.layers(), layers);
    QCOMPARE(maxAbsError(*capture.maps, *expected.maps), 0.0);
    QVERIFY(maxAbsError(*capture.maps, oracleAttentions(caseName)) <= 1e-5);
    QCOMPARE(int(capture.residualNorms.size()), layers); // the boundary after the last layer is not there

    // Asked for a prediction as well, the whole pass runs (and finds the NaN).
    options.predictTopK = 3;
    QVERIFY_THROWS_EXCEPTION(ModelError, model->run(ids, {}, options));
}

#include "tst_hostile_model.moc"
