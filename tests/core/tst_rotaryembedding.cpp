// RoPE and its scalings (attention/rotaryembedding.h) against hand computation with real models' settings,
// and the properties of the rotation. The whole-model checks are in tst_model_families (the oracle cases).

#include "attention/rope.h"
#include "attention/rotaryembedding.h"

#include <QtTest>
#include <cmath>
#include <random>

using namespace attnscope;

namespace {

constexpr double kTwoPi = 6.283185307179586;

double plainInverse(double theta, int p, int dim)
{
    return 1.0 / std::pow(theta, 2.0 * p / dim);
}

// YaRN scaling by `factor` of a model trained on originalMaxPositions positions.
RopeScaling yarnScaling(double factor, int originalMaxPositions)
{
    RopeScaling s;
    s.type = RopeScaling::Type::Yarn;
    s.factor = factor;
    s.originalMaxPositions = originalMaxPositions;
    return s;
}

HeadTensor randomHeads(int tokens, int heads, int dim, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    HeadTensor t(tokens, heads, dim);
    for (float& x : t.values)
        x = normal(rng);
    return t;
}

std::vector<int> range(int first, int count)
{
    std::vector<int> v;
    for (int i = 0; i < count; ++i)
        v.push_back(first + i);
    return v;
}

} // namespace

class TestRotaryEmbedding : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void defaultEqualsAttentionRope();
    void llama3BandsOfLlama31();
    void linearDividesEveryFrequency();
    void dynamicGrowsThetaPastTheContext();
    void yarnRampAndAttentionFactor();
    void longRopeSwitchesFactors();
    void rotationKeepsNormsAndRelativePositions();
    void partialRotaryLeavesTheTail();
};

// With no scaling the model's RoPE is the attention core's (attention/rope.h), bit for bit.
void TestRotaryEmbedding::defaultEqualsAttentionRope()
{
    HeadTensor a = randomHeads(20, 3, 16, 1), b = a;
    RopeConfig rope;
    rope.enabled = true;
    rope.theta = 500000.0;
    applyRope(a, rope);
    RotaryEmbedding(500000.0, 16).apply(b, range(0, 20), 20);
    QCOMPARE(a.values, b.values);
}

// Llama 3.1: theta 5e5, head_dim 128, factor 8, low_freq_factor 1, high_freq_factor 4, original context 8192.
// Wavelengths under 8192/4 keep their frequency, over 8192/1 are divided by 8, in between blend.
void TestRotaryEmbedding::llama3BandsOfLlama31()
{
    RopeScaling s;
    s.type = RopeScaling::Type::Llama3;
    s.factor = 8.0;
    s.lowFreqFactor = 1.0;
    s.highFreqFactor = 4.0;
    s.originalMaxPositions = 8192;
    const RotaryEmbedding rope(500000.0, 128, s, 131072);
    const std::vector<float> inverse = rope.frequencies(16).inverse;
    int kept = 0, divided = 0, blended = 0;
    for (int p = 0; p < 64; ++p) {
        const double original = plainInverse(500000.0, p, 128), wavelength = kTwoPi / original;
        double expected = original / 8.0;
        if (wavelength < 2048.0) {
            expected = original;
            ++kept;
        } else if (wavelength <= 8192.0) {
            const double smooth = (8192.0 / wavelength - 1.0) / 3.0;
            expected = (1.0 - smooth) * original / 8.0 + smooth * original;
            ++blended;
        } else {
            ++divided;
        }
        QVERIFY2(std::abs(inverse[size_t(p)] - expected) <= 2e-6 * expected, qPrintable(QString::number(p)));
    }
    QVERIFY(kept > 0 && blended > 0 && divided > 0);
    QCOMPARE(rope.frequencies(16).attentionFactor, 1.0f);
}

