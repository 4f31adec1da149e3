// The forward pass's extension points (RunOptions), each against an independent truth:
//   head ablation        zeroing head h's output equals zeroing W_O's columns for h (transformers'
//   head_mask);
//                        replacing it by its mean equals moving W_O,h · mean into the o_proj bias;
//   residual stream      a pass started at layer l from the stored residual stream equals the full pass
//   there; explicit positions   RoPE attention depends on position differences only; learned positions do
//   not; keys and values      kept before RoPE (rotating them gives the scores' keys), and a pass over the
//   last token
//                        with the others' keys and values as its past gives the full pass's last row.

#include "core/support/modelfixtures.h"
#include "model/transformermodel.h"
#include "support/testdata.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <cstring>
#include <numeric>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

std::vector<float> floatsOf(const TensorToWrite& t)
{
    std::vector<float> values(size_t(t.data.size() / 4));
    std::memcpy(values.data(), t.data.constData(), size_t(t.data.size()));
    return values;
}

void setFloats(TensorToWrite& t, const std::vector<float>& values)
{
    t.data =
        QByteArray(reinterpret_cast<const char*>(values.data()), qsizetype(values.size() * sizeof(float)));
}

// Largest |a − b| over one layer of two captures' maps.
double layerError(const AttentionMaps& a, int layerA, const AttentionMaps& b, int layerB)
{
    double worst = 0;
    for (int h = 0; h < a.heads(); ++h) {
        const std::vector<float> pa = a.matrix(layerA, h), pb = b.matrix(layerB, h);
        for (size_t i = 0; i < pa.size(); ++i)
            worst = std::max(worst, double(std::abs(pa[i] - pb[i])));
    }
    return worst;
}

std::vector<int> plus(std::vector<int> v, int add)
{
    for (int& x : v)
        x += add;
    return v;
}

} // namespace

class TestModelHooks : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void zeroAblationEqualsZeroedOutputColumns_data();
    void zeroAblationEqualsZeroedOutputColumns();
    void meanAblationEqualsBiasOfTheMean();
    void resumeFromStoredResidual_data();
    void resumeFromStoredResidual();
    void explicitPositions();
    void keysAreKeptBeforeRope();
    void pastKeysAndValuesContinueTheSequence_data();
    void pastKeysAndValuesContinueTheSequence();
    void optionsThatDoNotFitAreRefused();
    void layerProbabilitiesAreHandedOver_data();
    void layerProbabilitiesAreHandedOver();
};

void TestModelHooks::zeroAblationEqualsZeroedOutputColumns_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QString>("outputWeight"); // layer 0's W_O
    QTest::addColumn<bool>("inputMajor");
    QTest::newRow("llama (nn.Linear [out, in])") << "llama_s0"
                                                 << "model.layers.0.self_attn.o_proj.weight" << false;
    QTest::newRow("gpt2 (Conv1D [in, out])") << "gpt2_s0"
                                             << "transformer.h.0.attn.c_proj.weight" << true;
    QTest::newRow("gemma2 (norm after W_O)") << "gemma2_s0"
                                             << "model.layers.0.self_attn.o_proj.weight" << false;
    QTest::newRow("bert") << "bert_s0"
                          << "bert.encoder.layer.0.attention.output.dense.weight" << false;
}

void TestModelHooks::zeroAblationEqualsZeroedOutputColumns()
{
    QFETCH(QString, caseName);
    QFETCH(QString, outputWeight);
    QFETCH(bool, inputMajor);
    const int head = 1;
    const auto model = TransformerModel::open(oracleFolder(caseName));
    const int d = model->config().headDim, inputs = model->config().heads * d,
              hidden = model->config().hidden;
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("zeroed"));
    bool found = false;
    copyModel(oracleFolder(caseName), folder, [&](std::vector<TensorToWrite>& tensors) {
        for (TensorToWrite& t : tensors) {
            if (t.name != outputWeight) continue;
            QCOMPARE(t.dtype, TensorDtype::F32);
            std::vector<float> w = floatsOf(t);
            for (int c = head * d; c < (head + 1) * d; ++c)
                for (int o = 0; o < hidden; ++o)
                    w[inputMajor ? size_t(c) * size_t(hidden) + size_t(o)
                                 : size_t(o) * size_t(inputs) + size_t(c)] = 0;
            setFloats(t, w);
            found = true;
        }
    });
    QVERIFY(found);
    const std::vector<int> ids = oracleInputIds(caseName);
    RunOptions ablated;
    ablated.ablations.push_back({0, head, AblationMode::Zero});
    const AttentionCapture a = model->run(ids, {}, ablated);
    const AttentionCapture b = TransformerModel::open(folder)->run(ids, {});
    const AttentionCapture plain = model->run(ids, {});
    const double error = maxAbsError(*a.maps, *b.maps);
    qInfo("ablated vs zeroed W_O: %.3g; layer 1 moved by %.3g", error,
          layerError(*a.maps, 1, *plain.maps, 1));
    QVERIFY(error <= 1e-6);
    QCOMPARE(layerError(*a.maps, 0, *plain.maps, 0), 0.0);  // the ablated layer's own P is untouched
    QVERIFY(layerError(*a.maps, 1, *plain.maps, 1) > 1e-3); // the layer above sees the change
}

