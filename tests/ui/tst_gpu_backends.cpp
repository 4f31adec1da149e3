// Every attention backend (CPU, Vulkan, OpenGL) against the CPU core, one data row per backend and case,
// as qtbase's tst_qrhi does for its graphics backends. Runs on Mesa's lavapipe and llvmpipe in CI
// (under xvfb-run); a backend that cannot start is skipped only after its fallback has been checked.

#include "attention/attention.h"
#include "attention/attentionoverview.h"
#include "backend/attentionbackend.h"
#include "support/testdata.h"

#include <QProcess>
#include <QThread>
#include <QTimer>
#include <QtTest>
#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <random>

using namespace attnscope;
using namespace attnscope::testing;

Q_DECLARE_METATYPE(attnscope::BackendKind)

namespace {

struct AttentionCase
{
    int queries = 0, keys = 0, dim = 0, heads = 0, kvHeads = 0;
    bool causal = false;
    int queryOffset = 0;
    bool rope = false;
    RopePairing pairing = RopePairing::RotateHalf;
    int rotaryDim = 0;
    bool padding = false;
    float softCap = 0.0f;  // Gemma 2's attention logit soft cap
    int slidingWindow = 0; // Mistral, Gemma 2/3
};

} // namespace

Q_DECLARE_METATYPE(AttentionCase)

namespace {

struct Inputs
{
    HeadTensor q, k, v;
    AttentionOptions options;
};

Inputs makeInputs(const AttentionCase& c, unsigned seed)
{
    std::mt19937 rng(seed);
    Inputs in;
    // Scores with a standard deviation near 2: peaked rows and flat ones, as real heads have.
    in.q = randomHeadTensor(c.queries, c.heads, c.dim, rng, 1.4f);
    in.k = randomHeadTensor(c.keys, c.kvHeads, c.dim, rng, 1.4f);
    in.v = randomHeadTensor(c.keys, c.kvHeads, c.dim, rng, 1.0f);
    in.options.causal = c.causal;
    in.options.queryPositionOffset = c.queryOffset;
    in.options.rope.enabled = c.rope;
    in.options.rope.pairing = c.pairing;
    in.options.rope.rotaryDim = c.rotaryDim;
    in.options.softCap = c.softCap;
    in.options.slidingWindow = c.slidingWindow;
    if (c.padding) {
        in.options.keyPadding.assign(size_t(c.keys), 1);
        for (int j = 0; j < c.keys; j += 7)
            in.options.keyPadding[size_t(j)] = 0;
    }
    return in;
}

} // namespace

class TestGpuBackends : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void backendsMatchCpu_data();
    void backendsMatchCpu();
    void oneByOneCellsAreTheMatrix_data();
    void oneByOneCellsAreTheMatrix();
    void headDimAboveKernelLimitFallsBack_data();
    void headDimAboveKernelLimitFallsBack();
    void softCapAndWindowFallBack_data();
    void softCapAndWindowFallBack();
    void injectedStartFailureFallsBack_data();
    void injectedStartFailureFallsBack();
    void deviceLostMidwayFallsBack_data();
    void deviceLostMidwayFallsBack();
    void badInputThrowsOnEveryBackend_data();
    void badInputThrowsOnEveryBackend();
    void workOffTheGuiThreadKeepsEventsFlowing_data();
    void workOffTheGuiThreadKeepsEventsFlowing();

private:
    // The backend for a row, created once; null with the reason when it cannot start here.
    AttentionBackend* backendFor(BackendKind kind, QString* whyNot);
    static void addBackendCaseColumns();
    void addBackendRows(const char* caseName, const AttentionCase& c);

    struct Started
    {
        std::unique_ptr<AttentionBackend> backend;
        QString notice;
    };
    std::map<BackendKind, Started> m_backends;
};

void TestGpuBackends::initTestCase()
{
    for (BackendKind kind : {BackendKind::Cpu, BackendKind::Vulkan, BackendKind::OpenGL}) {
        QString notice;
        std::unique_ptr<AttentionBackend> backend = createBackend(kind, &notice);
        qInfo("%s: %s%s", qPrintable(backendKindName(kind)),
              qPrintable(backend->name() + QStringLiteral(" on ") + backend->deviceName()),
              qPrintable(notice.isEmpty() ? QString() : QStringLiteral(" (") + notice + QLatin1Char(')')));
        m_backends[kind] = Started{std::move(backend), notice};
    }
}

