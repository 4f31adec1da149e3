// The projections' product y = x · Wᵀ at Llama-3.2-1B's shapes: AttnScope's AVX-512 weightProduct
// (kernels/weightproduct.h) reading bf16 / f32 weights, against OpenBLAS's sgemm on f32 weights (the path
// before it, which also needed the bf16 → f32 conversion, timed on its own), in the same run. One thread
// computes what ops::linear gives one thread (half the outputs, the weights [out, in]); times are that
// thread's CPU time (less noisy on a shared machine than wall time), the best of --reps. Prints one JSON
// line per case:
//   {"bench":"gemm","n":128,"in":2048,"out":2048,"block":1024,"what":"own bf16","best_s":...,
//    "gflops":...,"fraction_of_core_peak":...}
// and the core's FMA peak measured the same way in the same run (measureCoreFmaPeakGflops). --bert:
// BERT-base's shapes (768 → 768, 768 → 3,072, 3,072 → 768) at 512 tokens instead.

#include "kernels/cpukernelselection.h"
#include "model/openblas.h"
#include "model/safetensorsfile.h"
#include "support/benchutil.h"
#include "util/parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace attnscope;

namespace {

double threadSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

double wallSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// What splitting one product over 2 threads costs by itself (tasks that do nothing): parallelFor on its
// persistent pool against starting and joining a thread per call (parallelFor before issue 15's pool).
// Wall time per call, median of 5 rounds of 2,000 calls.
void reportThreadOverhead()
{
    const auto perCall = [](auto&& call) {
        std::vector<double> rounds;
        for (int round = 0; round < 5; ++round) {
            const double start = wallSeconds();
            for (int i = 0; i < 2000; ++i)
                call();
            rounds.push_back((wallSeconds() - start) / 2000);
        }
        std::sort(rounds.begin(), rounds.end());
        return rounds[2];
    };
    std::atomic<int> sink{0};
    const double pool = perCall([&] { parallelFor(2, 2, [&](int task) { sink.fetch_add(task); }); });
    const double fresh = perCall([&] {
        std::thread helper([&] { sink.fetch_add(1); });
        sink.fetch_add(0);
        helper.join();
    });
    std::printf("{\"bench\":\"gemm\",\"what\":\"split over 2 threads, empty tasks\",\"pool_us\":%.2f,"
                "\"thread_per_call_us\":%.2f}\n",
                pool * 1e6, fresh * 1e6);
    std::fflush(stdout);
}

template <typename F> double bestOf(int reps, F&& run)
{
    run(); // warm: pages touched, caches as in a pass
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        const double start = threadSeconds();
        run();
        best = std::min(best, threadSeconds() - start);
    }
    return best;
}

} // namespace