// Mean ablation: every row of O_h becomes m = mean_t O_h(t), so the layer adds W_O,h · m to every token.
// Computed independently from the plain pass's P and V (O_h(t) = Σ_j P_h[t, j] V_kv(h)[j]) and moved into an
// o_proj bias of a copy whose W_O,h is zero.
void TestModelHooks::meanAblationEqualsBiasOfTheMean()
{
    const QString caseName = QStringLiteral("llama_s0");
    const int layer = 0, head = 2;
    const auto model = TransformerModel::open(oracleFolder(caseName));
    const ModelConfig& c = model->config();
    const int d = c.headDim, inputs = c.heads * d, hidden = c.hidden,
              n = int(oracleInputIds(caseName).size());
    const std::vector<int> ids = oracleInputIds(caseName);
    const AttentionCapture plain = model->run(ids, {});
    const std::vector<float> p = plain.maps->matrix(layer, head);
    const HeadTensor& v = plain.values[size_t(layer)];
    const int kvHead = head / (c.heads / c.kvHeads);
    std::vector<double> mean(size_t(d), 0.0);
    for (int t = 0; t < n; ++t)
        for (int j = 0; j < n; ++j)
            for (int e = 0; e < d; ++e)
                mean[size_t(e)] += double(p[size_t(t * n + j)]) * v.at(j, kvHead, e) / n;

    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("bias"));
    const QString prefix = QStringLiteral("model.layers.%1.self_attn.").arg(layer);
    copyModel(oracleFolder(caseName), folder, [&](std::vector<TensorToWrite>& tensors) {
        std::vector<float> bias(size_t(hidden), 0.0f);
        for (TensorToWrite& t : tensors) {
            if (t.name != prefix + QStringLiteral("o_proj.weight")) continue;
            std::vector<float> w = floatsOf(t);
            for (int o = 0; o < hidden; ++o) {
                double sum = 0;
                for (int e = 0; e < d; ++e) {
                    float& wo = w[size_t(o) * size_t(inputs) + size_t(head * d + e)];
                    sum += double(wo) * mean[size_t(e)];
                    wo = 0;
                }
                bias[size_t(o)] = float(sum);
            }
            setFloats(t, w);
        }
        // attention_bias: every layer's q, k, v and o projections have biases; all zero but this one.
        for (int l = 0; l < c.layers; ++l)
            for (const auto& [which, size] : {std::pair{"q_proj", inputs},
                                              {"k_proj", c.kvHeads * d},
                                              {"v_proj", c.kvHeads * d},
                                              {"o_proj", hidden}}) {
                const QString name =
                    QStringLiteral("model.layers.%1.self_attn.%2.bias").arg(l).arg(QLatin1String(which));
                std::vector<float> values(size_t(size), 0.0f);
                if (l == layer && QLatin1String(which) == QLatin1String("o_proj")) values = bias;
                TensorToWrite t{name, TensorDtype::F32, {size}, {}};
                setFloats(t, values);
                tensors.push_back(t);
            }
    });
    editModelConfig(folder, QStringLiteral("attention_bias"), true);

    RunOptions ablated;
    ablated.ablations.push_back({layer, head, AblationMode::Mean});
    const AttentionCapture a = model->run(ids, {}, ablated);
    const AttentionCapture b = TransformerModel::open(folder)->run(ids, {});
    const double error = maxAbsError(*a.maps, *b.maps);
    qInfo("mean-ablated vs bias of the mean: %.3g; layer 1 moved by %.3g", error,
          layerError(*a.maps, 1, *plain.maps, 1));
    QVERIFY(error <= 1e-5);
    QVERIFY(layerError(*a.maps, 1, *plain.maps, 1) > 1e-3);
}

