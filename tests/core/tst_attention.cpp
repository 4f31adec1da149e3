// The CPU attention core against hand computation and the properties of the math.

#include "attention/attention.h"
#include "attention/tiledattentionmaps.h"
#include "attention/workedexample.h"
#include "support/testdata.h"

#include <QtTest>
#include <cmath>
#include <numeric>
#include <random>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

// Largest |a − b| / max(1, |b|): absolute for values up to 1 (probabilities), relative beyond
// (outputs, whose float32 rounding grows with their magnitude).
double maxScaledDifference(const std::vector<float>& a, const std::vector<float>& b)
{
    double worst = 0;
    for (size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, double(std::abs(a[i] - b[i])) / std::max(1.0, double(std::abs(b[i]))));
    return worst;
}

std::vector<float> asVector(const FloatBuffer& buffer)
{
    return std::vector<float>(buffer.begin(), buffer.end());
}

} // namespace

class TestAttention : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void workedExample();
    void workedExampleNoScaleAndCausal();
    void probabilityRowsSumToOneAndCausalIsZero_data();
    void probabilityRowsSumToOneAndCausalIsZero();
    void tiledEqualsFull_data();
    void tiledEqualsFull();
    void probabilityTileMatchesFull();
    void headMatricesOnThreadsMatchFull();
    void keyPaddingMasksKeys();
    void queryOffsetShiftsCausalMask();
    void softCapMatchesHandComputation();
    void slidingWindowMasksDistantKeys_data();
    void slidingWindowMasksDistantKeys();
    void ropePositionZeroIsIdentity();
    void ropeScoreDependsOnlyOnOffset_data();
    void ropeScoreDependsOnlyOnOffset();
    void partialRotaryLeavesTailUntouched();
    void ropePairingsDiffer();
    void permutationEquivariance();
    void scalingPreventsCollapse();
    void badShapesThrow();
};

void TestAttention::workedExample()
{
    const WorkedExample ex;
    const FullAttentionResult r = attentionFull(ex.q(), ex.k(), ex.v(), {});
    // Raw scores for "kedi" by hand: q·k = [3+3, 1+1, 3+1] = [6, 2, 4]; scaled by 1/√4 -> [3, 1, 2].
    // softmax([3,1,2]) = e^{3,1,2} / (e^3 + e + e^2).
    const double z = std::exp(3.0) + std::exp(1.0) + std::exp(2.0);
    const double expected[3] = {std::exp(3.0) / z, std::exp(1.0) / z, std::exp(2.0) / z};
    for (int j = 0; j < 3; ++j)
        QVERIFY(std::abs(r.probability(0, 0, j) - expected[j]) < 1e-6);
    QCOMPARE(QString::number(r.probability(0, 0, 0), 'f', 3), QStringLiteral("0.665"));
    QCOMPARE(QString::number(r.probability(0, 0, 1), 'f', 3), QStringLiteral("0.090"));
    QCOMPARE(QString::number(r.probability(0, 0, 2), 'f', 3), QStringLiteral("0.245"));
    const char* outputs[4] = {"1.575", "0.425", "1.155", "0.579"};
    for (int c = 0; c < 4; ++c)
        QCOMPARE(QString::number(r.output.at(0, 0, c), 'f', 3), QLatin1String(outputs[c]));
    // "oturdu" (row 2): scores [6, 3, 5]/2 -> more than half of its attention goes to "kedi".
    QCOMPARE(QString::number(r.probability(0, 2, 0), 'f', 3), QStringLiteral("0.547"));
}

void TestAttention::workedExampleNoScaleAndCausal()
{
    const WorkedExample ex;
    AttentionOptions noScale;
    noScale.scale = 1.0f;
    const FullAttentionResult r = attentionFull(ex.q(), ex.k(), ex.v(), noScale);
    const double z = std::exp(6.0) + std::exp(2.0) + std::exp(4.0);
    QVERIFY(std::abs(r.probability(0, 0, 0) - std::exp(6.0) / z) < 1e-6);

    AttentionOptions causal;
    causal.causal = true;
    const FullAttentionResult c = attentionFull(ex.q(), ex.k(), ex.v(), causal);
    QCOMPARE(c.probability(0, 0, 0), 1.0f);
    QCOMPARE(c.probability(0, 0, 1), 0.0f);
    // "mindere" sees kedi and itself: scores [1+5, 1+5... ] = q1·k0 = 2, q1·k1 = 6 -> /2 -> [1, 3].
    QVERIFY(std::abs(c.probability(0, 1, 0) - 1.0 / (1.0 + std::exp(2.0))) < 1e-6);
}

