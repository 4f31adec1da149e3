// The CPU kernels at every instruction-set level this build carries and this CPU runs (baseline, avx2,
// avx512): each kernel against a plain double-precision loop, and the start-up choice against the CPU's
// features. Levels the CPU lacks are skipped here; tst_packaged_cpu runs them under qemu.

#include "core/support/kernelvariantrows.h"
#include "kernels/cpukernelselection.h"
#include "support/testdata.h"

#include <Eigen/Core>
#include <QDir>
#include <QtTest>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace attnscope;
using namespace attnscope::testing;
using namespace attnscope::kernels;

namespace {

std::vector<float> randomValues(size_t count, std::mt19937& random, float sigma = 1.0f)
{
    std::normal_distribution<float> normal(0.0f, sigma);
    std::vector<float> values(count);
    for (float& v : values)
        v = normal(random);
    return values;
}

// Row i of a strided matrix as doubles.
double at(const std::vector<float>& m, int stride, int row, int col)
{
    return double(m[size_t(row) * size_t(stride) + size_t(col)]);
}

// The score of one query row against key j, in double: q·kᵀ·scale, soft-capped as cap·tanh(s/cap) when
// cap > 0 (Gemma 2).
double referenceScore(const std::vector<float>& q, int qStride, int row, const std::vector<float>& k,
                      int kStride, int key, int dim, float scale, float softCap)
{
    double s = 0;
    for (int c = 0; c < dim; ++c)
        s += at(q, qStride, row, c) * at(k, kStride, key, c);
    s *= scale;
    return softCap > 0.0f ? softCap * std::tanh(s / softCap) : s;
}

// softmax(scores, masked) for one query row, in double: the reference for P.
std::vector<double> referenceProbabilities(const std::vector<float>& q, int qStride, int row,
                                           const std::vector<float>& k, int kStride, int keys, int dim,
                                           float scale, float softCap, const KeyMask& mask, int queryPosition)
{
    std::vector<double> p(size_t(keys), 0.0);
    double maxScore = -INFINITY;
    for (int j = 0; j < keys; ++j) {
        if (mask.masked(queryPosition, j)) continue;
        p[size_t(j)] = referenceScore(q, qStride, row, k, kStride, j, dim, scale, softCap);
        maxScore = std::max(maxScore, p[size_t(j)]);
    }
    if (maxScore == -INFINITY) return std::vector<double>(size_t(keys), 0.0);
    double sum = 0;
    for (int j = 0; j < keys; ++j)
        sum += (p[size_t(j)] = mask.masked(queryPosition, j) ? 0.0 : std::exp(p[size_t(j)] - maxScore));
    for (double& x : p)
        x /= sum;
    return p;
}

} // namespace

// The row's level loaded into `cpu`; the test function skips where this CPU cannot run that level.
#define FETCH_CPU_KERNELS_OR_SKIP(cpu)                                                                       \
    QFETCH(QString, variant);                                                                                \
    const CpuKernels* cpu = load(variant);                                                                   \
    if (!cpu) QSKIP("this CPU lacks the level")

class TestCpuKernels : public QObject
{
    Q_OBJECT
private:
    // One row per level this build has; the test skips a level the CPU cannot run.
    void variants()
    {
        addKernelVariantRows();
    }
    const CpuKernels* load(const QString& variant)
    {
        QString error;
        const CpuKernelChoice choice = loadCpuKernelVariant(variant, &error);
        if (!choice.kernels && !cpuRunsVariant(variant)) return nullptr;
        if (!choice.kernels) qWarning("%s", qPrintable(error));
        return choice.kernels;
    }

private Q_SLOTS:
    void choiceIsTheBestLevelThisCpuRuns()
    {
        const QStringList built = builtCpuKernelVariants();
        QVERIFY(!built.isEmpty());
        QString best;
        for (const QString& variant : built)
            if (cpuRunsVariant(variant)) best = variant;
        if (qEnvironmentVariableIsSet("ATTNSCOPE_CPU_KERNELS"))
            QSKIP("ATTNSCOPE_CPU_KERNELS is set: the choice is the environment's");
        const CpuKernelChoice& chosen = cpuKernelChoice();
        QCOMPARE(chosen.variant, best);
        QVERIFY2(chosen.note.isEmpty(), qPrintable(chosen.note));
        QCOMPARE(QLatin1String(chosen.kernels->variant), best);
        QVERIFY(chosen.description().startsWith(best + QStringLiteral(" (")));
    }

