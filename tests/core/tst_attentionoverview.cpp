// The CPU overview reference (attentionOverview, tile by tile) against the full matrix from attentionFull:
// pooled max and mean per cell, column sums and row entropies computed the obvious way.

#include "attention/attention.h"
#include "attention/attentionoverview.h"

#include <QtTest>
#include <cmath>
#include <random>

using namespace attnscope;

class TestAttentionOverview : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void matchesFullMatrix_data();
    void matchesFullMatrix();
    void cellsCoverEveryIndexOnce();
    void badGridThrows();
};

void TestAttentionOverview::matchesFullMatrix_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<int>("cols");
    QTest::addColumn<int>("rows");
    QTest::newRow("n300 causal 7x13") << 300 << true << 7 << 13;
    QTest::newRow("n300 64x64") << 300 << false << 64 << 64;
    QTest::newRow("n5 more cells than entries") << 5 << true << 100 << 100;
    QTest::newRow("n257 one cell") << 257 << false << 1 << 1;
}

void TestAttentionOverview::matchesFullMatrix()
{
    QFETCH(int, n);
    QFETCH(bool, causal);
    QFETCH(int, cols);
    QFETCH(int, rows);
    std::mt19937 rng(5);
    std::normal_distribution<float> normal(0.0f, 1.5f);
    HeadTensor q(n, 4, 16), k(n, 2, 16), v(n, 2, 16);
    for (HeadTensor* t : {&q, &k, &v})
        for (float& x : t->values)
            x = normal(rng);
    AttentionOptions options;
    options.causal = causal;
    options.rope.enabled = true;
    const FullAttentionResult full = attentionFull(q, k, v, options);
    const TiledAttentionResult tiled = attentionTiled(q, k, v, options);
    const RotatedQueryKey rotated = rotateForAttention(q, k, options);
    for (int head = 0; head < 4; ++head) {
        const AttentionOverview ov =
            attentionOverview(rotated.queries, rotated.keys, tiled.logSumExp, options, head, cols, rows);
        QCOMPARE(ov.rows, std::min(n, rows));
        QCOMPARE(ov.cols, std::min(n, cols));
        for (int r = 0; r < ov.rows; ++r)
            for (int c = 0; c < ov.cols; ++c) {
                double sum = 0, max = 0;
                int count = 0;
                for (int i = 0; i < n; ++i)
                    for (int j = 0; j < n; ++j)
                        if (i * ov.rows / n == r && j * ov.cols / n == c) {
                            const double p = full.probability(head, i, j);
                            sum += p;
                            max = std::max(max, p);
                            ++count;
                        }
                QVERIFY(count > 0);
                QVERIFY(std::abs(ov.pooledMax[size_t(r * ov.cols + c)] - max) <= 1e-6);
                QVERIFY(std::abs(ov.pooledMean[size_t(r * ov.cols + c)] - sum / count) <= 1e-6);
            }
        for (int j = 0; j < n; ++j) {
            double column = 0;
            for (int i = 0; i < n; ++i)
                column += full.probability(head, i, j);
            QVERIFY(std::abs(ov.columnSums[size_t(j)] - column) <= 1e-5);
        }
        for (int i = 0; i < n; ++i) {
            double entropy = 0;
            for (int j = 0; j < n; ++j) {
                const double p = full.probability(head, i, j);
                if (p > 0) entropy -= p * std::log(p);
            }
            QVERIFY(std::abs(ov.rowEntropies[size_t(i)] - entropy) <= 1e-5);
        }
    }
}

void TestAttentionOverview::cellsCoverEveryIndexOnce()
{
    for (int count : {1, 5, 257, 1000})
        for (int cells : {1, 3, 7, 64, 257}) {
            if (cells > count) continue;
            QCOMPARE(AttentionOverview::cellStart(0, count, cells), 0);
            QCOMPARE(AttentionOverview::cellStart(cells, count, cells), count);
            for (int i = 0; i < count; ++i) {
                const int cell = AttentionOverview::cellOf(i, count, cells);
                QVERIFY(AttentionOverview::cellStart(cell, count, cells) <= i);
                QVERIFY(i < AttentionOverview::cellStart(cell + 1, count, cells));
            }
        }
}

void TestAttentionOverview::badGridThrows()
{
    HeadTensor q(3, 1, 4), k(3, 1, 4);
    const std::vector<double> lse(3, 0.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, attentionOverview(q, k, lse, {}, 0, 0, 3));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, attentionOverview(q, k, lse, {}, 1, 3, 3));
}

QTEST_GUILESS_MAIN(TestAttentionOverview)
#include "tst_attentionoverview.moc"
