// The analysis layer (core/analysis, issue 14), each against an independent truth:
//   value norms      ‖α_ij f_h(x_j)‖ against transformers in float64 (tools/oracle/make_analysis_case.py):
//                    BERT, GPT-2 (Conv1D), Llama (GQA), to 1e-5
//   head ablation    zero (transformers' head_mask; Llama: a hook before o_proj) and mean ablation: KL, the
//                    change of the top token's probability and the new top-5 against the same references;
//                    the scan's reuse of the cached stream equals a full ablated pass; the batched scan (a
//                    layer's heads as copies of one pass) equals one pass per head in every family
//   rollout, census  a hand-computed 2-layer case and the numpy reference (rollout_census_reference.py)
//   residual         the profile's median against a direct computation

#include "analysis/contributions.h"
#include "analysis/headablation.h"
#include "analysis/residualprofile.h"
#include "analysis/rollout.h"
#include "analysis/sinkcensus.h"
#include "core/support/modelfixtures.h"
#include "model/transformermodel.h"
#include "tokenizer/tokenizer.h"
#include "util/operationcancelled.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>
#include <algorithm>
#include <cmath>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

QJsonObject readJson(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
    return QJsonDocument::fromJson(file.readAll()).object();
}

std::vector<int> intsOf(const QJsonArray& array)
{
    std::vector<int> values;
    for (const QJsonValue& v : array)
        values.push_back(v.toInt());
    return values;
}

AblationMode modeOf(const QString& name)
{
    return name == QLatin1String("mean") ? AblationMode::Mean : AblationMode::Zero;
}

// A dense [layers][heads][n][n] case from rows given per layer and head.
std::shared_ptr<DenseAttentionMaps> denseMaps(int layers, int heads, int n, std::vector<float> values)
{
    return std::make_shared<DenseAttentionMaps>(layers, heads, n, n, std::move(values));
}

} // namespace

class TestAnalysis : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void valueNormsMatchTransformers_data();
    void valueNormsMatchTransformers();
    void contributionSharesSumToOne();
    void ablationMatchesTransformers_data();
    void ablationMatchesTransformers();
    void scanReusesTheStreamBelow();
    void batchedScanEqualsOnePassPerHead_data();
    void batchedScanEqualsOnePassPerHead();
    void scanShortcutsKeepEveryEffect_data();
    void scanShortcutsKeepEveryEffect();
    void batchOfHeadSetsEqualsAblatedRuns_data();
    void batchOfHeadSetsEqualsAblatedRuns();
    void scanReportsProgressAndCancels();
    void ablationNeedsSomethingToPredict();
    void headListParsing();
    void rolloutByHand();
    void censusByHand();
    void rolloutAndCensusMatchNumpy_data();
    void rolloutAndCensusMatchNumpy();
    void residualProfile();
};

void TestAnalysis::valueNormsMatchTransformers_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::newRow("bert_s0") << QStringLiteral("bert_s0");
    QTest::newRow("gpt2_s0 (Conv1D)") << QStringLiteral("gpt2_s0");
    QTest::newRow("llama_s0 (GQA 4/2)") << QStringLiteral("llama_s0");
}

void TestAnalysis::valueNormsMatchTransformers()
{
    QFETCH(QString, caseName);
    const QJsonObject reference = readJson(oracleFolder(caseName) + QStringLiteral("/analysis.json"));
    const auto model = TransformerModel::open(oracleFolder(caseName));
    const AttentionCapture capture = model->run(intsOf(reference[QStringLiteral("input_ids")].toArray()), {});
    const auto maps = contributionMaps(capture, ContributionScale::Norm);
    const QJsonArray expected = reference[QStringLiteral("value_norms")].toArray();
    QCOMPARE(expected.size(), maps->layers());
    double worst = 0, largest = 0;
    for (int l = 0; l < maps->layers(); ++l)
        for (int h = 0; h < maps->heads(); ++h) {
            const std::vector<float> m = maps->matrix(l, h);
            const QJsonArray rows = expected[l].toArray()[h].toArray();
            for (int i = 0; i < maps->queries(); ++i)
                for (int j = 0; j < maps->keys(); ++j) {
                    const double e = rows[i].toArray()[j].toDouble();
                    largest = std::max(largest, e);
                    worst = std::max(worst, std::abs(e - m[size_t(i * maps->keys() + j)]) / std::max(1.0, e));
                }
        }
    QVERIFY2(worst <= 1e-5, qPrintable(QString::number(worst)));
    QVERIFY(largest > 0.5); // the reference is not trivially small
}