    void levelsMatchLibgcc()
    {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
        // libgcc's own definition of the psABI levels the modules are compiled for (-march=x86-64-v3/v4).
        __builtin_cpu_init();
        QCOMPARE(cpuRunsVariant(QStringLiteral("avx2")), __builtin_cpu_supports("x86-64-v3") != 0);
        QCOMPARE(cpuRunsVariant(QStringLiteral("avx512")), __builtin_cpu_supports("x86-64-v4") != 0);
#else
        QSKIP("GCC on x86-64 only");
#endif
    }

    // Modules come from bin/../lib/attnscope of the running executable: in the build tree,
    // <build>/lib/attnscope.
    void modulesLoadFromTheBuildTree_data()
    {
        variants();
    }
    void modulesLoadFromTheBuildTree()
    {
        QFETCH(QString, variant);
        if (!cpuRunsVariant(variant)) QSKIP("this CPU lacks the level");
        QString error;
        const CpuKernelChoice choice = loadCpuKernelVariant(variant, &error);
        QVERIFY2(choice.kernels, qPrintable(error));
        QCOMPARE(QLatin1String(choice.kernels->variant), variant);
        QCOMPARE(choice.kernels->abi, kCpuKernelsAbi);
        if (variant == QLatin1String("baseline") || variant == QLatin1String("native")) {
            QVERIFY(choice.module.isEmpty());
        } else {
            const QString expected = QDir::cleanPath(QCoreApplication::applicationDirPath() +
                                                     QStringLiteral("/../lib/attnscope/attnscope_cpu_") +
                                                     variant + QStringLiteral(".so"));
            QCOMPARE(choice.module, expected);
        }
    }

    void unknownOrMissingLevelsAreRefused()
    {
        QString error;
        QVERIFY(!loadCpuKernelVariant(QStringLiteral("avx1024"), &error).kernels);
        QVERIFY2(error.contains(QLatin1String("no avx1024 kernels")), qPrintable(error));
        for (const QString& variant : builtCpuKernelVariants()) {
            if (cpuRunsVariant(variant)) continue;
            QVERIFY(!loadCpuKernelVariant(variant, &error).kernels);
            QVERIFY2(error.contains(QLatin1String("this CPU lacks")), qPrintable(error));
        }
    }