void TestRotaryEmbedding::linearDividesEveryFrequency()
{
    RopeScaling s;
    s.type = RopeScaling::Type::Linear;
    s.factor = 4.0;
    const std::vector<float> scaled = RotaryEmbedding(10000.0, 32, s).frequencies(1).inverse;
    const std::vector<float> plain = RotaryEmbedding(10000.0, 32).frequencies(1).inverse;
    for (size_t p = 0; p < plain.size(); ++p)
        QCOMPARE(scaled[p], plain[p] / 4.0f);
}

// NTK-aware: nothing changes within max_position_embeddings; past it theta becomes
// theta · (factor·s/max − (factor − 1))^(d/(d−2)).
void TestRotaryEmbedding::dynamicGrowsThetaPastTheContext()
{
    RopeScaling s;
    s.type = RopeScaling::Type::Dynamic;
    s.factor = 2.0;
    const RotaryEmbedding rope(10000.0, 64, s, 4096);
    const std::vector<float> plain = RotaryEmbedding(10000.0, 64).frequencies(1).inverse;
    QCOMPARE(rope.frequencies(4096).inverse, plain);
    const double theta = 10000.0 * std::pow(2.0 * 6000 / 4096 - 1.0, 64.0 / 62.0);
    const std::vector<float> grown = rope.frequencies(6000).inverse;
    for (int p = 0; p < 32; ++p)
        QVERIFY(std::abs(grown[size_t(p)] - plainInverse(theta, p, 64)) <= 1e-6 * plainInverse(theta, p, 64));
    QVERIFY(grown[31] < plain[31]);
}

// YaRN (Qwen2.5's recommended setting: theta 1e6, head_dim 128, factor 4, original 32768): pairs turning more
// than beta_fast = 32 times over the original context keep their frequency, fewer than beta_slow = 1 times
// are divided by the factor; cos and sin grow by 0.1·ln(4) + 1.
void TestRotaryEmbedding::yarnRampAndAttentionFactor()
{
    RopeScaling s = yarnScaling(4.0, 32768);
    const RotaryEmbedding rope(1000000.0, 128, s, 131072);
    const RotaryEmbedding::Frequencies f = rope.frequencies(10);
    QVERIFY(std::abs(f.attentionFactor - float(0.1 * std::log(4.0) + 1.0)) < 1e-6f);
    int kept = 0, divided = 0;
    for (int p = 0; p < 64; ++p) {
        const double original = plainInverse(1000000.0, p, 128);
        const double turns = 32768.0 * original / kTwoPi;
        if (turns > 32.0 * 1.5) { // safely before the ramp (its ends are rounded outwards to whole pairs)
            QVERIFY(std::abs(f.inverse[size_t(p)] - original) <= 2e-6 * original);
            ++kept;
        } else if (turns < 1.0 / 1.5) {
            QVERIFY(std::abs(f.inverse[size_t(p)] - original / 4.0) <= 2e-6 * original);
            ++divided;
        } else {
            QVERIFY(f.inverse[size_t(p)] <= original * (1 + 2e-6) &&
                    f.inverse[size_t(p)] >= original / 4.0 * (1 - 2e-6));
        }
    }
    QVERIFY(kept > 0 && divided > 0);
    // DeepSeek's mscale / mscale_all_dim replace the default factor by their ratio.
    s.mscale = 0.707;
    s.mscaleAllDim = 0.707;
    QCOMPARE(RotaryEmbedding(1000000.0, 128, s, 131072).frequencies(1).attentionFactor, 1.0f);
    s.mscale.reset();
    s.mscaleAllDim.reset();
    s.attentionFactor = 1.25;
    QCOMPARE(RotaryEmbedding(1000000.0, 128, s, 131072).frequencies(1).attentionFactor, 1.25f);
}

