// The small-model verdicts (analysis/modellimits.h, issue 36 point 1) on hand-made numbers: head statistics
// around the "Find sink / no-op heads" thresholds, attention maps whose total variation distance is
// computed here by hand, and parameter counts either side of 10 M.

#include "analysis/modellimits.h"

#include <QtTest>
#include <cmath>
#include <stdexcept>

using namespace attnscope;

namespace {

HeadStats head(int layer, int index, double sinkMass, double sepMass)
{
    HeadStats s;
    s.layer = layer;
    s.head = index;
    s.sinkMass = sinkMass;
    s.sepMass = sepMass;
    return s;
}

} // namespace

class TestModelLimits : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void strongestHead();
    void noSinkOrSep_data();
    void noSinkOrSep();
    void rowShift();
    void rowShiftShapes();
    void measures();
    void smallModels();
};

void TestModelLimits::strongestHead()
{
    QVERIFY(!strongestSinkOrSepHead({}).has_value());
    // The built-in encoder: its best [SEP] head at 0.28, under the 0.5 threshold.
    const std::vector<HeadStats> toy{head(0, 0, 0.10, 0.05), head(0, 1, 0.02, 0.28), head(1, 0, 0.20, 0.11),
                                     head(1, 1, 0.05, 0.27)};
    const auto best = strongestSinkOrSepHead(toy);
    QVERIFY(best.has_value());
    QCOMPARE(best->layer, 0);
    QCOMPARE(best->head, 1);
    QCOMPARE(best->mass, 0.28);
    QVERIFY(best->onSep);
    QVERIFY(!best->labelled);
    // A first-token sink beats a weaker [SEP] head, and is labelled at its threshold.
    const auto sink = strongestSinkOrSepHead({head(0, 0, 0.1, 0.6), head(2, 3, 0.9, 0.0)});
    QCOMPARE(sink->layer, 2);
    QCOMPARE(sink->head, 3);
    QVERIFY(!sink->onSep);
    QVERIFY(sink->labelled);
    // Thresholds decide "labelled", not the choice.
    LabelThresholds strict;
    strict.noOp = 0.7;
    const auto sep = strongestSinkOrSepHead({head(0, 0, 0.1, 0.6)}, strict);
    QVERIFY(sep->onSep);
    QVERIFY(!sep->labelled);
    // Ties keep the earlier head.
    const auto tie = strongestSinkOrSepHead({head(0, 2, 0.4, 0.0), head(1, 0, 0.0, 0.4)});
    QCOMPARE(tie->layer, 0);
    QCOMPARE(tie->head, 2);
}

void TestModelLimits::noSinkOrSep_data()
{
    QTest::addColumn<double>("sink");
    QTest::addColumn<double>("sep");
    QTest::addColumn<bool>("none");
    QTest::newRow("built-in encoder") << 0.10 << 0.28 << true;
    QTest::newRow("just under both") << 0.49 << 0.49 << true;
    QTest::newRow("sink at threshold") << 0.50 << 0.0 << false;
    QTest::newRow("[SEP] head at threshold") << 0.0 << 0.50 << false;
    QTest::newRow("BERT-base layer 8") << 0.05 << 0.71 << false;
}

void TestModelLimits::noSinkOrSep()
{
    QFETCH(double, sink);
    QFETCH(double, sep);
    QFETCH(bool, none);
    QCOMPARE(hasNoSinkOrSepHead({head(0, 0, 0.01, 0.02), head(0, 1, sink, sep)}), none);
    QVERIFY(!hasNoSinkOrSepHead({})); // nothing known: no verdict
}

