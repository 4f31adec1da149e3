// Issue 37's first families and their traps: gpt-oss's learned sink (softmax over the scores and a sink logit
// whose column is dropped) against a hand computation in every attention path; its YaRN attention factor on
// both cos and sin; its sinks stored BF16; its MXFP4 experts refused by name; SmolLM3's no_rope_layers read
// and checked. (The whole models against their references: tst_model_families, cases smollm3_s0, gpt_oss_s0.)

#include "attention/attention.h"
#include "attention/rotaryembedding.h"
#include "core/support/modelfixtures.h"
#include "model/transformermodel.h"
#include "stats/attentionanalysis.h"
#include "stats/headstatsaccumulator.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

// Deterministic values in [-2, 2).
HeadTensor filledHeads(int tokens, int heads, int dim, int seed)
{
    HeadTensor x(tokens, heads, dim);
    for (size_t i = 0; i < x.values.size(); ++i)
        x.values[i] = float(((int(i) * 37 + seed * 101) % 97) / 24.25 - 2.0);
    return x;
}

} // namespace

class TestLearnedSinks : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sinkJoinsTheSoftmaxByHand();
    void yarnFactorMultipliesCosAndSin();
    void gptOssCaseStoresSinksInBf16();
    void gptOssRowsSumBelowOne();
    void mxfp4ExpertsAreRefusedByName();
    void gptOssHeadDimDefaultIsNamed();
    void smolLm3NoRopeLayersAreChecked();
    void learnedSinkMassByHand();
    void learnedSinkMassOfGptOss();
};

// P_ij = exp(s_ij) / (Σ_visible exp(s_ik) + exp(σ_h)), s = q·k/√d, in double by hand; attentionFull,
// attentionTiled (key blocks of 2, so the sink meets the online softmax's rescaling) and the tiles
// recomputed from its log-sum-exp give it, and O = P · V with that P.
void TestLearnedSinks::sinkJoinsTheSoftmaxByHand()
{
    const int n = 5, H = 2, KV = 1, d = 4;
    const HeadTensor q = filledHeads(n, H, d, 1), k = filledHeads(n, KV, d, 2), v = filledHeads(n, KV, d, 3);
    AttentionOptions options;
    options.causal = true;
    options.slidingWindow = 3;
    options.sinks = {1.25f, -0.5f};
    options.keyBlock = 2;
    options.threads = 1;
    const FullAttentionResult full = attentionFull(q, k, v, options);
    const TiledAttentionResult tiled = attentionTiled(q, k, v, options);
    const RotatedQueryKey rotated = rotateForAttention(q, k, options);
    for (int h = 0; h < H; ++h) {
        const std::vector<float> tile =
            probabilityTile(rotated.queries, rotated.keys, tiled.logSumExp, options, h, 0, n, 0, n);
        for (int i = 0; i < n; ++i) {
            double z = std::exp(double(options.sinks[size_t(h)]));
            std::vector<double> e(size_t(n), 0.0);
            for (int j = 0; j < n; ++j) {
                if (j > i || i - j >= 3) continue;
                double s = 0;
                for (int c = 0; c < d; ++c)
                    s += double(q.vector(i, h)[c]) * double(k.vector(j, 0)[c]);
                e[size_t(j)] = std::exp(s / 2.0);
                z += e[size_t(j)];
            }
            double rowSum = 0;
            for (int j = 0; j < n; ++j) {
                const double p = e[size_t(j)] / z;
                rowSum += p;
                QVERIFY2(std::abs(full.probability(h, i, j) - p) < 1e-6, qPrintable(QString::number(p)));
                QVERIFY(std::abs(tile[size_t(i * n + j)] - p) < 1e-6);
            }
            QVERIFY(rowSum < 1.0);
            QVERIFY(std::abs(tiled.logSumExp[size_t(h * n + i)] - std::log(z)) < 1e-6);
            for (int c = 0; c < d; ++c) {
                double o = 0;
                for (int j = 0; j < n; ++j)
                    o += e[size_t(j)] / z * double(v.vector(j, 0)[c]);
                QVERIFY(std::abs(full.output.vector(i, h)[c] - o) < 1e-6);
                QVERIFY(std::abs(tiled.output.vector(i, h)[c] - o) < 1e-6);
            }
        }
    }
    // One sink per query head, each a number.
    options.sinks = {1.0f};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, attentionFull(q, k, v, options));
    options.sinks = {1.0f, float(NAN)};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, attentionTiled(q, k, v, options));
}