void TestGpuBackends::cleanupTestCase()
{
    m_backends.clear();
}

// In a test function: the row's started backend of its `kind` column, or the function is skipped saying why
// it could not start (QFETCH and QSKIP work only in the test function itself).
#define FETCH_STARTED_BACKEND_OR_SKIP(backend)                                                               \
    QFETCH(BackendKind, kind);                                                                               \
    QString whyNot;                                                                                          \
    AttentionBackend* backend = backendFor(kind, &whyNot);                                                   \
    if (!backend) QSKIP(qPrintable(whyNot))

AttentionBackend* TestGpuBackends::backendFor(BackendKind kind, QString* whyNot)
{
    Started& started = m_backends.at(kind);
    if (started.backend->kind() != kind) {
        // It could not start: the factory must have said why and handed out the CPU.
        *whyNot = started.notice;
        return nullptr;
    }
    return started.backend.get();
}

void TestGpuBackends::addBackendCaseColumns()
{
    QTest::addColumn<BackendKind>("kind");
    QTest::addColumn<AttentionCase>("attentionCase");
}

void TestGpuBackends::addBackendRows(const char* caseName, const AttentionCase& c)
{
    for (BackendKind kind : {BackendKind::Cpu, BackendKind::Vulkan, BackendKind::OpenGL})
        QTest::addRow("%s:%s", qPrintable(backendKindName(kind)), caseName) << kind << c;
}

void TestGpuBackends::backendsMatchCpu_data()
{
    addBackendCaseColumns();
    //                                       n_q   n_k   d  H  Hkv causal off  rope  pairing rdim pad
    addBackendRows("n1-d32-causal", {1, 1, 32, 4, 4, true, 0, false, RopePairing::RotateHalf, 0, false});
    addBackendRows("n5-d64-gqa4-causal-rope",
                   {5, 5, 64, 8, 2, true, 0, true, RopePairing::RotateHalf, 0, false});
    addBackendRows("n64-d128-rope-interleaved-partial",
                   {64, 64, 128, 4, 4, false, 0, true, RopePairing::Interleaved, 64, false});
    addBackendRows("n64-d32-decode-offset-causal",
                   {16, 64, 32, 4, 1, true, 48, true, RopePairing::RotateHalf, 0, false});
    addBackendRows("n257-d64-gqa4-padding",
                   {257, 257, 64, 4, 1, false, 0, false, RopePairing::RotateHalf, 0, true});
    addBackendRows("n257-d128-causal-rope",
                   {257, 257, 128, 2, 2, true, 0, true, RopePairing::RotateHalf, 0, false});
    addBackendRows("n257-d32-causal-padding",
                   {257, 257, 32, 2, 2, true, 0, false, RopePairing::RotateHalf, 0, true});
    addBackendRows("n2048-d64-gqa4-causal-rope",
                   {2048, 2048, 64, 4, 1, true, 0, true, RopePairing::RotateHalf, 0, false});
    addBackendRows("n2048-d32", {2048, 2048, 32, 2, 2, false, 0, false, RopePairing::RotateHalf, 0, false});
}