int main(int argc, char** argv)
{
    int reps = 5;
    std::vector<int> tokens = {128, 512};
    bool bertShapes = false; // --bert: BERT-base's products (768 ↔ 3,072) at 512 tokens
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = std::atoi(argv[++i]);
        if (std::strcmp(argv[i], "--quick") == 0) tokens = {128}, reps = 2;
        if (std::strcmp(argv[i], "--bert") == 0) bertShapes = true, tokens = {512};
    }
    const kernels::CpuKernels& cpu = kernels::cpuKernels();
    const ops::OpenBlas* blas = ops::openBlas();
    const double peak = bench::measureCoreFmaPeakGflops();
    std::printf("{\"bench\":\"gemm\",\"kernels\":\"%s\",\"openblas\":\"%s\",\"core_fma_peak_gflops\":%.1f}\n",
                cpu.variant, blas ? blas->core.c_str() : "none", peak);
    reportThreadOverhead();
    struct Shape
    {
        int in, out;
    };
    std::mt19937 random(1);
    std::normal_distribution<float> normal(0.0f, 0.02f);
    std::vector<Shape> shapes = {Shape{2048, 2048}, Shape{2048, 8192}, Shape{8192, 2048}};
    if (bertShapes) shapes = {Shape{768, 768}, Shape{768, 3072}, Shape{3072, 768}};
    for (const Shape shape : shapes) {
        const int block = shape.out / 2; // one thread's columns in ops::linear with 2 threads
        std::vector<float> weights(size_t(block) * size_t(shape.in));
        std::vector<std::uint16_t> bf16(weights.size());
        for (size_t i = 0; i < weights.size(); ++i) {
            std::uint32_t bits;
            const float v = normal(random);
            std::memcpy(&bits, &v, sizeof bits);
            bf16[i] = std::uint16_t(bits >> 16);
            bits = std::uint32_t(bf16[i]) << 16;
            std::memcpy(&weights[i], &bits, sizeof bits);
        }
        for (const int n : tokens) {
            std::vector<float> x(size_t(n) * size_t(shape.in)), y(size_t(n) * size_t(block));
            for (float& v : x)
                v = normal(random) * 50.0f;
            const double flops = 2.0 * n * shape.in * double(block);
            const auto report = [&](const char* what, double seconds) {
                std::printf("{\"bench\":\"gemm\",\"n\":%d,\"in\":%d,\"out\":%d,\"block\":%d,\"what\":\"%s\","
                            "\"best_s\":%.6f,\"gflops\":%.1f,\"fraction_of_core_peak\":%.3f}\n",
                            n, shape.in, shape.out, block, what, seconds, flops / seconds / 1e9,
                            flops / seconds / 1e9 / peak);
                std::fflush(stdout);
            };
            if (cpu.weightProduct) {
                report("own bf16", bestOf(reps, [&] {
                           cpu.weightProduct(x.data(), n, shape.in, shape.in, bf16.data(),
                                             kernels::kWeightBF16, shape.in, true, y.data(), block, block);
                       }));
                // As in a forward pass, where W comes from memory (the 1B model's 2.4 GB do not fit any
                // cache): each call reads another of 64 copies of W (256+ MiB in all, past the L3).
                const int copies = 64;
                std::vector<std::uint16_t> farWeights(bf16.size() * copies);
                for (int c = 0; c < copies; ++c)
                    std::memcpy(farWeights.data() + bf16.size() * size_t(c), bf16.data(),
                                bf16.size() * sizeof(std::uint16_t));
                int copy = 0;
                report("own bf16, W from memory", bestOf(reps, [&] {
                           copy = (copy + 1) % copies;
                           cpu.weightProduct(x.data(), n, shape.in, shape.in,
                                             farWeights.data() + bf16.size() * size_t(copy),
                                             kernels::kWeightBF16, shape.in, true, y.data(), block, block);
                       }));
                report("own f32", bestOf(reps, [&] {
                           cpu.weightProduct(x.data(), n, shape.in, shape.in, weights.data(),
                                             kernels::kWeightF32, shape.in, true, y.data(), block, block);
                       }));
            }
            if (blas) {
                const float one = 1.0f, zero = 0.0f;
                report("openblas f32", bestOf(reps, [&] {
                           blas->sgemm("T", "N", &block, &n, &shape.in, &one, weights.data(), &shape.in,
                                       x.data(), &shape.in, &zero, y.data(), &block);
                       }));
            }
            report("eigen f32", bestOf(reps, [&] {
                       cpu.product(x.data(), n, shape.in, shape.in, weights.data(), shape.in, true, y.data(),
                                   block, block);
                   }));
        }
        // What the old path adds per layer: the block's bf16 → f32 conversion (flops: none; time only).
        std::vector<float> converted(weights.size());
        const double conversion = bestOf(reps, [&] {
            convertBfloat16ToFloat(reinterpret_cast<const unsigned char*>(bf16.data()), converted.data(),
                                   qint64(bf16.size()));
        });
        std::printf(
            "{\"bench\":\"gemm\",\"in\":%d,\"out\":%d,\"block\":%d,\"what\":\"bf16 to f32 conversion\","
            "\"best_s\":%.6f}\n",
            shape.in, shape.out, block, conversion);
    }
    return 0;
}