void TestAttention::probabilityRowsSumToOneAndCausalIsZero_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<bool>("causal");
    for (int n : {1, 3, 17, 130})
        for (bool causal : {false, true})
            QTest::addRow("n=%d causal=%d", n, int(causal)) << n << causal;
}

void TestAttention::probabilityRowsSumToOneAndCausalIsZero()
{
    QFETCH(int, n);
    QFETCH(bool, causal);
    std::mt19937 rng(7);
    const HeadTensor q = randomHeadTensor(n, 4, 16, rng, 2.0f), k = randomHeadTensor(n, 2, 16, rng, 2.0f),
                     v = randomHeadTensor(n, 2, 16, rng);
    AttentionOptions options;
    options.causal = causal;
    const FullAttentionResult r = attentionFull(q, k, v, options);
    for (int h = 0; h < 4; ++h)
        for (int i = 0; i < n; ++i) {
            const float* row = r.probabilityRow(h, i);
            QVERIFY(std::abs(std::accumulate(row, row + n, 0.0) - 1.0) < 1e-6);
            if (causal)
                for (int j = i + 1; j < n; ++j)
                    QCOMPARE(row[j], 0.0f); // exactly zero, not merely small
        }
}

void TestAttention::tiledEqualsFull_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<int>("kvHeads");
    QTest::addColumn<bool>("rope");
    for (int n : {1, 7, 64, 65, 1000})
        for (bool causal : {false, true})
            for (int kvHeads : {1, 4}) // 4 query heads: GQA 4:1 and MHA 1:1
                for (bool rope : {false, true})
                    QTest::addRow("n=%d causal=%d kv=%d rope=%d", n, int(causal), kvHeads, int(rope))
                        << n << causal << kvHeads << rope;
}

void TestAttention::tiledEqualsFull()
{
    QFETCH(int, n);
    QFETCH(bool, causal);
    QFETCH(int, kvHeads);
    QFETCH(bool, rope);
    std::mt19937 rng(uint32_t(n * 31 + kvHeads));
    const int dim = 32;
    // Unit-variance Q, K, V, as after a LayerNorm. Both paths compute in float32; with sharper inputs
    // (std 1.5) the two roundings drift apart by about 2e-6, which is float32's own noise at that scale.
    const HeadTensor q = randomHeadTensor(n, 4, dim, rng), k = randomHeadTensor(n, kvHeads, dim, rng),
                     v = randomHeadTensor(n, kvHeads, dim, rng);
    AttentionOptions options;
    options.causal = causal;
    options.rope.enabled = rope;
    options.rope.theta = 10000.0;
    options.queryBlock = 16; // small blocks so n=65 and n=1000 cross several block edges
    options.keyBlock = 48;
    const FullAttentionResult full = attentionFull(q, k, v, options);
    const TiledAttentionResult tiled = attentionTiled(q, k, v, options);
    QVERIFY2(maxScaledDifference(tiled.output.values, full.output.values) < 1e-6,
             qPrintable(QString::number(maxScaledDifference(tiled.output.values, full.output.values))));

    // Every P recomputed from the logsumexp equals the materialised one.
    const RotatedQueryKey rotated = rotateForAttention(q, k, options);
    for (int h = 0; h < 4; ++h) {
        const std::vector<float> tile = probabilityTile(rotated.queries, rotated.keys, tiled.logSumExp, options, h, 0, n, 0, n);
        const std::vector<float> reference(full.probabilities.begin() + ptrdiff_t(h) * n * n,
                                           full.probabilities.begin() + ptrdiff_t(h + 1) * n * n);
        QVERIFY2(maxAbsDifference(tile, reference) < 1e-6, qPrintable(QString::number(maxAbsDifference(tile, reference))));
    }
}

