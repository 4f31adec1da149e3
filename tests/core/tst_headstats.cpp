// Per-head metrics on hand-made attention matrices whose values are known by hand (docs/metrics.md).

#include "attention/attentionmaps.h"
#include "stats/attentionanalysis.h"
#include "stats/headstatsaccumulator.h"

#include <QtTest>

#include <cmath>

using namespace attnscope;

namespace {

using Matrix = std::vector<std::vector<float>>;

std::vector<float> flatten(const Matrix& m)
{
    std::vector<float> out;
    for (const auto& row : m)
        out.insert(out.end(), row.begin(), row.end());
    return out;
}

HeadStats statsOf(const Matrix& m, const TokenRoles& roles = {}, int rowBlock = 2)
{
    const int n = int(m.size());
    DenseAttentionMaps maps(1, 1, n, int(m.front().size()), flatten(m));
    AnalysisOptions options;
    options.rowBlock = rowBlock;
    options.threads = 1;
    const auto analysis = analyzeAttention(maps, roles, options);
    Q_ASSERT(analysis);
    return analysis->at(0, 0);
}

Matrix sinkHead(int n)
{
    Matrix m(size_t(n), std::vector<float>(size_t(n), 0.0f));
    for (auto& row : m)
        row[0] = 1.0f;
    return m;
}

Matrix previousTokenHead(int n)
{
    Matrix m(size_t(n), std::vector<float>(size_t(n), 0.0f));
    m[0][0] = 1.0f; // the first token has no previous one: it looks at itself
    for (int i = 1; i < n; ++i)
        m[size_t(i)][size_t(i - 1)] = 1.0f;
    return m;
}

Matrix uniformHead(int n)
{
    return Matrix(size_t(n), std::vector<float>(size_t(n), 1.0f / float(n)));
}

} // namespace