// gpt-oss's YaRN (factor 32): the attention factor 0.1·ln 32 + 1 multiplies cos and sin, so it multiplies q
// and k alike and every score by its square, about 1.81, against the same frequencies without the factor.
void TestLearnedSinks::yarnFactorMultipliesCosAndSin()
{
    RopeScaling yarn;
    yarn.type = RopeScaling::Type::Yarn;
    yarn.factor = 32.0;
    yarn.originalMaxPositions = 4096;
    yarn.truncate = false;
    RopeScaling unscaled = yarn;
    unscaled.attentionFactor = 1.0;
    const RotaryEmbedding withFactor(150000.0, 16, yarn, 131072), without(150000.0, 16, unscaled, 131072);
    const float factor = withFactor.frequencies(1).attentionFactor;
    QCOMPARE(factor, float(0.1 * std::log(32.0) + 1.0));
    QCOMPARE(withFactor.frequencies(1).inverse, without.frequencies(1).inverse);

    const int n = 6;
    std::vector<int> positions(n);
    for (int t = 0; t < n; ++t)
        positions[size_t(t)] = 3 * t;
    HeadTensor q = filledHeads(n, 1, 16, 4), k = filledHeads(n, 1, 16, 5);
    HeadTensor q1 = q, k1 = k;
    withFactor.apply(q, positions, n * 3);
    withFactor.apply(k, positions, n * 3);
    without.apply(q1, positions, n * 3);
    without.apply(k1, positions, n * 3);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0, s1 = 0;
            for (int c = 0; c < 16; ++c) {
                s += double(q.vector(i, 0)[c]) * double(k.vector(j, 0)[c]);
                s1 += double(q1.vector(i, 0)[c]) * double(k1.vector(j, 0)[c]);
            }
            QVERIFY2(std::abs(s - double(factor) * factor * s1) <= 1e-5 * (1.0 + std::abs(s)),
                     qPrintable(QStringLiteral("%1 vs %2").arg(s).arg(s1)));
        }
    QVERIFY(std::abs(double(factor) * factor - 1.8133) < 1e-3);
}

// The released checkpoints store the sinks in BF16; the case does too (its other tensors F32), so the oracle
// test reads them through the BF16 conversion.
void TestLearnedSinks::gptOssCaseStoresSinksInBf16()
{
    int sinks = 0;
    for (const TensorToWrite& t :
         readTensors(oracleFolder(QStringLiteral("gpt_oss_s0")) + QStringLiteral("/model.safetensors"))) {
        const bool sink = t.name.endsWith(QLatin1String("self_attn.sinks"));
        sinks += sink;
        QCOMPARE(t.dtype, sink ? TensorDtype::BF16 : TensorDtype::F32);
    }
    QCOMPARE(sinks, 4);
}

// P as the model defines it: every row of every head sums to less than 1, the missing mass the sink's, and
// it matches the reference's row sums (which the oracle test checks cell by cell).
void TestLearnedSinks::gptOssRowsSumBelowOne()
{
    const QString caseName = QStringLiteral("gpt_oss_s0");
    const auto model = TransformerModel::open(oracleFolder(caseName));
    const AttentionCapture capture = model->run(oracleInputIds(caseName), {});
    const NpyArray expected = oracleAttentions(caseName);
    const AttentionMaps& maps = *capture.maps;
    const int n = maps.queries();
    double largestSinkMass = 0;
    for (int l = 0; l < maps.layers(); ++l)
        for (int h = 0; h < maps.heads(); ++h) {
            const std::vector<float> p = maps.tile(l, h, 0, n, 0, n);
            for (int i = 0; i < n; ++i) {
                double sum = 0, expectedSum = 0;
                for (int j = 0; j < n; ++j) {
                    sum += p[size_t(i * n + j)];
                    expectedSum += expected.values[((size_t(l) * maps.heads() + h) * n + i) * n + j];
                }
                // Below 1 wherever the sink's mass shows in float (the case's smallest is 6e-14).
                QVERIFY(sum < 1.0 || 1.0 - expectedSum < 1e-6);
                QVERIFY2(std::abs(sum - expectedSum) < 1e-5, qPrintable(QString::number(sum)));
                largestSinkMass = std::max(largestSinkMass, 1.0 - sum);
            }
        }
    QVERIFY(largestSinkMass > 0.9); // some rows give the sink almost everything
}

// MXFP4 experts (gate_up_proj_blocks/_scales, down_proj_blocks/_scales, U8) are refused in one line naming
// the file and the tensor, not misread.
void TestLearnedSinks::mxfp4ExpertsAreRefusedByName()
{
    QTemporaryDir dir;
    const QString folder = dir.path() + QStringLiteral("/model");
    copyModel(oracleFolder(QStringLiteral("gpt_oss_s0")), folder, [](std::vector<TensorToWrite>& tensors) {
        std::vector<TensorToWrite> kept;
        for (TensorToWrite& t : tensors)
            if (!t.name.contains(QLatin1String("mlp.experts.gate_up_proj"))) kept.push_back(std::move(t));
        kept.push_back({QStringLiteral("model.layers.0.mlp.experts.gate_up_proj_blocks"),
                        TensorDtype::U8,
                        {4, 48, 1, 16},
                        QByteArray(4 * 48 * 16, '\0')});
        kept.push_back({QStringLiteral("model.layers.0.mlp.experts.gate_up_proj_scales"),
                        TensorDtype::U8,
                        {4, 48, 1},
                        QByteArray(4 * 48, '\0')});
        tensors = std::move(kept);
    });
    const QString error = modelOpenError(folder);
    QVERIFY2(error.contains(QLatin1String("model.safetensors")) && error.contains(QLatin1String("MXFP4")) &&
                 error.contains(QLatin1String("gate_up_proj_blocks")) && !error.contains(QLatin1Char('\n')),
             qPrintable(error));
}