void TestAnalysis::contributionSharesSumToOne()
{
    const auto model = TransformerModel::open(oracleFolder(QStringLiteral("llama_s1")));
    const AttentionCapture capture = model->run(oracleInputIds(QStringLiteral("llama_s1")), {});
    const auto shares = contributionMaps(capture, ContributionScale::Share);
    const auto norms = contributionMaps(capture, ContributionScale::Norm);
    const int n = shares->queries();
    for (int l = 0; l < shares->layers(); ++l)
        for (int h = 0; h < shares->heads(); ++h) {
            const std::vector<float> s = shares->matrix(l, h), m = norms->matrix(l, h);
            for (int i = 0; i < n; ++i) {
                double sum = 0, normSum = 0;
                for (int j = 0; j < n; ++j) {
                    sum += s[size_t(i * n + j)];
                    normSum += m[size_t(i * n + j)];
                }
                QVERIFY(std::abs(sum - 1.0) < 1e-5);
                // a tile equals the whole matrix's entries
                const std::vector<float> t = shares->tile(l, h, i, i + 1, 1, n);
                for (int j = 1; j < n; ++j)
                    QCOMPARE(t[size_t(j - 1)], s[size_t(i * n + j)]);
                QVERIFY(std::abs(s[size_t(i * n)] - m[size_t(i * n)] / normSum) < 1e-6);
            }
        }
}

void TestAnalysis::ablationMatchesTransformers_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::newRow("bert_s0 (two [MASK])") << QStringLiteral("bert_s0");
    QTest::newRow("gpt2_s0") << QStringLiteral("gpt2_s0");
    QTest::newRow("llama_s0 (GQA)") << QStringLiteral("llama_s0");
}

void TestAnalysis::ablationMatchesTransformers()
{
    QFETCH(QString, caseName);
    const QJsonObject reference = readJson(oracleFolder(caseName) + QStringLiteral("/analysis.json"));
    const auto model = TransformerModel::open(oracleFolder(caseName));
    const AblationStudy study(*model, intsOf(reference[QStringLiteral("input_ids")].toArray()), {});
    QCOMPARE(study.positions(), intsOf(reference[QStringLiteral("positions")].toArray()));
    double worst = 0;
    for (const QJsonValue& value : reference[QStringLiteral("ablations")].toArray()) {
        const QJsonObject expected = value.toObject();
        std::vector<HeadAblation> heads;
        for (const QJsonValue& pair : expected[QStringLiteral("heads")].toArray())
            heads.push_back(
                {pair[0].toInt(), pair[1].toInt(), modeOf(expected[QStringLiteral("mode")].toString())});
        const AblationEffect effect = study.ablate(heads);
        const QString what =
            expected[QStringLiteral("mode")].toString() + QLatin1Char(' ') +
            QString::fromUtf8(
                QJsonDocument(expected[QStringLiteral("heads")].toArray()).toJson(QJsonDocument::Compact));
        const double kl = expected[QStringLiteral("kl")].toDouble();
        QVERIFY2(kl > 1e-4, qPrintable(what)); // every reference case changes the prediction
        worst = std::max(worst, std::abs(effect.kl - kl));
        QVERIFY2(std::abs(effect.kl - kl) <= 1e-5,
                 qPrintable(what + QStringLiteral(": kl %1 vs %2").arg(effect.kl).arg(kl)));
        const QJsonArray deltas = expected[QStringLiteral("top_prob_delta")].toArray();
        const QJsonArray tops = expected[QStringLiteral("top")].toArray();
        QCOMPARE(int(effect.topProbDelta.size()), deltas.size());
        QCOMPARE(int(effect.top.size()), tops.size());
        for (int r = 0; r < deltas.size(); ++r) {
            QVERIFY2(std::abs(effect.topProbDelta[size_t(r)] - deltas[r].toDouble()) <= 1e-5,
                     qPrintable(what));
            const QJsonArray top = tops[r].toArray();
            QCOMPARE(effect.top[size_t(r)].top.size(), top.size());
            for (int k = 0; k < top.size(); ++k) {
                QCOMPARE(effect.top[size_t(r)].top[k].id, top[k][0].toInt());
                QVERIFY(std::abs(effect.top[size_t(r)].top[k].probability - top[k][1].toDouble()) <= 1e-5);
            }
        }
    }
    qInfo("%s: largest |KL - reference| %.2g", qPrintable(caseName), worst);
}