void TestAttention::probabilityTileMatchesFull()
{
    std::mt19937 rng(3);
    const int n = 300;
    const HeadTensor q = randomHeadTensor(n, 2, 24, rng, 2.0f), k = randomHeadTensor(n, 2, 24, rng, 2.0f),
                     v = randomHeadTensor(n, 2, 24, rng);
    AttentionOptions options;
    options.causal = true;
    const FullAttentionResult full = attentionFull(q, k, v, options);
    const TiledAttentionResult tiled = attentionTiled(q, k, v, options);
    const std::vector<float> tile = probabilityTile(q, k, tiled.logSumExp, options, 1, 100, 180, 40, 150);
    for (int r = 0; r < 80; ++r)
        for (int c = 0; c < 110; ++c)
            QVERIFY(std::abs(tile[size_t(r) * 110 + size_t(c)] - full.probability(1, 100 + r, 40 + c)) < 1e-6);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, probabilityTile(q, k, tiled.logSumExp, options, 2, 0, 1, 0, 1));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, probabilityTile(q, k, tiled.logSumExp, options, 0, 0, n + 1, 0, 1));
}

// headMatrices (the npy dump's parallel recompute): every head of a layer, on 1, 2 and 5 threads, equals the
// materialised P of attentionFull, and a sub-range of heads starts at the right one.
void TestAttention::headMatricesOnThreadsMatchFull()
{
    std::mt19937 rng(5);
    const int n = 70, heads = 6;
    const HeadTensor q = randomHeadTensor(n, heads, 16, rng), k = randomHeadTensor(n, 2, 16, rng),
                     v = randomHeadTensor(n, 2, 16, rng);
    AttentionOptions options;
    options.causal = true;
    const FullAttentionResult full = attentionFull(q, k, v, options);
    const TiledAttentionResult tiled = attentionTiled(q, k, v, options);
    std::vector<TiledAttentionMaps::Layer> layers;
    layers.push_back({q, k, tiled.logSumExp, options});
    const TiledAttentionMaps maps(std::move(layers));
    for (const int threads : {1, 2, 5}) {
        const std::vector<std::vector<float>> all = headMatrices(maps, 0, 0, heads, threads);
        QCOMPARE(int(all.size()), heads);
        for (int h = 0; h < heads; ++h) {
            const std::vector<float> reference(full.probabilities.begin() + ptrdiff_t(h) * n * n,
                                               full.probabilities.begin() + ptrdiff_t(h + 1) * n * n);
            QVERIFY2(maxAbsDifference(all[size_t(h)], reference) < 1e-6,
                     qPrintable(QString::number(maxAbsDifference(all[size_t(h)], reference))));
        }
        const std::vector<std::vector<float>> some = headMatrices(maps, 0, 2, 4, threads);
        QCOMPARE(int(some.size()), 2);
        QCOMPARE(some[0], all[2]);
        QCOMPARE(some[1], all[3]);
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, headMatrices(maps, 1, 0, 1, 2));
}

void TestAttention::keyPaddingMasksKeys()
{
    std::mt19937 rng(5);
    const HeadTensor q = randomHeadTensor(6, 1, 8, rng), k = randomHeadTensor(6, 1, 8, rng),
                     v = randomHeadTensor(6, 1, 8, rng);
    AttentionOptions options;
    options.keyPadding = {1, 1, 0, 1, 0, 1};
    const FullAttentionResult full = attentionFull(q, k, v, options);
    const TiledAttentionResult tiled = attentionTiled(q, k, v, options);
    for (int i = 0; i < 6; ++i) {
        QCOMPARE(full.probability(0, i, 2), 0.0f);
        QCOMPARE(full.probability(0, i, 4), 0.0f);
    }
    QVERIFY(maxAbsDifference(full.output.values, tiled.output.values) < 1e-6);
    // A query that sees no key at all gets P = 0, O = 0 and L = -inf rather than NaN.
    options.keyPadding = {0, 0, 0, 0, 0, 0};
    const FullAttentionResult none = attentionFull(q, k, v, options);
    const TiledAttentionResult noneTiled = attentionTiled(q, k, v, options);
    for (float p : none.probabilities)
        QCOMPARE(p, 0.0f);
    for (float o : noneTiled.output.values)
        QCOMPARE(o, 0.0f);
    QVERIFY(std::isinf(noneTiled.logSumExp[0]) && noneTiled.logSumExp[0] < 0);
}