class TestHeadStats : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void pureSink()
    {
        const HeadStats s = statsOf(sinkHead(6));
        QCOMPARE(s.rowsUsed, 6);
        QCOMPARE(s.sinkMass, 1.0);
        QCOMPARE(s.sink4Mass, 1.0);
        QCOMPARE(s.entropy, 0.0);
        QCOMPARE(s.normalizedEntropy, 0.0);
        QVERIFY(qFuzzyCompare(s.self, 1.0 / 6.0)); // only row 0 attends to itself
        QVERIFY(qFuzzyCompare(s.previous, 1.0 / 5.0)); // rows 1..5: only row 1's previous token is 0
        QCOMPARE(s.next, 0.0);
        QCOMPARE(s.label, HeadLabel::Sink);
    }

    void purePreviousToken()
    {
        const HeadStats s = statsOf(previousTokenHead(8));
        QCOMPARE(s.previous, 1.0); // rows 1..7 all put 1 on i-1
        QVERIFY(qFuzzyCompare(s.self, 1.0 / 8.0));
        QVERIFY(qFuzzyCompare(s.sinkMass, 2.0 / 8.0)); // rows 0 and 1
        QVERIFY(qFuzzyCompare(s.sink4Mass, 5.0 / 8.0)); // rows 0..4 put their 1 inside the first 4 keys
        QCOMPARE(s.next, 0.0);
        QCOMPARE(s.entropy, 0.0);
        QCOMPARE(s.label, HeadLabel::PreviousToken);
    }

    void uniform()
    {
        const int n = 5;
        const HeadStats s = statsOf(uniformHead(n));
        QVERIFY(std::abs(s.entropy - std::log(5.0)) < 1e-6);
        QVERIFY(std::abs(s.normalizedEntropy - 1.0) < 1e-6);
        QVERIFY(std::abs(s.sinkMass - 0.2) < 1e-6);
        QVERIFY(std::abs(s.sink4Mass - 0.8) < 1e-6);
        QVERIFY(std::abs(s.self - 0.2) < 1e-6);
        QVERIFY(std::abs(s.previous - 0.2) < 1e-6);
        QVERIFY(std::abs(s.next - 0.2) < 1e-6);
        QCOMPARE(s.label, HeadLabel::Broad);
    }

    void causalUniformIsBroad()
    {
        // Row i uniform over keys 0..i: entropy ln(i+1), normalised entropy 1 on every row that can choose.
        const int n = 6;
        Matrix m(size_t(n), std::vector<float>(size_t(n), 0.0f));
        double expectedEntropy = 0;
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j <= i; ++j)
                m[size_t(i)][size_t(j)] = 1.0f / float(i + 1);
            expectedEntropy += std::log(double(i + 1));
        }
        TokenRoles roles;
        roles.causal = true;
        const HeadStats s = statsOf(m, roles, 4);
        QVERIFY(std::abs(s.entropy - expectedEntropy / n) < 1e-6);
        QVERIFY(std::abs(s.normalizedEntropy - 1.0) < 1e-6);
        QCOMPARE(s.next, 0.0);
        QCOMPARE(s.label, HeadLabel::Broad);
    }

    void specialQueryRowsExcludedAndSepMass()
    {
        // [CLS] a b c [SEP]: the word rows put everything on [SEP], the special rows on [CLS].
        const int n = 5;
        Matrix m(size_t(n), std::vector<float>(size_t(n), 0.0f));
        m[0][0] = 1;
        m[4][0] = 1;
        for (int i = 1; i <= 3; ++i)
            m[size_t(i)][4] = 1;
        TokenRoles roles;
        roles.special = {true, false, false, false, true};
        roles.clsPositions = {0};
        roles.sepPositions = {4};
        const HeadStats s = statsOf(m, roles);
        QCOMPARE(s.rowsUsed, 3);
        QCOMPARE(s.sepMass, 1.0);
        QCOMPARE(s.clsMass, 0.0);
        QCOMPARE(s.sinkMass, 0.0);
        QVERIFY(qFuzzyCompare(s.next, 1.0 / 3.0)); // row 3's next token is [SEP]
        QCOMPARE(s.label, HeadLabel::NoOp);
    }

    void labels_data()
    {
        QTest::addColumn<double>("sink");
        QTest::addColumn<double>("sep");
        QTest::addColumn<double>("prev");
        QTest::addColumn<double>("next");
        QTest::addColumn<double>("self");
        QTest::addColumn<double>("normalizedEntropy");
        QTest::addColumn<QString>("label");
        QTest::newRow("sink") << 0.7 << 0.1 << 0.1 << 0.0 << 0.1 << 0.2 << "sink";
        QTest::newRow("sep beats sink") << 0.55 << 0.9 << 0.0 << 0.0 << 0.0 << 0.1 << "no-op";
        QTest::newRow("next") << 0.0 << 0.0 << 0.1 << 0.8 << 0.1 << 0.2 << "next-token";
        QTest::newRow("self") << 0.0 << 0.0 << 0.1 << 0.1 << 0.6 << 0.2 << "self";
        QTest::newRow("just under every threshold, spread") << 0.49 << 0.0 << 0.0 << 0.0 << 0.0 << 0.85 << "broad";
        QTest::newRow("nothing") << 0.3 << 0.3 << 0.2 << 0.1 << 0.1 << 0.5 << "mixed";
    }
    void labels()
    {
        QFETCH(double, sink);
        QFETCH(double, sep);
        QFETCH(double, prev);
        QFETCH(double, next);
        QFETCH(double, self);
        QFETCH(double, normalizedEntropy);
        QFETCH(QString, label);
        HeadStats s;
        s.sinkMass = sink;
        s.sepMass = sep;
        s.previous = prev;
        s.next = next;
        s.self = self;
        s.normalizedEntropy = normalizedEntropy;
        QCOMPARE(headLabelName(classifyHead(s, LabelThresholds{})), label);
        QCOMPARE(headLabelFromName(label), classifyHead(s, LabelThresholds{}));
    }

    void thresholdsChangeTheLabel()
    {
        HeadStats s;
        s.sinkMass = 0.4;
        s.normalizedEntropy = 0.3;
        LabelThresholds t;
        QCOMPARE(classifyHead(s, t), HeadLabel::Mixed);
        t.sink = 0.35;
        QCOMPARE(classifyHead(s, t), HeadLabel::Sink);
    }

    void rowBlocksDoNotChangeTheResult()
    {
        // A pseudo-random stochastic matrix: statistics from blocks of 1, 3 and all rows agree.
        const int n = 37;
        Matrix m(size_t(n), std::vector<float>(size_t(n), 0.0f));
        unsigned seed = 12345;
        for (auto& row : m) {
            float sum = 0;
            for (float& v : row) {
                seed = seed * 1103515245u + 12345u;
                v = float((seed >> 8) % 1000) + 1.0f;
                sum += v;
            }
            for (float& v : row)
                v /= sum;
        }
        const HeadStats whole = statsOf(m, {}, n);
        for (int block : {1, 3, 16}) {
            const HeadStats s = statsOf(m, {}, block);
            QVERIFY(std::abs(s.entropy - whole.entropy) < 1e-9);
            QVERIFY(std::abs(s.sink4Mass - whole.sink4Mass) < 1e-9);
            QVERIFY(std::abs(s.previous - whole.previous) < 1e-9);
        }
    }

    void overviewMaxPoolingKeepsADiagonal()
    {
        // A 100-token identity pooled to 10×10 by max: a clean diagonal of ones.
        const int n = 100;
        std::vector<float> identity(size_t(n) * n, 0.0f);
        for (int i = 0; i < n; ++i)
            identity[size_t(i) * n + size_t(i)] = 1.0f;
        AttentionOverview overview(n, n, 10);
        overview.addRows(0, identity.data(), n);
        overview.finish();
        QCOMPARE(overview.rows(), 10);
        for (int r = 0; r < 10; ++r)
            for (int c = 0; c < 10; ++c)
                QCOMPARE(overview.values()[size_t(r * 10 + c)], r == c ? 1.0f : 0.0f);
        AttentionOverview mean(n, n, 10, AttentionOverview::Pooling::Mean);
        mean.addRows(0, identity.data(), n);
        mean.finish();
        QVERIFY(std::abs(mean.values()[0] - 0.1f) < 1e-6f); // 10 ones in a 10×10 block
        AttentionOverview small(3, 3, 64);
        QCOMPARE(small.rows(), 3); // small inputs stay exact
    }

    void layerSummaryAndCancel()
    {
        // Two layers × two heads: layer 0 all sinks, layer 1 half sink, half uniform over 4 keys.
        const int n = 4;
        std::vector<float> values;
        for (const Matrix& m : {sinkHead(n), sinkHead(n), sinkHead(n), uniformHead(n)}) {
            const auto flat = flatten(m);
            values.insert(values.end(), flat.begin(), flat.end());
        }
        DenseAttentionMaps maps(2, 2, n, n, values);
        const auto analysis = analyzeAttention(maps, {});
        QVERIFY(analysis);
        QCOMPARE(int(analysis->layerSummaries.size()), 2);
        QVERIFY(std::abs(analysis->layerSummaries[0].sinkMass - 1.0) < 1e-9);
        QVERIFY(std::abs(analysis->layerSummaries[1].sinkMass - (1.0 + 0.25) / 2) < 1e-6);
        QCOMPARE(analysis->at(1, 1).label, HeadLabel::Broad);

        std::atomic<bool> cancel{true};
        AnalysisOptions options;
        options.cancel = &cancel;
        QVERIFY(!analyzeAttention(maps, {}, options));
    }
};

QTEST_GUILESS_MAIN(TestHeadStats)
#include "tst_headstats.moc"