// A scan starts each head's pass at its layer from the baseline's stream; a pass from the embeddings with
// the same ablation gives the same effect.
void TestAnalysis::scanReusesTheStreamBelow()
{
    const QString caseName = QStringLiteral("llama_s0");
    const auto model = TransformerModel::open(oracleFolder(caseName));
    const std::vector<int> ids = oracleInputIds(caseName);
    const AblationStudy study(*model, ids, {});
    const AblationScan scan = study.scan(AblationMode::Mean);
    QCOMPARE(int(scan.effects.size()), model->config().layers * model->config().heads);
    RunOptions plain;
    plain.keepDistributions = true;
    const AttentionCapture original = model->run(ids, {}, plain);
    for (int l = 0; l < scan.layers; ++l)
        for (int h = 0; h < scan.heads; ++h) {
            RunOptions ablated = plain;
            ablated.ablations = {{l, h, AblationMode::Mean}};
            const AttentionCapture full = model->run(ids, {}, ablated);
            const double kl = klDivergence(original.distributions[0], full.distributions[0]);
            QVERIFY2(
                std::abs(scan.at(l, h).kl - kl) <= 1e-6 * std::max(1.0, kl),
                qPrintable(QStringLiteral("%1.%2: %3 vs %4").arg(l).arg(h).arg(scan.at(l, h).kl).arg(kl)));
        }
}

// The batched scan runs a layer's heads as copies of one pass: the attention output of the ablated layer
// reused from the baseline, the copies' rows through one GEMM per projection, the last layer for the scored
// rows only. Each head's effect must be what a pass of its own gives: the same KL, top-token change and new
// top-1, to float rounding (the GEMMs see other row counts). Every family's block runs through it: post-LN
// (BERT, two [MASK] rows), Conv1D (GPT-2), GQA + RoPE (Llama), parallel residual (GPT-NeoX, Phi), fused
// projections (Phi-3), soft caps and windows (Gemma 2), QK-norm (Gemma 3, Qwen3), sliding window (Mistral),
// NoPE layers (SmolLM3), learned sinks and experts routed per row (gpt-oss).
void TestAnalysis::batchedScanEqualsOnePassPerHead_data()
{
    addOracleCaseRows({"bert_s0", "gpt2_s0", "llama_s0", "gpt_neox_s0", "phi_s0", "phi3_s0", "gemma2_s0",
                       "gemma3_s0", "qwen3_s0", "mistral_s1", "smollm3_s0", "gpt_oss_s0"});
}

void TestAnalysis::batchedScanEqualsOnePassPerHead()
{
    QFETCH(QString, caseName);
    const auto model = TransformerModel::open(oracleFolder(caseName));
    const QString analysis = oracleFolder(caseName) + QStringLiteral("/analysis.json");
    const std::vector<int> ids = QFile::exists(analysis)
                                     ? intsOf(readJson(analysis)[QStringLiteral("input_ids")].toArray())
                                     : oracleInputIds(caseName);
    const AblationStudy study(*model, ids, {});
    const auto closeKl = [](double a, double b) { return std::abs(a - b) <= 1e-7 + 1e-5 * std::abs(b); };
    for (AblationMode mode : {AblationMode::Zero, AblationMode::Mean}) {
        const AblationScan batched = study.scan(mode);
        const AblationScan reference = study.scan(mode, {}, ScanMethod::OnePassPerHead);
        QCOMPARE(int(batched.effects.size()), model->config().layers * model->config().heads);
        QCOMPARE(batched.effects.size(), reference.effects.size());
        double largest = 0;
        for (int l = 0; l < batched.layers; ++l)
            for (int h = 0; h < batched.heads; ++h) {
                const AblationEffect& b = batched.at(l, h);
                const AblationEffect& r = reference.at(l, h);
                const QString what =
                    QStringLiteral("%1 %2.%3: kl %4 vs %5")
                        .arg(mode == AblationMode::Zero ? QStringLiteral("zero") : QStringLiteral("mean"))
                        .arg(l)
                        .arg(h)
                        .arg(b.kl, 0, 'g', 17)
                        .arg(r.kl, 0, 'g', 17);
                QCOMPARE(b.heads.size(), size_t(1));
                QCOMPARE(b.heads.front().layer, l);
                QCOMPARE(b.heads.front().head, h);
                QVERIFY2(closeKl(b.kl, r.kl), qPrintable(what));
                largest = std::max(largest, r.kl);
                QCOMPARE(b.topProbDelta.size(), r.topProbDelta.size());
                QCOMPARE(b.top.size(), r.top.size());
                for (size_t p = 0; p < r.top.size(); ++p) {
                    QVERIFY2(std::abs(b.topProbDelta[p] - r.topProbDelta[p]) < 1e-6, qPrintable(what));
                    QCOMPARE(b.top[p].position, r.top[p].position);
                    QCOMPARE(b.top[p].top.front().id, r.top[p].top.front().id);
                    QVERIFY(std::abs(b.top[p].top.front().probability - r.top[p].top.front().probability) <
                            1e-6);
                }
            }
        QVERIFY2(largest > 1e-6, qPrintable(caseName)); // some head changes the prediction measurably
    }
}