void TestAttention::queryOffsetShiftsCausalMask()
{
    // Two new queries after four cached keys: query i sees keys j <= i + 4.
    std::mt19937 rng(11);
    const HeadTensor q = randomHeadTensor(2, 2, 8, rng), k = randomHeadTensor(6, 2, 8, rng),
                     v = randomHeadTensor(6, 2, 8, rng);
    AttentionOptions options;
    options.causal = true;
    options.queryPositionOffset = 4;
    const FullAttentionResult r = attentionFull(q, k, v, options);
    QVERIFY(r.probability(0, 0, 4) > 0);
    QCOMPARE(r.probability(0, 0, 5), 0.0f);
    QVERIFY(r.probability(0, 1, 5) > 0);
    const TiledAttentionResult t = attentionTiled(q, k, v, options);
    QVERIFY(maxAbsDifference(r.output.values, t.output.values) < 1e-6);
}

// Gemma 2's soft cap by hand for one head: S = c·tanh(q·k·scale / c), then softmax; the tiled path and the
// recomputed tiles agree.
void TestAttention::softCapMatchesHandComputation()
{
    std::mt19937 rng(21);
    const int n = 9, d = 6;
    const HeadTensor q = randomHeadTensor(n, 1, d, rng, 3.0f), k = randomHeadTensor(n, 1, d, rng, 3.0f),
                     v = randomHeadTensor(n, 1, d, rng);
    AttentionOptions options;
    options.causal = true;
    options.softCap = 2.5f;
    const FullAttentionResult full = attentionFull(q, k, v, options);
    double worst = 0;
    for (int i = 0; i < n; ++i) {
        std::vector<double> s(static_cast<size_t>(i + 1));
        for (int j = 0; j <= i; ++j) {
            double dot = 0;
            for (int e = 0; e < d; ++e)
                dot += double(q.at(i, 0, e)) * k.at(j, 0, e);
            s[size_t(j)] = 2.5 * std::tanh(dot / std::sqrt(double(d)) / 2.5);
        }
        const double top = *std::max_element(s.begin(), s.end());
        double sum = 0;
        for (double x : s)
            sum += std::exp(x - top);
        for (int j = 0; j < n; ++j) {
            const double expected = j <= i ? std::exp(s[size_t(j)] - top) / sum : 0.0;
            worst = std::max(worst, std::abs(expected - full.probability(0, i, j)));
        }
    }
    QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
    // Without the cap these sharp scores give another P.
    options.softCap = 0.0f;
    const FullAttentionResult uncapped = attentionFull(q, k, v, options);
    QCOMPARE(uncapped.probabilities.size(), full.probabilities.size()); // the bound below is on the values
    QVERIFY(maxAbsDifference(asVector(uncapped.probabilities), asVector(full.probabilities)) > 1e-2);
    options.softCap = 2.5f;
    const TiledAttentionResult tiled = attentionTiled(q, k, v, options);
    QVERIFY(maxScaledDifference(tiled.output.values, full.output.values) < 1e-6);
    const std::vector<float> tile = probabilityTile(q, k, tiled.logSumExp, options, 0, 0, n, 0, n);
    QVERIFY(maxAbsDifference(tile, asVector(full.probabilities)) < 1e-6);
}

void TestAttention::slidingWindowMasksDistantKeys_data()
{
    QTest::addColumn<int>("window");
    QTest::addColumn<int>("offset");
    QTest::newRow("window 1: itself only") << 1 << 0;
    QTest::newRow("window 3") << 3 << 0;
    QTest::newRow("window 4 after 5 cached keys") << 4 << 5;
    QTest::newRow("window as long as the input") << 80 << 0;
}