// Forward (O and, through the tiles, L), probability tiles and the overview against the CPU core.
void TestGpuBackends::backendsMatchCpu()
{
    QFETCH(BackendKind, kind);
    QFETCH(AttentionCase, attentionCase);
    const AttentionCase& c = attentionCase;
    QString whyNot;
    AttentionBackend* backend = backendFor(kind, &whyNot);
    if (!backend) {
        // The fallback handed out for this kind is the CPU, with a notice, and gives the CPU's numbers.
        Started& started = m_backends.at(kind);
        QVERIFY(!started.notice.isEmpty());
        QCOMPARE(started.backend->kind(), BackendKind::Cpu);
        const Inputs in = makeInputs(c, 7);
        const TiledAttentionResult fallback = started.backend->tiledForward(in.q, in.k, in.v, in.options);
        const TiledAttentionResult cpu = attentionTiled(in.q, in.k, in.v, in.options);
        QCOMPARE(fallback.output.values, cpu.output.values);
        QSKIP(qPrintable(QStringLiteral("%1 cannot start here: %2").arg(backendKindName(kind), whyNot)));
    }
    QStringList notices;
    backend->setNoticeHandler([&](const QString& n) { notices << n; });

    const Inputs in = makeInputs(c, unsigned(c.queries * 131 + c.dim * 7 + c.heads));
    const TiledAttentionResult cpu = attentionTiled(in.q, in.k, in.v, in.options);
    const TiledAttentionResult got = backend->tiledForward(in.q, in.k, in.v, in.options);
    QVERIFY2(notices.isEmpty(), qPrintable(notices.join(QLatin1Char('\n'))));
    QCOMPARE(got.output.tokens, c.queries);
    QCOMPARE(got.output.heads, c.heads);
    const double outputError = maxAbsDifference(got.output.values, cpu.output.values);
    QVERIFY2(outputError <= 1e-4, qPrintable(QStringLiteral("O differs by %1").arg(outputError)));
    QCOMPARE(got.logSumExp.size(), cpu.logSumExp.size());
    for (size_t i = 0; i < cpu.logSumExp.size(); ++i)
        QCOMPARE(std::isinf(got.logSumExp[i]), std::isinf(cpu.logSumExp[i]));

    // Probabilities: each from its own L, so the whole chain forward -> L -> tile is compared.
    const RotatedQueryKey rotated = rotateForAttention(in.q, in.k, in.options);
    struct Rect
    {
        int head, q0, q1, k0, k1;
    };
    std::vector<Rect> rects;
    if (c.queries <= 257) {
        for (int h = 0; h < c.heads; ++h)
            rects.push_back({h, 0, c.queries, 0, c.keys});
    } else {
        rects.push_back({0, 0, 64, 0, 64});
        rects.push_back({c.heads - 1, c.queries - 100, c.queries, c.keys - 300, c.keys});
        rects.push_back({std::min(1, c.heads - 1), c.queries / 2, c.queries / 2 + 17, 0, c.keys});
        rects.push_back({0, 5, 6, 3, c.keys - 49});
    }
    for (const Rect& r : rects) {
        const std::vector<float> expected = probabilityTile(rotated.queries, rotated.keys, cpu.logSumExp,
                                                            in.options, r.head, r.q0, r.q1, r.k0, r.k1);
        const std::vector<float> tile = backend->probabilityTile(rotated.queries, rotated.keys, got.logSumExp,
                                                                 in.options, r.head, r.q0, r.q1, r.k0, r.k1);
        const double error = maxAbsDifference(tile, expected);
        QVERIFY2(error <= 1e-5, qPrintable(QStringLiteral("P tile head %1 [%2,%3)x[%4,%5) differs by %6")
                                               .arg(r.head)
                                               .arg(r.q0)
                                               .arg(r.q1)
                                               .arg(r.k0)
                                               .arg(r.k1)
                                               .arg(error)));
    }

    // Overview from the CPU's L on both sides: the operation itself is compared.
    struct Grid
    {
        int cols, rows;
    };
    for (const Grid g : {Grid{64, 32}, Grid{7, 300}}) {
        for (int head : {0, c.heads - 1}) {
            const AttentionOverview expected = attentionOverview(rotated.queries, rotated.keys, cpu.logSumExp,
                                                                 in.options, head, g.cols, g.rows);
            const AttentionOverview ov = backend->overview(rotated.queries, rotated.keys, cpu.logSumExp,
                                                           in.options, head, g.cols, g.rows);
            QCOMPARE(ov.rows, expected.rows);
            QCOMPARE(ov.cols, expected.cols);
            const double maxError = maxAbsDifference(ov.pooledMax, expected.pooledMax);
            const double meanError = maxAbsDifference(ov.pooledMean, expected.pooledMean);
            const double columnError = maxAbsDifference(ov.columnSums, expected.columnSums);
            const double entropyError = maxAbsDifference(ov.rowEntropies, expected.rowEntropies);
            const QString what =
                QStringLiteral("overview %1x%2 head %3: max %4, mean %5, column sums %6, entropies %7")
                    .arg(g.cols)
                    .arg(g.rows)
                    .arg(head)
                    .arg(maxError)
                    .arg(meanError)
                    .arg(columnError)
                    .arg(entropyError);
            QVERIFY2(maxError <= 1e-5 && meanError <= 1e-5 && columnError <= 1e-5 && entropyError <= 1e-5,
                     qPrintable(what));
        }
    }
    QVERIFY2(notices.isEmpty(), qPrintable(notices.join(QLatin1Char('\n'))));
    QCOMPARE(backend->kind(), kind); // still on the GPU: nothing fell back silently
}