// The batched scan's shortcuts: the last layer projects queries (and computes attention, W_O and MLP) for the
// scored rows only, the final norm and the LM head see only those rows, and the LM head scores several
// batches' copies in one product, each effect read from the logits. Each must leave every effect as a pass of
// its own gives it: KL, top-token change and the whole new top-k, for [MASK]s at several positions (first,
// adjacent, last, every token), decoders (the last row under a causal mask, a window shorter than the input,
// RoPE, GQA and MQA, query biases), with the LM head over all copies at once or over groups of batches.
void TestAnalysis::scanShortcutsKeepEveryEffect_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QVector<int>>("maskPositions"); // encoders: the [MASK]s placed; -1 = every token
    QTest::newRow("bert_s0, [MASK] first, adjacent, last")
        << QStringLiteral("bert_s0") << QVector<int>{0, 3, 4, 7, 1000};
    QTest::newRow("bert_s0, every token [MASK]") << QStringLiteral("bert_s0") << QVector<int>{-1};
    // The built-in encoder: 6 layers of 8 heads, so the LM head's products can group several batches.
    QTest::newRow("built-in encoder, [MASK] at 3 places")
        << QStringLiteral("builtin") << QVector<int>{1, 5, 1000};
    QTest::newRow("llama_s0 (GQA, RoPE)") << QStringLiteral("llama_s0") << QVector<int>{};
    QTest::newRow("gemma_s0 (MQA)") << QStringLiteral("gemma_s0") << QVector<int>{};
    QTest::newRow("qwen2_s0 (query bias)") << QStringLiteral("qwen2_s0") << QVector<int>{};
    QTest::newRow("mistral_s1 (window 3 < 12 tokens)") << QStringLiteral("mistral_s1") << QVector<int>{};
    QTest::newRow("gemma2_s0 (soft caps, window)") << QStringLiteral("gemma2_s0") << QVector<int>{};
    QTest::newRow("phi3_s0 (fused QKV: every row's queries)") << QStringLiteral("phi3_s0") << QVector<int>{};
}