    void fullAttentionHead_data()
    {
        variants();
    }
    void fullAttentionHead()
    {
        FETCH_CPU_KERNELS_OR_SKIP(cpu);
        std::mt19937 random(3);
        // Head slices of interleaved [tokens, heads, dim] tensors: stride 3·dim.
        const int queries = 37, keys = 41, dim = 24, stride = 3 * dim;
        const std::vector<float> q = randomValues(size_t(queries) * stride, random, 1.5f);
        const std::vector<float> k = randomValues(size_t(keys) * stride, random, 1.5f);
        const std::vector<float> v = randomValues(size_t(keys) * stride, random);
        std::vector<unsigned char> padding(size_t(keys), 1);
        padding[5] = padding[6] = 0;
        const float scale = 0.3f;
        struct Case
        {
            bool causal;
            int window;
            float softCap;
        };
        // Plain, causal, and causal with Mistral's sliding window and Gemma 2's soft cap (the scores'
        // standard deviation is about 0.3·1.5²·√24 ≈ 3.3 here, so a cap of 2.5 changes most of them).
        for (const Case& test : {Case{false, 0, 0.0f}, Case{true, 0, 0.0f}, Case{true, 7, 2.5f}}) {
            const bool causal = test.causal;
            KeyMask mask;
            mask.causal = causal;
            mask.queryPositionOffset = -3; // the first three queries see no key when causal
            mask.slidingWindow = test.window;
            mask.keyPadding = padding.data();
            std::vector<float> p(size_t(queries) * keys, -1.0f), out(size_t(queries) * stride, -1.0f);
            cpu->fullAttentionHead({q.data(), queries, dim, stride}, {k.data(), keys, dim, stride},
                                   {v.data(), keys, dim, stride}, scale, test.softCap, &mask, p.data(),
                                   {out.data(), queries, dim, stride});
            for (int i = 0; i < queries; ++i) {
                const std::vector<double> expected =
                    referenceProbabilities(q, stride, i, k, stride, keys, dim, scale, test.softCap, mask, i);
                for (int j = 0; j < keys; ++j)
                    QVERIFY2(std::abs(p[size_t(i) * keys + j] - expected[size_t(j)]) < 2e-6,
                             qPrintable(QStringLiteral("P[%1][%2] causal=%3 window=%4")
                                            .arg(i)
                                            .arg(j)
                                            .arg(causal)
                                            .arg(test.window)));
                for (int c = 0; c < dim; ++c) {
                    double o = 0;
                    for (int j = 0; j < keys; ++j)
                        o += expected[size_t(j)] * at(v, stride, j, c);
                    QVERIFY2(std::abs(out[size_t(i) * stride + c] - o) < 1e-5,
                             qPrintable(QStringLiteral("O[%1][%2] causal=%3 window=%4")
                                            .arg(i)
                                            .arg(c)
                                            .arg(causal)
                                            .arg(test.window)));
                }
            }
        }
    }

    // The online softmax over key blocks gives the full softmax's O and its logsumexp, and P = exp(S − L).
    void tiledAttentionAndTiles_data()
    {
        variants();
    }
    void tiledAttentionAndTiles()
    {
        FETCH_CPU_KERNELS_OR_SKIP(cpu);
        std::mt19937 random(5);
        const int queries = 20, keys = 77, dim = 16, keyBlock = 32, firstQuery = 40;
        const std::vector<float> q = randomValues(size_t(queries) * dim, random, 2.0f);
        const std::vector<float> k = randomValues(size_t(keys) * dim, random, 2.0f);
        const std::vector<float> v = randomValues(size_t(keys) * dim, random);
        const float scale = 0.25f;
        // Causal; then also a sliding window of 20 (so the first key block is wholly masked for the last
        // queries, which the online softmax must skip) and a soft cap of 4 (the scores' standard deviation is
        // about 0.25·2²·√16 = 4 here).
        for (const int window : {0, 20}) {
            const float softCap = window > 0 ? 4.0f : 0.0f;
            KeyMask mask;
            mask.causal = true; // query firstQuery + i sees keys 0..firstQuery + i + 1
            mask.queryPositionOffset = 1;
            mask.slidingWindow = window;
            // With the window, two padding keys inside the tile's columns (30..59) as well.
            std::vector<unsigned char> padding(size_t(keys), 1);
            padding[33] = padding[52] = 0;
            if (window > 0) mask.keyPadding = padding.data();
            std::vector<float> out(size_t(queries) * dim);
            std::vector<double> logSumExp(static_cast<size_t>(queries));
            cpu->tiledAttentionBlock({q.data(), queries, dim, dim}, firstQuery, {k.data(), keys, dim, dim},
                                     {v.data(), keys, dim, dim}, keyBlock, scale, softCap, &mask,
                                     {out.data(), queries, dim, dim}, logSumExp.data());
            std::vector<float> tile(size_t(queries) * 30);
            cpu->probabilityTile({q.data(), queries, dim, dim}, firstQuery,
                                 {k.data() + 30 * dim, 30, dim, dim}, 30, logSumExp.data(), scale, softCap,
                                 &mask, tile.data());
            for (int i = 0; i < queries; ++i) {
                const int position = firstQuery + i;
                const std::vector<double> p =
                    referenceProbabilities(q, dim, i, k, dim, keys, dim, scale, softCap, mask, position);
                double maxScore = -INFINITY, sum = 0;
                std::vector<double> scores(size_t(keys), -INFINITY);
                for (int j = 0; j < keys; ++j) {
                    if (mask.masked(position, j)) continue;
                    scores[size_t(j)] = referenceScore(q, dim, i, k, dim, j, dim, scale, softCap);
                    maxScore = std::max(maxScore, scores[size_t(j)]);
                }
                for (double s : scores)
                    if (s != -INFINITY) sum += std::exp(s - maxScore);
                QVERIFY2(std::abs(logSumExp[size_t(i)] - (maxScore + std::log(sum))) < 1e-5,
                         qPrintable(QStringLiteral("L[%1] window=%2").arg(i).arg(window)));
                for (int c = 0; c < dim; ++c) {
                    double o = 0;
                    for (int j = 0; j < keys; ++j)
                        o += p[size_t(j)] * at(v, dim, j, c);
                    QVERIFY2(std::abs(out[size_t(i) * dim + c] - o) < 1e-5,
                             qPrintable(QStringLiteral("O[%1][%2] window=%3").arg(i).arg(c).arg(window)));
                }
                for (int j = 0; j < 30; ++j)
                    QVERIFY2(std::abs(tile[size_t(i) * 30 + j] - p[size_t(30 + j)]) < 2e-6 &&
                                 (p[size_t(30 + j)] != 0.0 || tile[size_t(i) * 30 + j] == 0.0f),
                             qPrintable(QStringLiteral("tile[%1][%2] window=%3").arg(i).arg(j).arg(window)));
            }
        }
    }