void TestModelHooks::resumeFromStoredResidual_data()
{
    addOracleCaseRows({"llama_s0", "gemma3_s0", "bert_s0", "gpt_neox_s1", "roberta_s1", "gpt_oss_s0"});
}

// An ablation scan runs the layers below once: layer l's input is stored, and every ablated pass starts
// there.
void TestModelHooks::resumeFromStoredResidual()
{
    QFETCH(QString, caseName);
    const auto model = TransformerModel::open(oracleFolder(caseName));
    const std::vector<int> ids = oracleInputIds(caseName);
    const int layers = model->config().layers;
    RunOptions keep;
    keep.keepResiduals = true;
    keep.predictTopK = 3;
    const AttentionCapture full = model->run(ids, {}, keep);
    for (int first = 1; first < layers; ++first) {
        RunOptions resume;
        resume.firstLayer = first;
        resume.startResidual = &full.residuals[size_t(first)];
        resume.ablations.push_back({first, 0, AblationMode::Zero});
        resume.predictTopK = 3;
        RunOptions fullAblated = resume;
        fullAblated.firstLayer = 0;
        fullAblated.startResidual = nullptr;
        const AttentionCapture part = model->run(ids, {}, resume);
        const AttentionCapture whole = model->run(ids, {}, fullAblated);
        QCOMPARE(part.firstLayer, first);
        QCOMPARE(part.maps->layers(), layers - first);
        QCOMPARE(int(part.residualNorms.size()), layers - first + 1);
        // The same arithmetic; two runs of one pass already differ by float rounding (~1e-7: OpenBLAS picks
        // its kernels by the buffers' alignment).
        for (int l = first; l < layers; ++l)
            QVERIFY(layerError(*part.maps, l - first, *whole.maps, l) <= 1e-6);
        QCOMPARE(part.predictions.size(), whole.predictions.size());
        for (size_t i = 0; i < part.predictions.size(); ++i)
            for (int k = 0; k < part.predictions[i].top.size(); ++k) {
                QCOMPARE(part.predictions[i].top[k].id, whole.predictions[i].top[k].id);
                QVERIFY(std::abs(part.predictions[i].top[k].probability -
                                 whole.predictions[i].top[k].probability) <= 1e-6f);
            }
    }
}

void TestModelHooks::explicitPositions()
{
    for (const char* name : {"llama_s0", "gemma2_s0", "gpt_neox_s0", "qwen3_s0"}) {
        const QString caseName = QString::fromLatin1(name);
        const auto model = TransformerModel::open(oracleFolder(caseName));
        const std::vector<int> ids = oracleInputIds(caseName);
        const AttentionCapture plain = model->run(ids, {});
        RunOptions same;
        for (size_t t = 0; t < ids.size(); ++t)
            same.positions.push_back(int(t));
        QVERIFY(maxAbsError(*model->run(ids, {}, same).maps, *plain.maps) <= 1e-6); // float rounding only
        // RoPE scores depend on i − j only: moving every token by 5 leaves P (to float rounding).
        RunOptions shifted;
        shifted.positions = plus(same.positions, 5);
        const double error = maxAbsError(*model->run(ids, {}, shifted).maps, *plain.maps);
        qInfo("%s: positions + 5 moved P by %.3g", name, error);
        QVERIFY(error <= 1e-5);
    }
    // Learned positions are absolute: the same shift changes GPT-2's attention.
    const auto gpt2 = TransformerModel::open(oracleFolder(QStringLiteral("gpt2_s0")));
    const std::vector<int> ids = oracleInputIds(QStringLiteral("gpt2_s0"));
    RunOptions shifted;
    for (size_t t = 0; t < ids.size(); ++t)
        shifted.positions.push_back(int(t) + 5);
    QVERIFY(maxAbsError(*gpt2->run(ids, {}, shifted).maps, *gpt2->run(ids, {}).maps) > 1e-3);
}

