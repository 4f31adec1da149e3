// Attention throughput: naive (materialise S, softmax, P·V) vs full (the reference, all heads in
// parallel) vs tiled (online softmax over key blocks), on the same inputs in one run.
//
//   bench_attention [--json] [--n 512,1024,...] [--reps 5] [--threads 0] [--naive-max 4096] [--full-max 4096]
//                   [--query-block 64] [--key-block 256]
//
// Flops are counted as 4·n²·d·H (QKᵀ and P·V), halved when causal, for every implementation.

#include "attention/attention.h"
#include "support/benchutil.h"
#include "util/parallel.h"

#include <Eigen/Core>
#include <QCoreApplication>
#include <QStringList>
#include <cmath>
#include <cstdio>
#include <random>

using namespace attnscope;
using namespace attnscope::bench;

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The textbook way, single-threaded: per head copy out Q_h, K_h, V_h, build the n×n score matrix,
// mask, softmax, multiply. What a first Eigen implementation looks like.
void naiveAttention(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v, bool causal,
                    HeadTensor& out)
{
    const int n = q.tokens, d = q.dim;
    for (int h = 0; h < q.heads; ++h) {
        RowMatrix qh(n, d), kh(n, d), vh(n, d);
        for (int t = 0; t < n; ++t)
            for (int c = 0; c < d; ++c) {
                qh(t, c) = q.at(t, h, c);
                kh(t, c) = k.at(t, h, c);
                vh(t, c) = v.at(t, h, c);
            }
        RowMatrix s = (qh * kh.transpose()) / std::sqrt(float(d));
        if (causal)
            for (int i = 0; i < n; ++i)
                for (int j = i + 1; j < n; ++j)
                    s(i, j) = -INFINITY;
        for (int i = 0; i < n; ++i) {
            s.row(i) = (s.row(i).array() - s.row(i).maxCoeff()).exp();
            s.row(i) /= s.row(i).sum();
        }
        const RowMatrix o = s * vh;
        for (int t = 0; t < n; ++t)
            for (int c = 0; c < d; ++c)
                out.at(t, h, c) = o(t, c);
    }
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const BenchArguments args(app.arguments());
    const SizeSweep sweep = sizeSweep(args);
    const int threads = args.value("--threads", QStringLiteral("0")).toInt();
    const int naiveMax = args.value("--naive-max", QStringLiteral("4096")).toInt();
    const int fullMax = args.value("--full-max", QStringLiteral("4096")).toInt();
    const int queryBlock = args.value("--query-block", QStringLiteral("0")).toInt();
    const int keyBlock = args.value("--key-block", QStringLiteral("0")).toInt();
    const int heads = 12, dim = 64;

    const double peak = measureFmaPeakGflops(threads);
    if (sweep.json)
        std::printf("{\"impl\":\"fma_peak\",\"threads\":%d,\"gflops\":%.1f}\n",
                    threads ? threads : defaultThreadCount(), peak);
    else
        std::printf("fp32 FMA peak (all cores): %.1f GFLOP/s\n", peak);

    std::mt19937 rng(42);
    for (int n : sweep.sizes) {
        const HeadTensor q = randomHeadTensor(n, heads, dim, rng), k = randomHeadTensor(n, heads, dim, rng),
                         v = randomHeadTensor(n, heads, dim, rng);
        for (bool causal : {false, true}) {
            AttentionOptions options;
            options.causal = causal;
            options.threads = threads;
            if (queryBlock > 0) options.queryBlock = queryBlock;
            if (keyBlock > 0) options.keyBlock = keyBlock;
            const double flops = 4.0 * double(n) * n * dim * heads * (causal ? 0.5 : 1.0);
            auto report = [&](const char* impl, double seconds, double extraMiB) {
                if (sweep.json)
                    std::printf("{\"impl\":\"%s\",\"n\":%d,\"heads\":%d,\"head_dim\":%d,\"causal\":%s,"
                                "\"seconds\":%.6f,"
                                "\"gflops\":%.2f,\"fraction_of_peak\":%.3f,\"extra_memory_mib\":%.1f}\n",
                                impl, n, heads, dim, causal ? "true" : "false", seconds,
                                flops / seconds / 1e9, flops / seconds / 1e9 / peak, extraMiB);
                else
                    std::printf(
                        "%-6s n=%5d causal=%d  %9.4f s  %7.1f GFLOP/s  (%4.1f%% of peak)  +%.1f MiB\n", impl,
                        n, int(causal), seconds, flops / seconds / 1e9, 100.0 * flops / seconds / 1e9 / peak,
                        extraMiB);
                std::fflush(stdout);
            };
            // Memory beyond the inputs: reset the peak counter, run once, read the peak.
            auto measure = [&](const char* impl, const std::function<void()>& fn, int repetitions) {
                resetPeakResidentMemory();
                const double base = residentMemoryMiB();
                const double seconds = medianSeconds(fn, repetitions);
                // O is an output like Q, K and V are inputs: it is not counted as working memory.
                const double outputMiB = double(n) * heads * dim * sizeof(float) / (1024.0 * 1024.0);
                report(impl, seconds, std::max(0.0, peakResidentMemoryMiB() - base - outputMiB));
            };
            measure(
                "tiled",
                [&] {
                    TiledAttentionResult r = attentionTiled(q, k, v, options);
                    (void)r;
                },
                sweep.reps);
            if (n <= fullMax) {
                measure(
                    "full",
                    [&] {
                        FullAttentionResult r = attentionFull(q, k, v, options);
                        (void)r;
                    },
                    sweep.reps);
                // What a dump of every head's P costs each way: the tiled pass, then P = exp(S − L)
                // recomputed per head (attention --format npy until perf15e), against "full", which forms P
                // once.
                measure(
                    "tiled+P",
                    [&] {
                        TiledAttentionResult r = attentionTiled(q, k, v, options);
                        parallelFor(heads, threads, [&](int head) {
                            std::vector<float> p =
                                probabilityTile(q, k, r.logSumExp, options, head, 0, n, 0, n);
                            (void)p;
                        });
                    },
                    sweep.reps);
            }
            if (n <= naiveMax) {
                HeadTensor out(n, heads, dim);
                measure(
                    "naive", [&] { naiveAttention(q, k, v, causal, out); }, n >= 4096 ? 5 : sweep.reps);
            }
        }
    }
    return 0;
}