// Without head_dim, GptOssConfig takes 64, not hidden / heads (8 here): refused, not misread.
void TestLearnedSinks::gptOssHeadDimDefaultIsNamed()
{
    QTemporaryDir dir;
    const QString folder = copyOracleCase(dir, QStringLiteral("gpt_oss_s0"));
    editModelConfig(folder, QStringLiteral("head_dim"), QJsonValue());
    const QString error = modelOpenError(folder);
    QVERIFY2(error.contains(QLatin1String("config.json")) && error.contains(QLatin1String("head_dim")) &&
                 error.contains(QLatin1String("64")),
             qPrintable(error));
}

// no_rope_layers: one 0/1 flag per layer at least; anything else is named in config.json.
void TestLearnedSinks::smolLm3NoRopeLayersAreChecked()
{
    QTemporaryDir dir;
    const QString folder = copyOracleCase(dir, QStringLiteral("smollm3_s0"));
    QVERIFY(modelOpenError(folder).isEmpty());
    editModelConfig(folder, QStringLiteral("no_rope_layers"), QJsonArray{1, 1, 0});
    QString error = modelOpenError(folder);
    QVERIFY2(error.contains(QLatin1String("config.json")) && error.contains(QLatin1String("3 entries for 4")),
             qPrintable(error));
    editModelConfig(folder, QStringLiteral("no_rope_layers"), QJsonArray{1, 1, 2, 0});
    error = modelOpenError(folder);
    QVERIFY2(error.contains(QLatin1String("no_rope_layers[2]")), qPrintable(error));
    // Without the list, every no_rope_layer_interval-th layer is NoPE: the case's own pattern.
    editModelConfig(folder, QStringLiteral("no_rope_layers"), QJsonValue());
    const auto model = TransformerModel::open(folder);
    checkMatchesOracle(*model, QStringLiteral("smollm3_s0"));
}

// learned_sink_mass = mean over the rows of 1 − the row's sum: rows summing to 0.6, 0.75 and 0.6 give
// (0.4 + 0.25 + 0.4) / 3 = 0.35; rows summing to 1 give 0.
void TestLearnedSinks::learnedSinkMassByHand()
{
    TokenRoles roles;
    roles.causal = true;
    const float rows[] = {0.6f, 0.0f, 0.0f, 0.5f, 0.25f, 0.0f, 0.1f, 0.2f, 0.3f};
    HeadStatsAccumulator sinks(roles, 3, 3);
    sinks.addRows(0, rows, 3);
    const HeadStats stats = sinks.finish(0, 0, {});
    QCOMPARE(stats.rowsUsed, 3);
    QVERIFY(std::abs(stats.learnedSinkMass - 0.35) < 1e-7);
    QVERIFY(std::abs(stats.sinkMass - 0.4) < 1e-7); // the first token's mass, beside it
    const float plain[] = {1.0f, 0.0f, 0.0f, 0.5f, 0.5f, 0.0f, 0.25f, 0.25f, 0.5f};
    HeadStatsAccumulator none(roles, 3, 3);
    none.addRows(0, plain, 3);
    QCOMPARE(none.finish(0, 0, {}).learnedSinkMass, 0.0);
}

// Every head of gpt_oss_s0: the statistics' learned_sink_mass against 1 − the reference's row sums.
void TestLearnedSinks::learnedSinkMassOfGptOss()
{
    const QString caseName = QStringLiteral("gpt_oss_s0");
    const auto model = TransformerModel::open(oracleFolder(caseName));
    const AttentionCapture capture = model->run(oracleInputIds(caseName), {});
    TokenRoles roles;
    roles.causal = true;
    const std::optional<AttentionAnalysis> analysis = analyzeAttention(*capture.maps, roles);
    QVERIFY(analysis);
    const NpyArray expected = oracleAttentions(caseName);
    const int H = analysis->heads, n = capture.maps->queries();
    double largest = 0;
    for (int l = 0; l < analysis->layers; ++l)
        for (int h = 0; h < H; ++h) {
            double deficit = 0;
            for (int i = 0; i < n; ++i) {
                double sum = 0;
                for (int j = 0; j < n; ++j)
                    sum += expected.values[((size_t(l) * H + h) * n + i) * n + j];
                deficit += 1.0 - sum;
            }
            const double mass = analysis->at(l, h).learnedSinkMass;
            QVERIFY2(std::abs(mass - deficit / n) < 1e-5,
                     qPrintable(QStringLiteral("%1 vs %2").arg(mass).arg(deficit / n)));
            largest = std::max(largest, mass);
        }
    QVERIFY(largest > 0.3);
}

QTEST_GUILESS_MAIN(TestLearnedSinks)
#include "tst_learned_sinks.moc"