// Phi-3-mini-128k: short factors up to the original 4096 positions, long ones past it; cos and sin scaled by
// sqrt(1 + ln(131072/4096) / ln(4096)).
void TestRotaryEmbedding::longRopeSwitchesFactors()
{
    RopeScaling s;
    s.type = RopeScaling::Type::LongRope;
    s.originalMaxPositions = 4096;
    s.factor = 131072.0 / 4096.0;
    for (int p = 0; p < 4; ++p) {
        s.shortFactor.push_back(1.0 + 0.1 * p);
        s.longFactor.push_back(2.0 + p);
    }
    const RotaryEmbedding rope(10000.0, 8, s, 131072);
    const RotaryEmbedding::Frequencies shortPass = rope.frequencies(4096), longPass = rope.frequencies(4097);
    for (int p = 0; p < 4; ++p) {
        const double plain = plainInverse(10000.0, p, 8);
        QVERIFY(std::abs(shortPass.inverse[size_t(p)] - plain / (1.0 + 0.1 * p)) <= 1e-6 * plain);
        QVERIFY(std::abs(longPass.inverse[size_t(p)] - plain / (2.0 + p)) <= 1e-6 * plain);
    }
    QVERIFY(std::abs(shortPass.attentionFactor - float(std::sqrt(1.0 + std::log(32.0) / std::log(4096.0)))) <
            1e-6f);
}

// A rotation: each pair keeps its length (times the attention factor), and q·k depends only on the positions'
// difference.
void TestRotaryEmbedding::rotationKeepsNormsAndRelativePositions()
{
    const RopeScaling s = yarnScaling(2.0, 64);
    const RotaryEmbedding rope(10000.0, 16, s, 128);
    const float factor = rope.frequencies(40).attentionFactor;
    const HeadTensor q = randomHeads(1, 1, 16, 5), k = randomHeads(1, 1, 16, 6);
    auto score = [&](int qp, int kp) {
        HeadTensor a = q, b = k;
        rope.apply(a, {qp}, 40);
        rope.apply(b, {kp}, 40);
        double dot = 0;
        for (int e = 0; e < 16; ++e)
            dot += double(a.at(0, 0, e)) * b.at(0, 0, e);
        return dot;
    };
    QVERIFY(std::abs(score(7, 3) - score(30, 26)) < 1e-4);
    QVERIFY(std::abs(score(7, 3) - score(7, 4)) > 1e-3);
    HeadTensor rotated = q;
    rope.apply(rotated, {33}, 40);
    for (int p = 0; p < 8; ++p) {
        const double before = std::hypot(q.at(0, 0, p), q.at(0, 0, p + 8));
        const double after = std::hypot(rotated.at(0, 0, p), rotated.at(0, 0, p + 8));
        QVERIFY(std::abs(after - factor * before) < 1e-5);
    }
}

// partial_rotary_factor / rotary_pct: the first rotaryDim components rotate as a head of that size, the rest
// pass through.
void TestRotaryEmbedding::partialRotaryLeavesTheTail()
{
    const HeadTensor x = randomHeads(6, 2, 16, 9);
    HeadTensor partial = x;
    RotaryEmbedding(10000.0, 4).apply(partial, range(2, 6), 8);
    HeadTensor head(6, 2, 4);
    for (int t = 0; t < 6; ++t)
        for (int h = 0; h < 2; ++h)
            for (int e = 0; e < 4; ++e)
                head.at(t, h, e) = x.at(t, h, e);
    RotaryEmbedding(10000.0, 4).apply(head, range(2, 6), 8);
    for (int t = 0; t < 6; ++t)
        for (int h = 0; h < 2; ++h)
            for (int e = 0; e < 16; ++e)
                QCOMPARE(partial.at(t, h, e), e < 4 ? head.at(t, h, e) : x.at(t, h, e));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             RotaryEmbedding(10000.0, 32).apply(partial, range(0, 6), 6));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RotaryEmbedding(10000.0, 5));
}

QTEST_GUILESS_MAIN(TestRotaryEmbedding)
#include "tst_rotaryembedding.moc"