void TestGpuBackends::oneByOneCellsAreTheMatrix_data()
{
    addBackendCaseColumns();
    addBackendRows("n40-d32-causal", {40, 40, 32, 2, 1, true, 0, false, RopePairing::RotateHalf, 0, false});
}

// With at least one cell per entry the overview is P itself, and the statistics are those of the full
// matrix from attentionFull: an independent truth for the pooled and summed quantities.
void TestGpuBackends::oneByOneCellsAreTheMatrix()
{
    FETCH_STARTED_BACKEND_OR_SKIP(backend);
    QFETCH(AttentionCase, attentionCase);
    const Inputs in = makeInputs(attentionCase, 3);
    const FullAttentionResult full = attentionFull(in.q, in.k, in.v, in.options);
    const TiledAttentionResult tiled = backend->tiledForward(in.q, in.k, in.v, in.options);
    const RotatedQueryKey rotated = rotateForAttention(in.q, in.k, in.options);
    const int n = attentionCase.queries;
    for (int head = 0; head < attentionCase.heads; ++head) {
        const AttentionOverview ov =
            backend->overview(rotated.queries, rotated.keys, tiled.logSumExp, in.options, head, 1000, 1000);
        QCOMPARE(ov.rows, n);
        QCOMPARE(ov.cols, n);
        for (int i = 0; i < n; ++i) {
            double entropy = 0;
            for (int j = 0; j < n; ++j) {
                const float p = full.probability(head, i, j);
                QVERIFY(std::abs(ov.pooledMax[size_t(i * n + j)] - p) <= 1e-5);
                QVERIFY(std::abs(ov.pooledMean[size_t(i * n + j)] - p) <= 1e-5);
                if (p > 0) entropy -= double(p) * std::log(double(p));
            }
            QVERIFY(std::abs(ov.rowEntropies[size_t(i)] - entropy) <= 1e-5);
        }
        for (int j = 0; j < n; ++j) {
            double column = 0;
            for (int i = 0; i < n; ++i)
                column += full.probability(head, i, j);
            QVERIFY(std::abs(ov.columnSums[size_t(j)] - column) <= 1e-5);
        }
    }
}

void TestGpuBackends::headDimAboveKernelLimitFallsBack_data()
{
    addBackendCaseColumns();
    addBackendRows("n33-d256", {33, 33, 256, 2, 2, true, 0, false, RopePairing::RotateHalf, 0, false});
}

// A head larger than the kernels take is computed on the CPU, with one notice, and exactly.
void TestGpuBackends::headDimAboveKernelLimitFallsBack()
{
    FETCH_STARTED_BACKEND_OR_SKIP(backend);
    QFETCH(AttentionCase, attentionCase);
    QStringList notices;
    backend->setNoticeHandler([&](const QString& n) { notices << n; });
    const Inputs in = makeInputs(attentionCase, 11);
    const TiledAttentionResult got = backend->tiledForward(in.q, in.k, in.v, in.options);
    const TiledAttentionResult cpu = attentionTiled(in.q, in.k, in.v, in.options);
    QCOMPARE(got.output.values, cpu.output.values);
    QCOMPARE(got.logSumExp, cpu.logSumExp);
    if (backend->maxHeadDim() > 0 && backend->maxHeadDim() < attentionCase.dim)
        QCOMPARE(notices.size(), 1);
    else
        QVERIFY(notices.isEmpty());
    backend->setNoticeHandler({});
}