void TestAnalysis::scanShortcutsKeepEveryEffect()
{
    QFETCH(QString, caseName);
    QFETCH(QVector<int>, maskPositions);
    const bool builtin = caseName == QLatin1String("builtin");
    const auto model = TransformerModel::open(
        builtin ? QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-bert-en-tr")
                : oracleFolder(caseName));
    const QString analysis = oracleFolder(caseName) + QStringLiteral("/analysis.json");
    std::vector<int> ids;
    if (builtin) {
        QVERIFY(model->tokenizer());
        ids = model->tokenizer()
                  ->encode(QStringLiteral("The teacher read the story to the children before lunch."))
                  .ids;
    } else {
        ids = QFile::exists(analysis) ? intsOf(readJson(analysis)[QStringLiteral("input_ids")].toArray())
                                      : oracleInputIds(caseName);
    }
    const int n = int(ids.size());
    if (!maskPositions.isEmpty()) {
        QVERIFY(model->maskTokenId() >= 0);
        QVERIFY(n >= 8);
        for (int position : maskPositions)
            if (position < 0)
                std::fill(ids.begin(), ids.end(), model->maskTokenId());
            else
                ids[size_t(std::min(position, n - 1))] = model->maskTokenId();
    }
    AblationStudyOptions options;
    options.topK = 5;
    const int scored = int(AblationStudy(*model, ids, {}, options).positions().size());
    // Every [MASK] is scored (the input's own and those placed here), or the last token of a decoder.
    const int masks = int(std::count(ids.begin(), ids.end(), model->maskTokenId()));
    QCOMPARE(scored, maskPositions.isEmpty() ? 1 : masks);
    QVERIFY(maskPositions.isEmpty() || scored >= 3);
    // The default holds every copy's logits at once here; one layer's copies and one more: each batch
    // scored alone; two layers' and one more: two batches per product (with more than two layers).
    const size_t copyLogits = size_t(scored) * size_t(model->config().vocabSize),
                 heads = model->config().heads;
    for (size_t held : {options.scanLogitsHeld, (heads + 1) * copyLogits, (2 * heads + 1) * copyLogits}) {
        options.scanLogitsHeld = held;
        const AblationStudy study(*model, ids, {}, options);
        for (AblationMode mode : {AblationMode::Zero, AblationMode::Mean}) {
            const AblationScan batched = study.scan(mode);
            const AblationScan reference = study.scan(mode, {}, ScanMethod::OnePassPerHead);
            QCOMPARE(batched.effects.size(), reference.effects.size());
            QCOMPARE(int(batched.effects.size()), model->config().layers * model->config().heads);
            double largest = 0;
            for (size_t e = 0; e < batched.effects.size(); ++e) {
                const AblationEffect& b = batched.effects[e];
                const AblationEffect& r = reference.effects[e];
                const QString what =
                    QStringLiteral("%1 %2.%3: kl %4 vs %5")
                        .arg(mode == AblationMode::Zero ? QStringLiteral("zero") : QStringLiteral("mean"))
                        .arg(r.heads.front().layer)
                        .arg(r.heads.front().head)
                        .arg(b.kl, 0, 'g', 17)
                        .arg(r.kl, 0, 'g', 17);
                QCOMPARE(b.heads.size(), size_t(1));
                QCOMPARE(b.heads.front().layer, r.heads.front().layer);
                QCOMPARE(b.heads.front().head, r.heads.front().head);
                QVERIFY2(std::abs(b.kl - r.kl) <= 1e-7 + 1e-5 * r.kl, qPrintable(what));
                largest = std::max(largest, r.kl);
                QCOMPARE(int(b.topProbDelta.size()), scored);
                QCOMPARE(int(b.top.size()), scored);
                QCOMPARE(int(r.top.size()), scored);
                for (int p = 0; p < scored; ++p) {
                    QVERIFY2(std::abs(b.topProbDelta[size_t(p)] - r.topProbDelta[size_t(p)]) < 1e-6,
                             qPrintable(what));
                    QCOMPARE(b.top[size_t(p)].position, r.top[size_t(p)].position);
                    QCOMPARE(b.top[size_t(p)].top.size(), 5);
                    QCOMPARE(r.top[size_t(p)].top.size(), 5);
                    for (int t = 0; t < 5; ++t) {
                        const PredictedToken& bt = b.top[size_t(p)].top[t];
                        const PredictedToken& rt = r.top[size_t(p)].top[t];
                        QVERIFY2(std::abs(bt.probability - rt.probability) < 1e-6, qPrintable(what));
                        // The same ids, unless two entries' probabilities tie to float rounding.
                        if (bt.id != rt.id)
                            QVERIFY2(
                                t > 0 && std::abs(bt.probability - rt.probability) < 1e-7,
                                qPrintable(
                                    what +
                                    QStringLiteral(" top %1: id %2 vs %3").arg(t).arg(bt.id).arg(rt.id)));
                        else
                            QCOMPARE(bt.text, rt.text);
                    }
                }
            }
            QVERIFY2(largest > 1e-6, qPrintable(caseName));
        }
    }
}

void TestAnalysis::batchOfHeadSetsEqualsAblatedRuns_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::newRow("bert_s0 (W_O [out, in])") << QStringLiteral("bert_s0");
    QTest::newRow("gpt2_s0 (Conv1D W_O [in, out])") << QStringLiteral("gpt2_s0");
    QTest::newRow("llama_s0 (GQA)") << QStringLiteral("llama_s0");
    // 16-bit weights: the other products read them as stored (the own AVX-512 product), W_O's head slices
    // need fp32 values; no KeepConverted scope here, as for a model too large for the scan's budget.
    QTest::newRow("llama_s1 (16-bit weights)") << QStringLiteral("llama_s1");
}