// capture.keyValues holds keys before RoPE: rotating them at their positions gives the keys the scores used
// (capture.keys, kept for the lesson).
void TestModelHooks::keysAreKeptBeforeRope()
{
    const auto model = TransformerModel::open(oracleFolder(QStringLiteral("llama_s0")));
    const std::vector<int> ids = oracleInputIds(QStringLiteral("llama_s0"));
    RunOptions options;
    options.keepKeyValues = true;
    options.queryKeyLimit = 64;
    const AttentionCapture c = model->run(ids, {}, options);
    QCOMPARE(int(c.keyValues.size()), model->config().layers);
    QCOMPARE(c.keys.size(), c.keyValues.size());
    const double theta =
        readJsonObject(oracleFolder(QStringLiteral("llama_s0")) + QStringLiteral("/config.json"))
            .value(QLatin1String("rope_theta"))
            .toDouble();
    const int d = c.headDim, half = d / 2;
    double worst = 0, unrotated = 0;
    for (size_t l = 0; l < c.keys.size(); ++l) {
        const LayerKeyValues& kept = c.keyValues[l];
        QCOMPARE(kept.positions.size(), ids.size());
        for (int t = 0; t < kept.keys.tokens; ++t)
            for (int h = 0; h < kept.keys.heads; ++h)
                for (int p = 0; p < half; ++p) { // rotate-half pair (p, p + d/2) by t · θ^(−2p/d)
                    const double angle = kept.positions[size_t(t)] * std::pow(theta, -2.0 * p / d);
                    const double a = kept.keys.at(t, h, p), b = kept.keys.at(t, h, p + half);
                    worst = std::max(
                        worst, std::abs(a * std::cos(angle) - b * std::sin(angle) - c.keys[l].at(t, h, p)));
                    worst = std::max(worst, std::abs(b * std::cos(angle) + a * std::sin(angle) -
                                                     c.keys[l].at(t, h, p + half)));
                    unrotated = std::max(unrotated, std::abs(a - c.keys[l].at(t, h, p)));
                }
    }
    QVERIFY2(worst < 1e-4, qPrintable(QString::number(worst)));
    QVERIFY(unrotated > 1e-2); // the kept keys are not the rotated ones
}

void TestModelHooks::pastKeysAndValuesContinueTheSequence_data()
{
    addOracleCaseRows({"llama_s0", "mistral_s1", "gemma2_s0", "gemma3_s0", "gpt_neox_s0", "phi3_s1",
                       "gpt2_s0", "smollm3_s0", "gpt_oss_s0"});
}

// Decoding with a cache: the first n − 1 tokens' keys and values, then the last token alone. Its attention
// row (over all n keys) and its next-token prediction equal the full pass's.
void TestModelHooks::pastKeysAndValuesContinueTheSequence()
{
    QFETCH(QString, caseName);
    const auto model = TransformerModel::open(oracleFolder(caseName));
    const std::vector<int> ids = oracleInputIds(caseName);
    const int n = int(ids.size());
    RunOptions fullOptions;
    fullOptions.predictTopK = 5;
    const AttentionCapture full = model->run(ids, {}, fullOptions);

    RunOptions prefixOptions;
    prefixOptions.keepKeyValues = true;
    const AttentionCapture prefix =
        model->run(std::vector<int>(ids.begin(), ids.end() - 1), {}, prefixOptions);
    RunOptions stepOptions;
    stepOptions.past = &prefix.keyValues;
    stepOptions.predictTopK = 5;
    const AttentionCapture step = model->run({ids.back()}, {}, stepOptions);
    QCOMPARE(step.maps->queries(), 1);
    QCOMPARE(step.maps->keys(), n);
    double worst = 0;
    for (int l = 0; l < full.maps->layers(); ++l)
        for (int h = 0; h < full.maps->heads(); ++h) {
            const std::vector<float> row = step.maps->tile(l, h, 0, 1, 0, n);
            const std::vector<float> last = full.maps->tile(l, h, n - 1, n, 0, n);
            for (int j = 0; j < n; ++j)
                worst = std::max(worst, double(std::abs(row[size_t(j)] - last[size_t(j)])));
        }
    qInfo("%s: cached step vs full pass, last row max abs error %.3g", qPrintable(caseName), worst);
    QVERIFY(worst <= 1e-5);
    QCOMPARE(step.predictions.size(), size_t(1));
    QCOMPARE(step.predictions[0].top[0].id, full.predictions[0].top[0].id);
    QVERIFY(std::abs(step.predictions[0].top[0].probability - full.predictions[0].top[0].probability) <
            1e-5f);
}