void TestGpuBackends::softCapAndWindowFallBack_data()
{
    addBackendCaseColumns();
    AttentionCase capped{40, 40, 32, 2, 1, true, 0, false, RopePairing::RotateHalf, 0, false};
    capped.softCap = 3.0f;
    addBackendRows("n40-d32-softcap", capped);
    AttentionCase windowed{70, 70, 32, 2, 2, true, 0, false, RopePairing::RotateHalf, 0, false};
    windowed.slidingWindow = 9;
    addBackendRows("n70-d32-window9", windowed);
}

// The kernels have no soft cap and no sliding window: those layers are computed on the CPU, exactly, with at
// most one notice per backend, and the backend stays on the GPU for everything else.
void TestGpuBackends::softCapAndWindowFallBack()
{
    FETCH_STARTED_BACKEND_OR_SKIP(backend);
    QFETCH(AttentionCase, attentionCase);
    QStringList notices;
    backend->setNoticeHandler([&](const QString& n) { notices << n; });
    const Inputs in = makeInputs(attentionCase, 13);
    const TiledAttentionResult got = backend->tiledForward(in.q, in.k, in.v, in.options);
    const TiledAttentionResult cpu = attentionTiled(in.q, in.k, in.v, in.options);
    QCOMPARE(got.output.values, cpu.output.values);
    QCOMPARE(got.logSumExp, cpu.logSumExp);
    const std::vector<float> tile = backend->probabilityTile(in.q, in.k, cpu.logSumExp, in.options, 1, 0,
                                                             attentionCase.queries, 0, attentionCase.keys);
    QCOMPARE(tile, probabilityTile(in.q, in.k, cpu.logSumExp, in.options, 1, 0, attentionCase.queries, 0,
                                   attentionCase.keys));
    QVERIFY(notices.size() <= 1);
    QCOMPARE(backend->kind(), kind);
    backend->setNoticeHandler({});
}

void TestGpuBackends::injectedStartFailureFallsBack_data()
{
    QTest::addColumn<QString>("fault");
    QTest::addColumn<BackendKind>("kind");
    for (const char* fault : {"start", "pipeline"})
        for (BackendKind kind : {BackendKind::Auto, BackendKind::Vulkan, BackendKind::OpenGL})
            QTest::addRow("%s:%s", fault, qPrintable(backendKindName(kind)))
                << QString::fromLatin1(fault) << kind;
}

// A GPU that cannot start (or whose pipelines will not build) gives the CPU backend and a notice.
void TestGpuBackends::injectedStartFailureFallsBack()
{
    QFETCH(QString, fault);
    QFETCH(BackendKind, kind);
    qputenv("ATTNSCOPE_GPU_FAULT", fault.toLatin1());
    QString notice;
    std::unique_ptr<AttentionBackend> backend = createBackend(kind, &notice);
    qunsetenv("ATTNSCOPE_GPU_FAULT");
    QCOMPARE(backend->kind(), BackendKind::Cpu);
    QVERIFY(notice.contains(QLatin1String("using the CPU")));
    QVERIFY(!notice.contains(QLatin1Char('\n')));
    const Inputs in = makeInputs({9, 9, 16, 2, 1, true, 0, true, RopePairing::RotateHalf, 0, false}, 5);
    QCOMPARE(backend->tiledForward(in.q, in.k, in.v, in.options).output.values,
             attentionTiled(in.q, in.k, in.v, in.options).output.values);
}

void TestGpuBackends::deviceLostMidwayFallsBack_data()
{
    QTest::addColumn<BackendKind>("kind");
    QTest::newRow("vulkan") << BackendKind::Vulkan;
    QTest::newRow("opengl") << BackendKind::OpenGL;
}