// A batch's copies may ablate several heads (and name one twice): each copy's distribution equals a run()
// with those heads ablated, in the batch's first layer (W_O as the baseline's product plus each head's
// change) as in the layers above.
void TestAnalysis::batchOfHeadSetsEqualsAblatedRuns()
{
    QFETCH(QString, caseName);
    const auto model = TransformerModel::open(oracleFolder(caseName));
    const QString analysis = oracleFolder(caseName) + QStringLiteral("/analysis.json"); // with a [MASK]
    const std::vector<int> ids = QFile::exists(analysis)
                                     ? intsOf(readJson(analysis)[QStringLiteral("input_ids")].toArray())
                                     : oracleInputIds(caseName);
    RunOptions keep;
    keep.keepResiduals = true;
    keep.keepHeadOutputs = true;
    keep.keepDistributions = true;
    const AttentionCapture baseline = model->run(ids, {}, keep);
    QVERIFY(!baseline.scoredPositions.empty());
    const int layers = model->config().layers;
    QVERIFY(model->config().heads >= 3);
    for (int l : {0, layers / 2, layers - 1})
        for (AblationMode mode : {AblationMode::Zero, AblationMode::Mean}) {
            AblationBatch batch;
            batch.copies = {{{l, 0, mode}, {l, 2, mode}}, {{l, 1, mode}}, {{l, 1, mode}, {l, 1, mode}}};
            batch.headOutputs = &baseline.headOutputs[size_t(l)];
            batch.outputRows = baseline.scoredPositions;
            RunOptions run;
            run.firstLayer = l;
            if (l > 0) run.startResidual = &baseline.residuals[size_t(l)];
            const auto copies = model->ablatedPredictions(ids, {}, batch, run, 3);
            QCOMPARE(copies.size(), batch.copies.size());
            for (size_t c = 0; c < copies.size(); ++c) {
                RunOptions single;
                single.keepDistributions = true;
                single.ablations = batch.copies[c];
                const AttentionCapture reference = model->run(ids, {}, single);
                QCOMPARE(copies[c].distributions.size(), reference.distributions.size());
                double worst = 0, change = 0;
                for (size_t r = 0; r < reference.distributions.size(); ++r)
                    for (size_t i = 0; i < reference.distributions[r].size(); ++i) {
                        const double q = reference.distributions[r][i];
                        worst = std::max(worst, std::abs(copies[c].distributions[r][i] - q));
                        change = std::max(change, std::abs(q - baseline.distributions[r][i]));
                        QVERIFY(std::abs(copies[c].logDistributions[r][i] - std::log(q)) <= 1e-5);
                    }
                QVERIFY2(worst <= 1e-6,
                         qPrintable(QStringLiteral("layer %1 copy %2: %3").arg(l).arg(c).arg(worst)));
                QVERIFY(change > 1e-7); // the ablation changes the distribution measurably
            }
        }
}