void TestModelHooks::optionsThatDoNotFitAreRefused()
{
    const auto llama = TransformerModel::open(oracleFolder(QStringLiteral("llama_s0")));
    const std::vector<int> ids = oracleInputIds(QStringLiteral("llama_s0"));
    auto refused = [&](const TransformerModel& model, const std::vector<int>& input,
                       const RunOptions& options, const QString& phrase) {
        try {
            model.run(input, {}, options);
            return false;
        } catch (const ModelError& e) {
            return e.message().contains(phrase);
        }
    };
    RunOptions a;
    a.ablations.push_back({2, 0, AblationMode::Zero});
    QVERIFY(refused(*llama, ids, a,
                    QStringLiteral("cannot ablate layer 2 head 0: the model has 2 layers of 4 heads")));
    RunOptions b;
    b.firstLayer = 1;
    QVERIFY(refused(*llama, ids, b, QStringLiteral("starting at layer 1 needs the residual stream")));
    RunOptions c;
    c.positions = {0, 1};
    QVERIFY(refused(*llama, ids, c, QStringLiteral("2 position ids for 12 tokens")));
    const auto gpt2 = TransformerModel::open(oracleFolder(QStringLiteral("gpt2_s0")));
    RunOptions d;
    d.positions.assign(oracleInputIds(QStringLiteral("gpt2_s0")).size(), 63);
    d.positions.back() = 64;
    QVERIFY(refused(*gpt2, oracleInputIds(QStringLiteral("gpt2_s0")), d,
                    QStringLiteral("position id 64 is outside the 64 learned positions")));
    RunOptions keep;
    keep.keepKeyValues = true;
    const AttentionCapture withKeys = llama->run(ids, {}, keep);
    const auto bert = TransformerModel::open(oracleFolder(QStringLiteral("bert_s0")));
    RunOptions e;
    e.past = &withKeys.keyValues;
    QVERIFY(refused(*bert, oracleInputIds(QStringLiteral("bert_s0")), e,
                    QStringLiteral("only decoders continue from past keys and values")));
    const auto mqa = TransformerModel::open(oracleFolder(QStringLiteral("llama_s1")));
    QVERIFY(refused(*mqa, ids, e, QStringLiteral("the past keys and values do not fit this model")));
}

void TestModelHooks::layerProbabilitiesAreHandedOver_data()
{
    // Encoder, causal decoders, a sliding window with soft-capping (Gemma 2), QK-norm (Qwen3), parallel
    // residual (NeoX).
    addOracleCaseRows({"bert_s1", "gpt2_s1", "llama_s1", "gemma2_s1", "qwen3_s1", "gpt_neox_s1"});
}

// RunOptions::takeLayerProbabilities (the npy dump's stream): every layer's P arrives once, in order, as
// [H, n, n], equal to the oracle's attentions; the capture then holds none of them.
void TestModelHooks::layerProbabilitiesAreHandedOver()
{
    QFETCH(QString, caseName);
    const auto model = TransformerModel::open(oracleFolder(caseName));
    const std::vector<int> ids = oracleInputIds(caseName);
    const NpyArray expected = oracleAttentions(caseName);
    const int layers = int(expected.shape[0]), heads = int(expected.shape[1]), n = int(ids.size());
    std::vector<int> order;
    double worst = 0;
    RunOptions stream;
    stream.takeLayerProbabilities = [&](int layer, FloatBuffer probabilities) {
        order.push_back(layer);
        QCOMPARE(probabilities.size(), size_t(heads) * size_t(n) * size_t(n));
        const double* truth = expected.values.data() + size_t(layer) * probabilities.size();
        for (size_t i = 0; i < probabilities.size(); ++i)
            worst = std::max(worst, std::abs(double(probabilities[i]) - truth[i]));
    };
    const AttentionCapture capture = model->run(ids, {}, stream);
    std::vector<int> everyLayer(static_cast<size_t>(layers));
    std::iota(everyLayer.begin(), everyLayer.end(), 0);
    QCOMPARE(order, everyLayer);
    QVERIFY2(worst <= 1e-5, qPrintable(QString::number(worst)));
    QCOMPARE(capture.maps->layers(), 0);
}

QTEST_GUILESS_MAIN(TestModelHooks)
#include "tst_model_hooks.moc"