    // A masked key weighs exactly 0 on every level, in P and in O. Eigen 3.4's SSE2 exp clamps its argument
    // to about -88.4, so exp(−inf − max) came out as 2.9e-39, not 0, on the baseline kernels: the CLI's npy
    // held that above the diagonal. Keys masked for every query here carry V = 3e38, which any nonzero weight
    // would bring into O (2.9e-39 · 3e38 ≈ 0.9): O must equal, bit for bit, O with those rows of V at 0.
    void maskedKeysWeighExactlyZero_data()
    {
        variants();
    }
    void maskedKeysWeighExactlyZero()
    {
        FETCH_CPU_KERNELS_OR_SKIP(cpu);
        std::mt19937 random(23);
        const int queries = 6, keys = 40, dim = 16, keyBlock = 16;
        const std::vector<float> q = randomValues(size_t(queries) * dim, random, 2.0f);
        const std::vector<float> k = randomValues(size_t(keys) * dim, random, 2.0f);
        std::vector<float> v = randomValues(size_t(keys) * dim, random);
        std::vector<unsigned char> padding(size_t(keys), 1);
        padding[2] = 0;
        KeyMask mask;
        mask.causal = true; // queries 0..5 see keys up to 0..5: keys 6.. are masked for all of them
        mask.slidingWindow = 4;
        mask.keyPadding = padding.data();
        std::vector<float> zeroed = v;
        for (int j = 0; j < keys; ++j) {
            bool maskedForAll = true;
            for (int i = 0; i < queries; ++i)
                maskedForAll = maskedForAll && mask.masked(i, j);
            if (!maskedForAll) continue;
            std::fill(v.begin() + std::ptrdiff_t(j) * dim, v.begin() + std::ptrdiff_t(j + 1) * dim, 3e38f);
            std::fill(zeroed.begin() + std::ptrdiff_t(j) * dim, zeroed.begin() + std::ptrdiff_t(j + 1) * dim,
                      0.0f);
        }
        const float scale = 0.25f;
        for (const float softCap : {0.0f, 5.0f}) {
            std::vector<float> p(size_t(queries) * keys, -1.0f), out(size_t(queries) * dim),
                outZeroed(size_t(queries) * dim);
            cpu->fullAttentionHead({q.data(), queries, dim, dim}, {k.data(), keys, dim, dim},
                                   {v.data(), keys, dim, dim}, scale, softCap, &mask, p.data(),
                                   {out.data(), queries, dim, dim});
            for (int i = 0; i < queries; ++i)
                for (int j = 0; j < keys; ++j)
                    QVERIFY2(mask.masked(i, j) ? p[size_t(i) * keys + j] == 0.0f
                                               : p[size_t(i) * keys + j] > 0.0f,
                             qPrintable(QStringLiteral("P[%1][%2] = %3, cap %4")
                                            .arg(i)
                                            .arg(j)
                                            .arg(double(p[size_t(i) * keys + j]))
                                            .arg(double(softCap))));
            cpu->fullAttentionHead({q.data(), queries, dim, dim}, {k.data(), keys, dim, dim},
                                   {zeroed.data(), keys, dim, dim}, scale, softCap, &mask, p.data(),
                                   {outZeroed.data(), queries, dim, dim});
            QVERIFY2(out == outZeroed, qPrintable(QStringLiteral("full O, cap %1").arg(double(softCap))));

            std::vector<double> logSumExp(static_cast<size_t>(queries));
            cpu->tiledAttentionBlock({q.data(), queries, dim, dim}, 0, {k.data(), keys, dim, dim},
                                     {v.data(), keys, dim, dim}, keyBlock, scale, softCap, &mask,
                                     {out.data(), queries, dim, dim}, logSumExp.data());
            cpu->tiledAttentionBlock({q.data(), queries, dim, dim}, 0, {k.data(), keys, dim, dim},
                                     {zeroed.data(), keys, dim, dim}, keyBlock, scale, softCap, &mask,
                                     {outZeroed.data(), queries, dim, dim}, logSumExp.data());
            QVERIFY2(out == outZeroed, qPrintable(QStringLiteral("tiled O, cap %1").arg(double(softCap))));
            cpu->probabilityTile({q.data(), queries, dim, dim}, 0, {k.data(), keys, dim, dim}, 0,
                                 logSumExp.data(), scale, softCap, &mask, p.data());
            for (int i = 0; i < queries; ++i)
                for (int j = 0; j < keys; ++j)
                    QVERIFY2(mask.masked(i, j) ? p[size_t(i) * keys + j] == 0.0f
                                               : p[size_t(i) * keys + j] > 0.0f,
                             qPrintable(QStringLiteral("tile P[%1][%2]").arg(i).arg(j)));
        }
    }