void TestAnalysis::scanReportsProgressAndCancels()
{
    const auto model = TransformerModel::open(oracleFolder(QStringLiteral("gpt2_s0")));
    QCOMPARE(model->config().layers, 2);
    std::atomic<bool> cancel{false};
    AblationStudyOptions options;
    options.cancel = &cancel;
    const AblationStudy study(*model, oracleInputIds(QStringLiteral("gpt2_s0")), {}, options);
    // One pass per head: progress after each head; batched: after each layer's heads.
    std::vector<int> seen;
    const AblationScan scan = study.scan(
        AblationMode::Zero,
        [&](int done, int total) {
            QCOMPARE(total, 8);
            seen.push_back(done);
        },
        ScanMethod::OnePassPerHead);
    QCOMPARE(seen, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
    QCOMPARE(int(scan.effects.size()), 8);
    seen.clear();
    const AblationScan batched = study.scan(AblationMode::Zero, [&](int done, int total) {
        QCOMPARE(total, 8);
        seen.push_back(done);
    });
    QCOMPARE(seen, (std::vector<int>{4, 8}));
    QCOMPARE(int(batched.effects.size()), 8);
    int calls = 0;
    QVERIFY_THROWS_EXCEPTION(OperationCancelled, study.scan(
                                                     AblationMode::Zero,
                                                     [&](int, int) {
                                                         if (++calls == 3) cancel = true;
                                                     },
                                                     ScanMethod::OnePassPerHead));
    QCOMPARE(calls, 3);
    cancel = false;
    calls = 0;
    QVERIFY_THROWS_EXCEPTION(OperationCancelled, study.scan(AblationMode::Zero, [&](int, int) {
        if (++calls == 1) cancel = true;
    }));
    QCOMPARE(calls, 1);
}

void TestAnalysis::ablationNeedsSomethingToPredict()
{
    // bert_s0's own input has no [MASK]: the study says so instead of scoring nothing.
    const auto model = TransformerModel::open(oracleFolder(QStringLiteral("bert_s0")));
    try {
        AblationStudy study(*model, oracleInputIds(QStringLiteral("bert_s0")), {});
        QFAIL("no error");
    } catch (const ModelError& e) {
        QVERIFY2(e.message().contains(QStringLiteral("no [MASK]")), qPrintable(e.message()));
    }
}

void TestAnalysis::headListParsing()
{
    std::vector<HeadAblation> heads;
    QString error;
    QVERIFY(parseHeadList(QStringLiteral("3.2, 5.7"), 6, 8, AblationMode::Mean, &heads, &error));
    QCOMPARE(int(heads.size()), 2);
    QCOMPARE(heads[1].layer, 5);
    QCOMPARE(heads[1].head, 7);
    QVERIFY(heads[1].mode == AblationMode::Mean);
    QVERIFY(parseHeadList(QStringLiteral("1"), 6, 8, AblationMode::Zero, &heads, &error));
    QCOMPARE(int(heads.size()), 8); // a whole layer
    for (const char* bad : {"6.0", "1.8", "-1.0", "a.b", "1.2.3", "", "1,,2"}) {
        QVERIFY2(!parseHeadList(QString::fromLatin1(bad), 6, 8, AblationMode::Zero, &heads, &error), bad);
        QVERIFY(!error.isEmpty());
    }
}

// Two layers, two heads, three tokens. Layer 0 heads: identity and "all on token 0"; mean = rows
// [1,0,0], [.5,.5,0], [.5,0,.5]; Â_0 = 0.5·mean + 0.5·I = [1,0,0], [.25,.75,0], [.25,0,.75].
// Layer 1 heads: both "previous token" (row 0 on itself): Â_1 = [1,0,0], [.5,.5,0], [0,.5,.5].
// R_1 = Â_1·Â_0 = [1,0,0], [.625,.375,0], [.25,.375,.375].
void TestAnalysis::rolloutByHand()
{
    // clang-format off
    const auto maps = denseMaps(2, 2, 3, {
        1,0,0, 0,1,0, 0,0,1,    1,0,0, 1,0,0, 1,0,0,
        1,0,0, 1,0,0, 0,1,0,    1,0,0, 1,0,0, 0,1,0});
    // clang-format on
    const std::vector<std::vector<double>> r = attentionRollout(*maps);
    QCOMPARE(int(r.size()), 2);
    const std::vector<double> first{1, 0, 0, .25, .75, 0, .25, 0, .75};
    const std::vector<double> last{1, 0, 0, .625, .375, 0, .25, .375, .375};
    for (size_t i = 0; i < 9; ++i) {
        QVERIFY(std::abs(r[0][i] - first[i]) < 1e-15);
        QVERIFY(std::abs(r[1][i] - last[i]) < 1e-15);
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             attentionRollout(DenseAttentionMaps(1, 1, 2, 3, std::vector<float>(6, 0.5f))));
}

// Causal, 3 tokens, 1 layer, 2 heads. Head 0 rows [1], [.9,.1], [.8,.1,.1]: α = (1+.9+.8)/3 = .9, (.1+.1)/2
// = .1, .1. Head 1 rows [1], [.2,.8], [.2,.4,.4]: α = .4667, .6, .4. ε = .3: token 0 sinks in both heads (1),
// token 1 in head 1 (.5), token 2 in head 1 (.5); ε = .5: 0.5, 0.5, 0.
void TestAnalysis::censusByHand()
{
    // clang-format off
    const auto maps = denseMaps(1, 2, 3, {
        1,0,0, .9f,.1f,0, .8f,.1f,.1f,
        1,0,0, .2f,.8f,0, .2f,.4f,.4f});
    // clang-format on
    const SinkCensus c = sinkCensus(*maps);
    QCOMPARE(c.epsilon, 0.3);
    QVERIFY(std::abs(c.received(0, 0, 0) - 0.9) < 1e-7);
    QVERIFY(std::abs(c.received(0, 0, 1) - 0.1) < 1e-7);
    QVERIFY(std::abs(c.received(0, 1, 0) - 1.4 / 3) < 1e-7);
    QVERIFY(std::abs(c.received(0, 1, 1) - 0.6) < 1e-7);
    QCOMPARE(c.sinkScore, (std::vector<double>{1.0, 0.5, 0.5}));
    QCOMPARE(sinkCensus(*maps, 0.5).sinkScore, (std::vector<double>{0.5, 0.5, 0.0}));
}

void TestAnalysis::rolloutAndCensusMatchNumpy_data()
{
    addOracleCaseRows({"gpt2_s0", "bert_s0", "llama_s0"});
}

// The numpy reference runs on transformers' float64 P (attentions.npy); so does the C++ here, so the two
// implementations are compared on the same input (1e-12); the runtime's own P gives the same to 1e-5.
void TestAnalysis::rolloutAndCensusMatchNumpy()
{
    QFETCH(QString, caseName);
    const QJsonObject reference = readJson(oracleFolder(caseName) + QStringLiteral("/rollout.json"));
    const NpyArray p = oracleAttentions(caseName);
    const int layers = int(p.shape[0]), heads = int(p.shape[1]), n = int(p.shape[2]);
    const DenseAttentionMaps upstream(layers, heads, n, n, p.toFloat());
    const QJsonArray rollout = reference[QStringLiteral("rollout")].toArray();
    const QJsonArray sink = reference[QStringLiteral("sink_score")].toArray();
    const auto model = TransformerModel::open(oracleFolder(caseName));
    const AttentionCapture capture = model->run(oracleInputIds(caseName), {});
    for (const AttentionMaps* maps : {static_cast<const AttentionMaps*>(&upstream), capture.maps.get()}) {
        const double tolerance = maps == &upstream ? 1e-6 : 1e-5; // P as float32
        const std::vector<std::vector<double>> r = attentionRollout(*maps);
        for (int l = 0; l < layers; ++l)
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j)
                    QVERIFY(std::abs(r[size_t(l)][size_t(i * n + j)] - rollout[l][i][j].toDouble()) <=
                            tolerance);
        const SinkCensus census = sinkCensus(*maps);
        const QJsonArray alpha = reference[QStringLiteral("alpha")].toArray();
        for (int l = 0; l < layers; ++l)
            for (int h = 0; h < heads; ++h)
                for (int k = 0; k < n; ++k)
                    QVERIFY(std::abs(census.received(l, h, k) - alpha[l][h][k].toDouble()) <= tolerance);
        for (int k = 0; k < n; ++k)
            QCOMPARE(census.sinkScore[size_t(k)], sink[k].toDouble());
    }
}

