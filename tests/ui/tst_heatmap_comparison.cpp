// The comparison tab's plain data (render/heatmapcomparison.h), tested without a window: the difference of
// two heads and one head of two sentences on their aligned tokens, checked against numbers worked by hand.

#include "render/heatmapcomparison.h"

#include <QtTest>

using namespace attnscope;

namespace {
HeatmapData square(int n, std::vector<float> values, QStringList labels)
{
    HeatmapData d;
    d.rows = d.cols = n;
    d.values = std::move(values);
    d.rowLabels = d.colLabels = std::move(labels);
    return d;
}
} // namespace

class TestHeatmapComparison : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // a − b cell by cell; the colour bar spans ±(the largest |a − b|) = 0.3 here (0.2 − 0.5), so a 0.05
    // difference is not drawn white; labels and mask are a's.
    void differenceIsScaledToItsLargestCell()
    {
        HeatmapData a = square(2, {0.6f, 0.4f, 0.2f, 0.8f}, {QStringLiteral("x"), QStringLiteral("y")});
        a.causal = true;
        const HeatmapData b =
            square(2, {0.55f, 0.45f, 0.5f, 0.5f}, {QStringLiteral("p"), QStringLiteral("q")});
        float largest = -1;
        const HeatmapData d = heatmapDifference(a, b, &largest);
        const float expected[] = {0.05f, -0.05f, -0.3f, 0.3f};
        for (int i = 0; i < 4; ++i)
            QVERIFY(std::abs(d.values[size_t(i)] - expected[i]) < 1e-6f);
        QVERIFY(std::abs(largest - 0.3f) < 1e-6f);
        QVERIFY(d.signedValues);
        QCOMPARE(d.signedRange, largest);
        QCOMPARE(d.rowLabels, a.rowLabels);
        QVERIFY(d.causal);
    }

    // Identical heads: no difference anywhere, and the colour bar still spans ±1 (not ±0).
    void identicalHeadsKeepAUnitScale()
    {
        const HeatmapData a = square(2, {0.5f, 0.5f, 1.0f, 0.0f}, {QStringLiteral("x"), QStringLiteral("y")});
        float largest = -1;
        const HeatmapData d = heatmapDifference(a, a, &largest);
        QCOMPARE(largest, 0.0f);
        QCOMPARE(d.signedRange, 1.0f);
        for (float v : d.values)
            QCOMPARE(v, 0.0f);
    }

    // Sentence a has 3 tokens, b has 2; a's token 1 has no partner: pairs (0,0), (2,1). The aligned
    // matrices hold rows/columns {0, 2} of a and {0, 1} of b; the difference is labelled "a/b" where the
    // tokens differ; the special marks are a's.
    void alignedHeadsKeepOnlyPairedTokens()
    {
        const QStringList la{QStringLiteral("[CLS]"), QStringLiteral("big"), QStringLiteral("box")};
        const QStringList lb{QStringLiteral("[CLS]"), QStringLiteral("bag")};
        // a(i, j) = 10 i + j, b(i, j) = 100 + 10 i + j: every cell says where it came from.
        const HeatmapData a = square(3, {0, 1, 2, 10, 11, 12, 20, 21, 22}, la);
        const HeatmapData b = square(2, {100, 101, 110, 111}, lb);
        const AlignedHeatmaps r = alignHeatmaps(a, la, {true, false, false}, b, lb, {{0, 0}, {2, 1}});
        QCOMPARE(r.first.rows, 2);
        QCOMPARE(r.first.cols, 2);
        QCOMPARE(r.first.values, (std::vector<float>{0, 2, 20, 22}));
        QCOMPARE(r.second.values, (std::vector<float>{100, 101, 110, 111}));
        QCOMPARE(r.first.rowLabels, (QStringList{QStringLiteral("[CLS]"), QStringLiteral("box")}));
        QCOMPARE(r.second.colLabels, lb);
        QCOMPARE(r.first.specialRows, (std::vector<bool>{true, false}));
        QCOMPARE(r.second.specialCols, (std::vector<bool>{true, false}));
        QCOMPARE(r.difference.values, (std::vector<float>{-100, -99, -90, -89}));
        QCOMPARE(r.differenceRange, 100.0f);
        QCOMPARE(r.difference.signedRange, 100.0f);
        QCOMPARE(r.difference.rowLabels, (QStringList{QStringLiteral("[CLS]"), QStringLiteral("box/bag")}));
        QCOMPARE(r.difference.colLabels, r.difference.rowLabels);
    }
};

QTEST_GUILESS_MAIN(TestHeatmapComparison)
#include "tst_heatmap_comparison.moc"
