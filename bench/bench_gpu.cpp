// GPU attention kernels against the CPU core in the same run: the tiled forward (O and L of all heads)
// and the per-head overview, per backend, with time and memory.
//
//   bench_gpu [--json] [--n 512,1024,...] [--reps 5] [--backends cpu,vulkan,opengl] [--gpu-max 8192]
//             [--overview-max 4096]
//
// Run under xvfb-run (or with a display): the GPU backends need a platform plugin. GPU times are end to
// end as a caller sees them: upload of Q, K, V, the dispatches and the readback of O and L.
// Flops are counted as 4·n²·d·H (QKᵀ and P·V), halved when causal, for every backend.

#include "attention/attention.h"
#include "backend/attentionbackend.h"
#include "support/benchutil.h"
#include "util/parallel.h"

#include <QGuiApplication>
#include <QStringList>
#include <cstdio>
#include <random>

using namespace attnscope;
using namespace attnscope::bench;

namespace {

QByteArray jsonEscaped(const QString& text)
{
    QByteArray out;
    for (const char c : text.toUtf8()) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

} // namespace

int main(int argc, char** argv)
{
    QGuiApplication app(argc, argv);
    const BenchArguments args(app.arguments());
    const SizeSweep sweep = sizeSweep(args);
    const int gpuMax = args.value("--gpu-max", QStringLiteral("8192")).toInt();
    const int overviewMax = args.value("--overview-max", QStringLiteral("4096")).toInt();
    const QStringList backendNames = args.value("--backends", QStringLiteral("cpu,vulkan,opengl"))
                                         .split(QLatin1Char(','), Qt::SkipEmptyParts);
    const int heads = 12, dim = 64;

    for (const QString& name : backendNames) {
        BackendKind kind = BackendKind::Cpu;
        if (!parseBackendKind(name, &kind)) {
            std::fprintf(stderr, "bench_gpu: unknown backend %s\n", qPrintable(name));
            return 2;
        }
        QString notice;
        std::unique_ptr<AttentionBackend> backend = createBackend(kind, &notice);
        if (kind != BackendKind::Auto && backend->kind() != kind) {
            // Report it and move on: the bench never passes CPU figures off as GPU ones.
            if (sweep.json)
                std::printf("{\"backend\":\"%s\",\"unavailable\":\"%s\"}\n", qPrintable(name),
                            jsonEscaped(notice).constData());
            else
                std::printf("%s: unavailable (%s)\n", qPrintable(name), qPrintable(notice));
            continue;
        }
        const QByteArray device = jsonEscaped(backend->deviceName());
        std::mt19937 rng(42);
        for (int n : sweep.sizes) {
            if (backend->kind() != BackendKind::Cpu && n > gpuMax) continue;
            const HeadTensor q = randomHeadTensor(n, heads, dim, rng),
                             k = randomHeadTensor(n, heads, dim, rng),
                             v = randomHeadTensor(n, heads, dim, rng);
            for (bool causal : {false, true}) {
                AttentionOptions options;
                options.causal = causal;
                const double flops = 4.0 * double(n) * n * dim * heads * (causal ? 0.5 : 1.0);
                auto report = [&](const char* impl, double seconds, double extraMiB, double opFlops) {
                    if (sweep.json)
                        std::printf(
                            "{\"impl\":\"%s\",\"backend\":\"%s\",\"device\":\"%s\",\"n\":%d,\"heads\":%d,"
                            "\"head_dim\":%d,\"causal\":%s,\"seconds\":%.6f,\"gflops\":%.2f,"
                            "\"extra_memory_mib\":%.1f}\n",
                            impl, qPrintable(backend->name()), device.constData(), n, heads, dim,
                            causal ? "true" : "false", seconds, opFlops / seconds / 1e9, extraMiB);
                    else
                        std::printf("%-8s %-6s n=%5d causal=%d  %9.4f s  %7.1f GFLOP/s  +%.1f MiB  (%s)\n",
                                    impl, qPrintable(backend->name()), n, int(causal), seconds,
                                    opFlops / seconds / 1e9, extraMiB, device.constData());
                    std::fflush(stdout);
                };
                auto measure = [&](const char* impl, const std::function<void()>& fn, double opFlops,
                                   double outputMiB) {
                    resetPeakResidentMemory();
                    const double base = residentMemoryMiB();
                    const double seconds = medianSeconds(fn, sweep.reps);
                    report(impl, seconds, std::max(0.0, peakResidentMemoryMiB() - base - outputMiB), opFlops);
                };
                const double outputMiB = double(n) * heads * dim * sizeof(float) / (1024.0 * 1024.0);
                TiledAttentionResult forward;
                measure(
                    "tiled", [&] { forward = backend->tiledForward(q, k, v, options); }, flops, outputMiB);
                if (n <= overviewMax) {
                    // One head's overview (256×256 cells, column sums, entropies): 2·n²·d flops for S, halved
                    // when causal.
                    const RotatedQueryKey rotated{q, k};
                    measure(
                        "overview",
                        [&] {
                            const AttentionOverview o = backend->overview(
                                rotated.queries, rotated.keys, forward.logSumExp, options, 0, 256, 256);
                            (void)o;
                        },
                        2.0 * double(n) * n * dim * (causal ? 0.5 : 1.0), 0.0);
                }
            }
        }
    }
    return 0;
}