void TestAnalysis::residualProfile()
{
    const auto model = TransformerModel::open(oracleFolder(QStringLiteral("llama_s0")));
    RunOptions options;
    options.keepResiduals = true;
    const AttentionCapture capture = model->run(oracleInputIds(QStringLiteral("llama_s0")), {}, options);
    const ResidualProfile profile = attnscope::residualProfile(capture);
    QCOMPARE(profile.boundaries, model->config().layers + 1);
    QCOMPARE(profile.tokens, capture.tokens());
    QCOMPARE(int(profile.medianAbs.size()), profile.boundaries);
    const int hidden = model->config().hidden;
    for (int b = 0; b < profile.boundaries; ++b) {
        std::vector<float> magnitudes;
        for (float x : capture.residuals[size_t(b)])
            magnitudes.push_back(std::abs(x));
        std::sort(magnitudes.begin(), magnitudes.end());
        QCOMPARE(profile.medianAbs[size_t(b)], magnitudes[magnitudes.size() / 2]);
        for (int t = 0; t < profile.tokens; ++t) {
            double sum = 0, largest = 0;
            for (int c = 0; c < hidden; ++c) {
                const double x = capture.residuals[size_t(b)][size_t(t * hidden + c)];
                sum += x * x;
                largest = std::max(largest, std::abs(x));
            }
            QVERIFY(std::abs(profile.norm(b, t) - std::sqrt(sum)) <= 1e-5 * std::sqrt(sum));
            QCOMPARE(double(profile.max(b, t)), largest);
        }
    }
}

QTEST_GUILESS_MAIN(TestAnalysis)
#include "tst_analysis.moc"