    void productAndActivation_data()
    {
        variants();
    }
    void productAndActivation()
    {
        FETCH_CPU_KERNELS_OR_SKIP(cpu);
        std::mt19937 random(11);
        const int rows = 19, in = 70, width = 45, xStride = in + 3, yStride = width + 5, wOut = width + 9;
        const std::vector<float> x = randomValues(size_t(rows) * xStride, random);
        const std::vector<float> outIn = randomValues(size_t(wOut) * in, random, 0.2f); // [out, in]
        const std::vector<float> inOut = randomValues(size_t(in) * wOut, random, 0.2f); // [in, out]
        const std::vector<float> bias = randomValues(size_t(width), random);
        for (const bool weightIsOutIn : {true, false}) {
            for (const Activation activation :
                 {Activation::GeluErf, Activation::GeluTanh, Activation::Relu, Activation::Silu}) {
                std::vector<float> y(size_t(rows) * yStride, 0.0f);
                // Output columns 4.. of the weight: a block as ops::linear hands them out.
                const float* w = weightIsOutIn ? outIn.data() + 4 * in : inOut.data() + 4;
                cpu->product(x.data(), rows, in, xStride, w, weightIsOutIn ? in : wOut, weightIsOutIn,
                             y.data(), width, yStride);
                cpu->biasActivation(y.data(), rows, width, yStride, bias.data(), &activation);
                for (int r = 0; r < rows; ++r)
                    for (int c = 0; c < width; ++c) {
                        double s = bias[size_t(c)];
                        for (int i = 0; i < in; ++i)
                            s += at(x, xStride, r, i) *
                                 (weightIsOutIn ? at(outIn, in, 4 + c, i) : at(inOut, wOut, i, 4 + c));
                        const double expected = referenceActivation(s, activation);
                        QVERIFY2(std::abs(y[size_t(r) * yStride + c] - expected) < 2e-5,
                                 qPrintable(QStringLiteral("y[%1][%2] activation %3 out-in %4: %5 vs %6")
                                                .arg(r)
                                                .arg(c)
                                                .arg(int(activation))
                                                .arg(weightIsOutIn)
                                                .arg(y[size_t(r) * yStride + c])
                                                .arg(expected)));
                    }
            }
        }
    }