// Query i (at i + offset) sees key j when j <= i + offset and (i + offset) − j < window; the tiled path with
// blocks smaller than the window agrees.
void TestAttention::slidingWindowMasksDistantKeys()
{
    QFETCH(int, window);
    QFETCH(int, offset);
    std::mt19937 rng(uint32_t(window * 7 + offset));
    const int queries = 70, keys = queries + offset;
    const HeadTensor q = randomHeadTensor(queries, 2, 8, rng), k = randomHeadTensor(keys, 1, 8, rng),
                     v = randomHeadTensor(keys, 1, 8, rng);
    AttentionOptions options;
    options.causal = true;
    options.queryPositionOffset = offset;
    options.slidingWindow = window;
    options.queryBlock = 16;
    options.keyBlock = 8;
    const FullAttentionResult full = attentionFull(q, k, v, options);
    for (int h = 0; h < 2; ++h)
        for (int i = 0; i < queries; ++i) {
            double sum = 0;
            for (int j = 0; j < keys; ++j) {
                const int distance = i + offset - j;
                const float p = full.probability(h, i, j);
                if (distance < 0 || distance >= window)
                    QCOMPARE(p, 0.0f);
                else
                    QVERIFY(p > 0.0f);
                sum += p;
            }
            QVERIFY(std::abs(sum - 1.0) < 1e-5);
        }
    const TiledAttentionResult tiled = attentionTiled(q, k, v, options);
    QVERIFY(maxScaledDifference(tiled.output.values, full.output.values) < 1e-6);
    const std::vector<float> tile = probabilityTile(q, k, tiled.logSumExp, options, 1, 10, 60, 0, keys);
    for (int r = 0; r < 50; ++r)
        for (int c = 0; c < keys; ++c)
            QVERIFY(std::abs(tile[size_t(r) * size_t(keys) + size_t(c)] - full.probability(1, 10 + r, c)) <
                    1e-6);
}

void TestAttention::ropePositionZeroIsIdentity()
{
    std::mt19937 rng(1);
    HeadTensor x = randomHeadTensor(1, 3, 16, rng);
    const HeadTensor original = x;
    for (RopePairing pairing : {RopePairing::RotateHalf, RopePairing::Interleaved}) {
        RopeConfig rope{true, 10000.0, 0, pairing, 0};
        HeadTensor y = original;
        applyRope(y, rope, 0);
        QCOMPARE(y.values, original.values);
    }
}

void TestAttention::ropeScoreDependsOnlyOnOffset_data()
{
    QTest::addColumn<int>("pairing");
    QTest::addColumn<double>("theta");
    for (double theta : {1e4, 5e5, 1e6}) {
        QTest::addRow("rotate-half theta=%g", theta) << int(RopePairing::RotateHalf) << theta;
        QTest::addRow("interleaved theta=%g", theta) << int(RopePairing::Interleaved) << theta;
    }
}

void TestAttention::ropeScoreDependsOnlyOnOffset()
{
    QFETCH(int, pairing);
    QFETCH(double, theta);
    std::mt19937 rng(2);
    const HeadTensor qv = randomHeadTensor(1, 1, 32, rng), kv = randomHeadTensor(1, 1, 32, rng);
    RopeConfig rope{true, theta, 0, RopePairing(pairing), 0};
    auto score = [&](int i, int j) {
        HeadTensor q = qv, k = kv;
        applyRope(q, rope, i);
        applyRope(k, rope, j);
        double s = 0;
        for (int c = 0; c < 32; ++c)
            s += double(q.values[size_t(c)]) * k.values[size_t(c)];
        return s;
    };
    // The same vectors at (i, j) and (i + 7, j + 7) have the same score; another offset differs.
    for (auto [i, j] : {std::pair{3, 1}, std::pair{10, 2}, std::pair{5, 5}}) {
        QVERIFY2(std::abs(score(i, j) - score(i + 7, j + 7)) < 1e-4,
                 qPrintable(QStringLiteral("%1 vs %2").arg(score(i, j)).arg(score(i + 7, j + 7))));
        QVERIFY(std::abs(score(i, j) - score(i + 1, j)) > 1e-4);
    }
}

void TestAttention::partialRotaryLeavesTailUntouched()
{
    std::mt19937 rng(4);
    HeadTensor x = randomHeadTensor(5, 2, 16, rng);
    const HeadTensor original = x;
    applyRope(x, RopeConfig{true, 10000.0, 8, RopePairing::Interleaved, 0}, 0);
    for (int t = 1; t < 5; ++t)
        for (int h = 0; h < 2; ++h) {
            for (int c = 8; c < 16; ++c)
                QCOMPARE(x.at(t, h, c), original.at(t, h, c));
            bool rotated = false;
            for (int c = 0; c < 8; ++c)
                rotated |= x.at(t, h, c) != original.at(t, h, c);
            QVERIFY(rotated);
            // A rotation keeps the norm of each rotated pair.
            for (int p = 0; p < 4; ++p) {
                const float a = std::hypot(x.at(t, h, 2 * p), x.at(t, h, 2 * p + 1));
                const float b = std::hypot(original.at(t, h, 2 * p), original.at(t, h, 2 * p + 1));
                QVERIFY(std::abs(a - b) < 1e-5f);
            }
        }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, applyRope(x, RopeConfig{true, 1e4, 7, RopePairing::RotateHalf, 0}, 0));
}