void TestModelLimits::rowShift()
{
    // Two heads, two query rows, two keys. Head 0: row 0 moves 0.125 of its mass, row 1 nothing; head 1:
    // row 0 moves 0.25, row 1 moves 0.125. Mean over 4 rows of ½Σ|a−b|: (0.125 + 0 + 0.25 + 0.125) / 4.
    const DenseAttentionMaps weights(1, 2, 2, 2, std::vector<float>{1, 0, 0.5f, 0.5f, 0.5f, 0.5f, 1, 0});
    const DenseAttentionMaps norm(
        1, 2, 2, 2, std::vector<float>{0.875f, 0.125f, 0.5f, 0.5f, 0.25f, 0.75f, 0.875f, 0.125f});
    QCOMPARE(meanRowShift(weights, norm), 0.125);
    QCOMPARE(meanRowShift(norm, weights), 0.125);
    QCOMPARE(meanRowShift(weights, weights), 0.0);

    // One row of four moving 0.125: 0.03125 on average, within 5%.
    const DenseAttentionMaps close(1, 2, 2, 2,
                                   std::vector<float>{0.875f, 0.125f, 0.5f, 0.5f, 0.5f, 0.5f, 1, 0});
    QCOMPARE(meanRowShift(weights, close), 0.03125);
}

void TestModelLimits::measures()
{
    // Key 0 is [CLS], key 1 a word. Weights: row 0 all on [CLS], row 1 half and half: share 0.75.
    const DenseAttentionMaps weights(1, 1, 2, 2, std::vector<float>{1, 0, 0.5f, 0.5f});
    QCOMPARE(specialTokenShare(weights, {0}), 0.75);
    QCOMPARE(specialTokenShare(weights, {0, 1, 7, -1}), 1.0); // out-of-range positions ignored
    // Kobayashi's case: the norm measure takes [CLS] down to 0.25 (row 0: 0.5, row 1: 0): shift 0.5.
    const DenseAttentionMaps kobayashi(1, 1, 2, 2, std::vector<float>{0.5f, 0.5f, 0, 1});
    MeasureComparison shown = compareMeasures(weights, kobayashi, {0});
    QCOMPARE(shown.rowShift, 0.5);
    QCOMPARE(shown.normSpecialShare, 0.25);
    QVERIFY(!shown.normShowsNothingNew());
    // Maps within 5%: row 1 moves 0.0625 (mean 0.03125) and the share falls by 0.03125 / 0.75 = 4.2%.
    const DenseAttentionMaps close(1, 1, 2, 2, std::vector<float>{1, 0, 0.4375f, 0.5625f});
    QVERIFY(compareMeasures(weights, close, {0}).normShowsNothingNew());
    // The maps move (shift 0.25) but towards [CLS]: its share rises, so nothing of the point shows.
    const DenseAttentionMaps rises(1, 1, 2, 2, std::vector<float>{1, 0, 1, 0});
    const MeasureComparison up = compareMeasures(weights, rises, {0});
    QCOMPARE(up.rowShift, 0.25);
    QVERIFY(up.normShowsNothingNew());
    // The share falls by 0.125 / 0.75 = 16.7% and the maps move 0.125: the point shows.
    const DenseAttentionMaps falls(1, 1, 2, 2, std::vector<float>{1, 0, 0.25f, 0.75f});
    QVERIFY(!compareMeasures(weights, falls, {0}).normShowsNothingNew());
    MeasureComparison broken = shown;
    broken.rowShift = std::nan("");
    QVERIFY(!broken.normShowsNothingNew()); // unknown: no verdict
}

void TestModelLimits::rowShiftShapes()
{
    const DenseAttentionMaps a(1, 1, 2, 2, std::vector<float>{1, 0, 0, 1});
    const DenseAttentionMaps b(1, 2, 2, 2, std::vector<float>(8, 0.5f));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, meanRowShift(a, b));
}

void TestModelLimits::smallModels()
{
    QVERIFY(tooSmallToPredict(4'390)); // stories260K-sized
    QVERIFY(tooSmallToPredict(9'999'999));
    QVERIFY(!tooSmallToPredict(10'000'000));
    QVERIFY(!tooSmallToPredict(110'000'000)); // bert-base-uncased
    QVERIFY(!tooSmallToPredict(0));           // unknown
}

QTEST_GUILESS_MAIN(TestModelLimits)
#include "tst_model_limits.moc"