    // Bit for bit the same results wherever the caller's buffers start. Vectorised loops treat the elements
    // before the first aligned packet apart (scalar exp/erf/tanh, another summation order), so a kernel that
    // computes in the caller's memory would give two runs of one input different last bits when their
    // allocations land differently, and an export could not be reproduced.
    void resultsDoNotDependOnAlignment_data()
    {
        variants();
    }
    void resultsDoNotDependOnAlignment()
    {
        FETCH_CPU_KERNELS_OR_SKIP(cpu);
        std::mt19937 random(17);
        const int queries = 23, keys = 29, dim = 20, rows = 9, width = 75, slack = 16;
        const std::vector<float> q = randomValues(size_t(queries) * dim, random, 1.5f);
        const std::vector<float> k = randomValues(size_t(keys) * dim, random, 1.5f);
        const std::vector<float> v = randomValues(size_t(keys) * dim, random);
        const std::vector<float> pre = randomValues(size_t(rows) * width, random, 2.0f);
        KeyMask mask;
        mask.causal = true;
        mask.queryPositionOffset = keys - queries;
        struct Results
        {
            std::vector<float> p, out, tiledOut, tile, activated[4];
            std::vector<double> logSumExp;
        };
        // Every input and output `offset` floats past a 64-byte boundary.
        auto run = [&](int offset) {
            std::vector<float, Eigen::aligned_allocator<float>> memory(
                size_t(queries) * keys + 4 * size_t(queries) * dim + 3 * size_t(keys) * dim +
                size_t(rows) * width + 16 * size_t(slack));
            float* next = memory.data();
            auto place = [&](const std::vector<float>* from, size_t count) {
                float* at = next + offset;
                if (from) std::copy(from->begin(), from->end(), at);
                next += ((size_t(offset) + count + slack - 1) / slack) * slack;
                return at;
            };
            const float* qa = place(&q, q.size());
            const float* ka = place(&k, k.size());
            const float* va = place(&v, v.size());
            float* p = place(nullptr, size_t(queries) * keys);
            float* out = place(nullptr, size_t(queries) * dim);
            float* tiledOut = place(nullptr, size_t(queries) * dim);
            float* tile = place(nullptr, size_t(queries) * keys);
            float* y = place(&pre, pre.size());
            Results r;
            cpu->fullAttentionHead({qa, queries, dim, dim}, {ka, keys, dim, dim}, {va, keys, dim, dim}, 0.3f,
                                   0.0f, &mask, p, {out, queries, dim, dim});
            r.logSumExp.resize(size_t(queries));
            cpu->tiledAttentionBlock({qa, queries, dim, dim}, 0, {ka, keys, dim, dim}, {va, keys, dim, dim},
                                     8, 0.3f, 0.0f, &mask, {tiledOut, queries, dim, dim}, r.logSumExp.data());
            cpu->probabilityTile({qa, queries, dim, dim}, 0, {ka, keys, dim, dim}, 0, r.logSumExp.data(),
                                 0.3f, 0.0f, &mask, tile);
            r.p.assign(p, p + size_t(queries) * keys);
            r.out.assign(out, out + size_t(queries) * dim);
            r.tiledOut.assign(tiledOut, tiledOut + size_t(queries) * dim);
            r.tile.assign(tile, tile + size_t(queries) * keys);
            int index = 0;
            for (const Activation activation :
                 {Activation::GeluErf, Activation::GeluTanh, Activation::Relu, Activation::Silu}) {
                std::copy(pre.begin(), pre.end(), y);
                cpu->biasActivation(y, rows, width, width, nullptr, &activation);
                r.activated[index++].assign(y, y + pre.size());
            }
            return r;
        };
        auto same = [](const std::vector<float>& a, const std::vector<float>& b) {
            return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
        };
        const Results first = run(0);
        for (int offset = 1; offset < slack; ++offset) {
            const Results r = run(offset);
            const QByteArray where = QByteArray::number(offset) + " floats past a 64-byte boundary";
            QVERIFY2(same(r.p, first.p), "P of fullAttentionHead, " + where);
            QVERIFY2(same(r.out, first.out), "O of fullAttentionHead, " + where);
            QVERIFY2(same(r.tiledOut, first.tiledOut), "O of tiledAttentionBlock, " + where);
            QVERIFY2(r.logSumExp == first.logSumExp, "L of tiledAttentionBlock, " + where);
            QVERIFY2(same(r.tile, first.tile), "probabilityTile, " + where);
            for (int a = 0; a < 4; ++a)
                QVERIFY2(same(r.activated[a], first.activated[a]),
                         "biasActivation " + QByteArray::number(a) + ", " + where);
        }
    }