void TestAttention::ropePairingsDiffer()
{
    // Hand check at position 1 with theta so that pair 0 turns by 1 rad: x = e0 (first component 1).
    HeadTensor a(1, 1, 4), b(1, 1, 4);
    a.at(0, 0, 0) = b.at(0, 0, 0) = 1.0f;
    applyRope(a, RopeConfig{true, 10000.0, 0, RopePairing::RotateHalf, 0}, 1);
    applyRope(b, RopeConfig{true, 10000.0, 0, RopePairing::Interleaved, 0}, 1);
    // Rotate-half pairs component 0 with 2; interleaved pairs it with 1.
    QVERIFY(std::abs(a.at(0, 0, 0) - std::cos(1.0f)) < 1e-6f && std::abs(a.at(0, 0, 2) - std::sin(1.0f)) < 1e-6f);
    QCOMPARE(a.at(0, 0, 1), 0.0f);
    QVERIFY(std::abs(b.at(0, 0, 0) - std::cos(1.0f)) < 1e-6f && std::abs(b.at(0, 0, 1) - std::sin(1.0f)) < 1e-6f);
    QCOMPARE(b.at(0, 0, 2), 0.0f);
}

void TestAttention::permutationEquivariance()
{
    std::mt19937 rng(9);
    const int n = 9;
    const HeadTensor q = randomHeadTensor(n, 2, 8, rng), k = randomHeadTensor(n, 2, 8, rng),
                     v = randomHeadTensor(n, 2, 8, rng);
    std::vector<int> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    auto permute = [&](const HeadTensor& x) {
        HeadTensor y = x;
        for (int t = 0; t < n; ++t)
            std::copy(x.vector(perm[size_t(t)], 0), x.vector(perm[size_t(t)], 0) + x.tokenStride(), y.vector(t, 0));
        return y;
    };
    const FullAttentionResult a = attentionFull(q, k, v, {});
    const FullAttentionResult b = attentionFull(permute(q), permute(k), permute(v), {});
    for (int h = 0; h < 2; ++h)
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                QVERIFY(std::abs(b.probability(h, i, j) - a.probability(h, perm[size_t(i)], perm[size_t(j)])) < 1e-6);
}

void TestAttention::scalingPreventsCollapse()
{
    std::mt19937 rng(12);
    const int n = 16, d = 512;
    const HeadTensor q = randomHeadTensor(n, 1, d, rng), k = randomHeadTensor(n, 1, d, rng),
                     v = randomHeadTensor(n, 1, d, rng);
    auto collapsedRows = [&](float scale) {
        AttentionOptions options;
        options.scale = scale;
        const FullAttentionResult r = attentionFull(q, k, v, options);
        int collapsed = 0;
        for (int i = 0; i < n; ++i) {
            const float* row = r.probabilityRow(0, i);
            if (*std::max_element(row, row + n) > 0.99f)
                ++collapsed;
        }
        return collapsed;
    };
    QVERIFY(collapsedRows(1.0f) > n / 2);            // raw q·k has std √512 ≈ 22.6: softmax picks one key
    QCOMPARE(collapsedRows(1.0f / std::sqrt(float(d))), 0); // scaled scores have unit variance
}

void TestAttention::badShapesThrow()
{
    HeadTensor q(3, 3, 8), k(3, 2, 8), v(3, 2, 8);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, attentionFull(q, k, v, {}));
    HeadTensor q2(3, 4, 8), k2(3, 2, 4);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, attentionTiled(q2, k2, k2, {}));
    AttentionOptions padding;
    padding.keyPadding = {1, 1};
    HeadTensor k3(3, 2, 8);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, attentionFull(q2, k3, k3, padding));
}

QTEST_APPLESS_MAIN(TestAttention)
#include "tst_attention.moc"
