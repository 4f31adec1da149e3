#include "support/benchutil.h"

#include "util/parallel.h"

#include <algorithm>
#include <atomic>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

namespace attnscope::bench {

double medianSeconds(const std::function<void()>& fn, int repetitions)
{
    fn();
    std::vector<double> times;
    for (int i = 0; i < repetitions; ++i) {
        const auto start = std::chrono::steady_clock::now();
        fn();
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

namespace {
double statusFieldMiB(const char* field)
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind(field, 0) == 0) {
            std::istringstream in(line.substr(std::string(field).size()));
            double kib = 0;
            in >> kib;
            return kib / 1024.0;
        }
    return 0.0;
}
} // namespace

double residentMemoryMiB()
{
    return statusFieldMiB("VmRSS:");
}
double peakResidentMemoryMiB()
{
    return statusFieldMiB("VmHWM:");
}

void resetPeakResidentMemory()
{
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5"; // Linux: reset the peak RSS counter to the current RSS
}

namespace {

// Twelve named accumulators so they live in registers: enough independent chains to hide the 4-cycle FMA
// latency on two ports. One function per vector width, each compiled for its own instruction set: the build
// itself is plain x86-64 (core/kernels), but the peak is the CPU's.
#define ATTNSCOPE_FMA_CHAINS(name, lanes)                                                                    \
    float name(long long iterations)                                                                         \
    {                                                                                                        \
        typedef float FloatVector __attribute__((vector_size(lanes * sizeof(float))));                       \
        FloatVector mul, add;                                                                                \
        for (int l = 0; l < lanes; ++l)                                                                      \
            mul[l] = 0.999999f, add[l] = 1e-7f;                                                              \
        FloatVector a0 = add, a1 = add * 2, a2 = add * 3, a3 = add * 4, a4 = add * 5, a5 = add * 6;          \
        FloatVector a6 = add * 7, a7 = add * 8, a8 = add * 9, a9 = add * 10, a10 = add * 11, a11 = add * 12; \
        for (long long i = 0; i < iterations; ++i) {                                                         \
            a0 = a0 * mul + add;                                                                             \
            a1 = a1 * mul + add;                                                                             \
            a2 = a2 * mul + add;                                                                             \
            a3 = a3 * mul + add;                                                                             \
            a4 = a4 * mul + add;                                                                             \
            a5 = a5 * mul + add;                                                                             \
            a6 = a6 * mul + add;                                                                             \
            a7 = a7 * mul + add;                                                                             \
            a8 = a8 * mul + add;                                                                             \
            a9 = a9 * mul + add;                                                                             \
            a10 = a10 * mul + add;                                                                           \
            a11 = a11 * mul + add;                                                                           \
        }                                                                                                    \
        const FloatVector total = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;               \
        float sum = 0;                                                                                       \
        for (int l = 0; l < lanes; ++l)                                                                      \
            sum += total[l];                                                                                 \
        return sum;                                                                                          \
    }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx512f"))) ATTNSCOPE_FMA_CHAINS(fmaChains512, 16) __attribute__((target("avx2,fma")))
ATTNSCOPE_FMA_CHAINS(fmaChains256, 8)
#endif
    ATTNSCOPE_FMA_CHAINS(fmaChains128, 4)
#undef ATTNSCOPE_FMA_CHAINS

    // vfmadd on the widest registers this CPU has: 512-bit (AVX-512), 256-bit (AVX2/FMA), else 128-bit.
    struct FmaChains
{
    int lanes = 4;
    float (*run)(long long) = &fmaChains128;
};

FmaChains widestFmaChains()
{
    FmaChains chains;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        chains = {16, &fmaChains512};
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        chains = {8, &fmaChains256};
#endif
    return chains;
}

} // namespace

double measureCoreFmaPeakGflops()
{
    const FmaChains widest = widestFmaChains();
    const int lanes = widest.lanes;
    float (*const chains)(long long) = widest.run;
    const auto cpuSeconds = [] {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
    };
    const long long iterations = 20'000'000;
    double best = 0;
    for (int round = 0; round < 3; ++round) { // the best of three: an interrupt costs cycles, never gives
        std::atomic<float> sink{0};
        const double start = cpuSeconds();
        sink.store(chains(iterations));
        best = std::max(best, double(iterations) * 12 * lanes * 2 / (cpuSeconds() - start) / 1e9);
    }
    return best;
}

double measureFmaPeakGflops(int threads)
{
    if (threads <= 0) threads = defaultThreadCount();
    const FmaChains widest = widestFmaChains();
    const int lanes = widest.lanes;
    float (*const chains)(long long) = widest.run;
    const long long iterations = 50'000'000; // per thread, each 12 independent vector FMAs
    std::atomic<float> sink{0};
    const auto start = std::chrono::steady_clock::now();
    parallelFor(threads, threads, [&](int) { sink.store(chains(iterations)); });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double flops = double(threads) * double(iterations) * 12 * lanes * 2;
    return flops / seconds / 1e9;
}

double processCpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

bool BenchArguments::has(const char* flag) const
{
    return m_arguments.contains(QLatin1String(flag));
}

QString BenchArguments::value(const char* name, const QString& fallback) const
{
    const int i = int(m_arguments.indexOf(QLatin1String(name)));
    return i >= 0 && i + 1 < m_arguments.size() ? m_arguments.at(i + 1) : fallback;
}

std::vector<int> BenchArguments::intList(const char* name, const QString& fallback) const
{
    std::vector<int> values;
    for (const QString& part : value(name, fallback).split(QLatin1Char(','), Qt::SkipEmptyParts))
        values.push_back(part.toInt());
    return values;
}

SizeSweep sizeSweep(const BenchArguments& args)
{
    return {args.has("--json"), args.intList("--n", QStringLiteral("512,1024,2048,4096,8192")),
            std::max(5, args.value("--reps", QStringLiteral("5")).toInt())};
}

HeadTensor randomHeadTensor(int n, int heads, int dim, std::mt19937& rng)
{
    std::normal_distribution<float> normal;
    HeadTensor t(n, heads, dim);
    for (float& x : t.values)
        x = normal(rng);
    return t;
}

} // namespace attnscope::bench