    void norms_data()
    {
        variants();
    }
    void norms()
    {
        FETCH_CPU_KERNELS_OR_SKIP(cpu);
        std::mt19937 random(13);
        const int rows = 9, width = 101;
        const std::vector<float> x = randomValues(size_t(rows) * width, random, 3.0f);
        const std::vector<float> gamma = randomValues(size_t(width), random);
        const std::vector<float> beta = randomValues(size_t(width), random);
        std::vector<float> layer(x.size()), rms = x, gemmaRms(x.size()); // RMSNorm in place
        cpu->layerNormRows(x.data(), layer.data(), rows, width, gamma.data(), beta.data(), 1e-5);
        cpu->rmsNormRows(rms.data(), rms.data(), rows, width, gamma.data(), 1e-6, 0.0f);
        cpu->rmsNormRows(x.data(), gemmaRms.data(), rows, width, gamma.data(), 1e-6, 1.0f); // Gemma: (1 + w)
        for (int r = 0; r < rows; ++r) {
            double mean = 0, squares = 0;
            for (int c = 0; c < width; ++c) {
                mean += at(x, width, r, c);
                squares += at(x, width, r, c) * at(x, width, r, c);
            }
            mean /= width;
            const double variance = squares / width - mean * mean;
            for (int c = 0; c < width; ++c) {
                const double xc = at(x, width, r, c);
                const double expectedLayer =
                    (xc - mean) / std::sqrt(variance + 1e-5) * gamma[size_t(c)] + beta[size_t(c)];
                const double expectedRms = xc / std::sqrt(squares / width + 1e-6) * gamma[size_t(c)];
                const double expectedGemmaRms =
                    xc / std::sqrt(squares / width + 1e-6) * (1.0 + gamma[size_t(c)]);
                QVERIFY2(std::abs(layer[size_t(r) * width + c] - expectedLayer) < 1e-5,
                         qPrintable(QString::number(c)));
                QVERIFY2(std::abs(rms[size_t(r) * width + c] - expectedRms) < 1e-5,
                         qPrintable(QString::number(c)));
                QVERIFY2(std::abs(gemmaRms[size_t(r) * width + c] - expectedGemmaRms) < 1e-5,
                         qPrintable(QString::number(c)));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestCpuKernels)
#include "tst_cpukernels.moc"