// A device lost after start: the operation returns the CPU's result, one notice, and the backend
// stays on the CPU afterwards.
void TestGpuBackends::deviceLostMidwayFallsBack()
{
    QFETCH(BackendKind, kind);
    QString notice;
    std::unique_ptr<AttentionBackend> backend = createBackend(kind, &notice);
    if (backend->kind() != kind) QSKIP(qPrintable(notice));
    QStringList notices;
    backend->setNoticeHandler([&](const QString& n) { notices << n; });
    const Inputs in = makeInputs({20, 20, 32, 2, 2, false, 0, false, RopePairing::RotateHalf, 0, false}, 9);
    qputenv("ATTNSCOPE_GPU_FAULT", "lost");
    const TiledAttentionResult first = backend->tiledForward(in.q, in.k, in.v, in.options);
    qunsetenv("ATTNSCOPE_GPU_FAULT");
    const TiledAttentionResult second = backend->tiledForward(in.q, in.k, in.v, in.options);
    const TiledAttentionResult cpu = attentionTiled(in.q, in.k, in.v, in.options);
    QCOMPARE(first.output.values, cpu.output.values);
    QCOMPARE(second.output.values, cpu.output.values);
    QCOMPARE(notices.size(), 1);
    QVERIFY(notices.first().contains(QLatin1String("device lost")));
    QCOMPARE(backend->kind(), BackendKind::Cpu);
}

void TestGpuBackends::badInputThrowsOnEveryBackend_data()
{
    QTest::addColumn<BackendKind>("kind");
    QTest::newRow("cpu") << BackendKind::Cpu;
    QTest::newRow("vulkan") << BackendKind::Vulkan;
    QTest::newRow("opengl") << BackendKind::OpenGL;
}

// Inconsistent shapes are the caller's error on every backend: std::invalid_argument, not a fallback.
void TestGpuBackends::badInputThrowsOnEveryBackend()
{
    FETCH_STARTED_BACKEND_OR_SKIP(backend);
    std::mt19937 rng(1);
    const HeadTensor q = randomHeadTensor(4, 3, 8, rng, 1), k = randomHeadTensor(4, 2, 8, rng, 1),
                     v = randomHeadTensor(4, 2, 8, rng, 1);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, backend->tiledForward(q, k, v, {}));
    const HeadTensor q2 = randomHeadTensor(4, 2, 8, rng, 1);
    const std::vector<double> lse(8, 0.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, backend->probabilityTile(q2, k, lse, {}, 0, 0, 5, 0, 4));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, backend->overview(q2, k, lse, {}, 0, 0, 4));
    QCOMPARE(backend->kind(), kind);
}

void TestGpuBackends::workOffTheGuiThreadKeepsEventsFlowing_data()
{
    QTest::addColumn<BackendKind>("kind");
    QTest::newRow("vulkan") << BackendKind::Vulkan;
    QTest::newRow("opengl") << BackendKind::OpenGL;
}

// A backend made on the GUI thread and used from a worker thread: the GPU work runs on the device's
// thread, the GUI thread's event loop keeps turning meanwhile, and the result is the CPU's.
void TestGpuBackends::workOffTheGuiThreadKeepsEventsFlowing()
{
    FETCH_STARTED_BACKEND_OR_SKIP(backend);
    const Inputs in =
        makeInputs({512, 512, 64, 4, 4, false, 0, false, RopePairing::RotateHalf, 0, false}, 21);
    TiledAttentionResult got;
    std::atomic<bool> done{false};
    QThread* worker = QThread::create([&] {
        got = backend->tiledForward(in.q, in.k, in.v, in.options);
        done = true;
    });
    int ticks = 0;
    QTimer timer;
    QObject::connect(&timer, &QTimer::timeout, [&] { ++ticks; });
    timer.start(5);
    worker->start();
    QTRY_VERIFY_WITH_TIMEOUT(done, 120000);
    worker->wait();
    delete worker;
    QVERIFY2(ticks >= 2, qPrintable(QStringLiteral("the GUI thread's timer ran %1 times").arg(ticks)));
    const TiledAttentionResult cpu = attentionTiled(in.q, in.k, in.v, in.options);
    QVERIFY(maxAbsDifference(got.output.values, cpu.output.values) <= 1e-4);
}

QTEST_MAIN(TestGpuBackends)
#include "tst_gpu_backends.moc"
