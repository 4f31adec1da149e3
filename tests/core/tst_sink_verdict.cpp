// The sink verdict (analysis/sinkverdict.h, issue 34 point 5): decided from the numbers, never the name.
// Streaming runs built by hand with known NLLs (perplexity = exp(mean NLL), so each figure is computed here),
// and head statistics around the "Find sink / no-op heads" threshold.

#include "analysis/sinkverdict.h"

#include <QtTest>
#include <cmath>

using namespace attnscope;

namespace {

// A sinks+window run whose predictions once the cache is full have perplexity `perplexity`.
StreamEvaluation run(int sinks, double perplexity, int fullCacheFrom = 3)
{
    StreamEvaluation e;
    e.policy = CachePolicy::sinksWindow(4, sinks);
    e.tokens = 9;
    e.nll.assign(3, 10.0f); // before the cache is full: not counted
    e.nll.resize(8, float(std::log(perplexity)));
    e.fullCacheFrom = fullCacheFrom;
    return e;
}

HeadStats head(double sinkMass)
{
    HeadStats s;
    s.sinkMass = sinkMass;
    return s;
}

} // namespace

class TestSinkVerdict : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void streaming_data();
    void streaming();
    void streamingNeedsBothRuns();
    void heads();
};

void TestSinkVerdict::streaming_data()
{
    QTest::addColumn<double>("window");
    QTest::addColumn<double>("sinks");
    QTest::addColumn<int>("verdict");
    // docs/streaming-llm.md's built-in decoder: 34.11 window-only against 34.01 with 4 sinks.
    QTest::newRow("built-in decoder") << 34.11 << 34.01 << int(SinkVerdict::NoSinks);
    QTest::newRow("4.9% apart") << 10.49 << 10.0 << int(SinkVerdict::NoSinks);
    QTest::newRow("5.1% apart") << 10.51 << 10.0 << int(SinkVerdict::Sinks);
    QTest::newRow("window better by 10%") << 9.0 << 10.0 << int(SinkVerdict::Sinks);
    // Xiao et al. 2024 table 1, Llama-2-7B: 3359.95 against 9.59.
    QTest::newRow("StreamingLLM paper") << 3359.95 << 9.59 << int(SinkVerdict::Sinks);
}

void TestSinkVerdict::streaming()
{
    QFETCH(double, window);
    QFETCH(double, sinks);
    QFETCH(int, verdict);
    const std::vector<StreamEvaluation> runs{StreamEvaluation{}, run(1, 1e6), run(0, window), run(4, sinks)};
    const StreamingSinkEvidence evidence = streamingSinkVerdict(runs);
    QCOMPARE(int(evidence.verdict), verdict);
    QCOMPARE(evidence.sinks, 4); // the most sinks run, not the first
    QVERIFY(std::abs(evidence.windowPerplexity - window) < 1e-4 * window);
    QVERIFY(std::abs(evidence.sinksPerplexity - sinks) < 1e-4 * sinks);
}

void TestSinkVerdict::streamingNeedsBothRuns()
{
    QCOMPARE(int(streamingSinkVerdict({run(0, 10)}).verdict), int(SinkVerdict::Unknown));
    QCOMPARE(int(streamingSinkVerdict({run(4, 10)}).verdict), int(SinkVerdict::Unknown));
    // The text never filled the cache: no eviction happened, nothing to compare.
    QCOMPARE(int(streamingSinkVerdict({run(0, 10, -1), run(4, 10, -1)}).verdict), int(SinkVerdict::Unknown));
    QCOMPARE(int(streamingSinkVerdict({}).verdict), int(SinkVerdict::Unknown));
}

void TestSinkVerdict::heads()
{
    const LabelThresholds thresholds; // sink at 0.5, as "Find sink / no-op heads" labels
    QCOMPARE(int(headSinkVerdict({}).verdict), int(SinkVerdict::Unknown));
    // stories260K-like: 0.00-0.03 on the first token in every head.
    HeadSinkEvidence none = headSinkVerdict({head(0.0), head(0.03), head(0.01)}, thresholds);
    QCOMPARE(int(none.verdict), int(SinkVerdict::NoSinks));
    QCOMPARE(none.largestSinkMass, 0.03);
    HeadSinkEvidence below = headSinkVerdict({head(0.49), head(0.2)}, thresholds);
    QCOMPARE(int(below.verdict), int(SinkVerdict::NoSinks));
    HeadSinkEvidence one = headSinkVerdict({head(0.1), head(0.5), head(0.9)}, thresholds);
    QCOMPARE(int(one.verdict), int(SinkVerdict::Sinks));
    QCOMPARE(one.sinkHeads, 2);
    LabelThresholds strict;
    strict.sink = 0.95;
    QCOMPARE(int(headSinkVerdict({head(0.9)}, strict).verdict), int(SinkVerdict::NoSinks));
}

QTEST_GUILESS_MAIN(TestSinkVerdict)
#include "tst_sink_verdict.moc"
