#include "support/benchutil.h"

#include "util/parallel.h"

#include <algorithm>
#include <atomic>
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

double residentMemoryMiB() { return statusFieldMiB("VmRSS:"); }
double peakResidentMemoryMiB() { return statusFieldMiB("VmHWM:"); }

void resetPeakResidentMemory()
{
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5"; // Linux: reset the peak RSS counter to the current RSS
}

// The widest float vector the build targets: with -march=native GCC turns a*b+c on these into
// vfmadd on 256-bit (AVX2/FMA) or 512-bit (AVX-512) registers.
#if defined(__AVX512F__)
constexpr int kLanes = 16;
#else
constexpr int kLanes = 8;
#endif
typedef float FloatVector __attribute__((vector_size(kLanes * sizeof(float))));

double measureFmaPeakGflops(int threads)
{
    if (threads <= 0)
        threads = defaultThreadCount();
    const long long iterations = 50'000'000; // per thread, each 12 independent vector FMAs
    std::atomic<float> sink{0};
    const auto start = std::chrono::steady_clock::now();
    parallelFor(threads, threads, [&](int) {
        FloatVector mul, add;
        for (int l = 0; l < kLanes; ++l)
            mul[l] = 0.999999f, add[l] = 1e-7f;
        // Twelve named accumulators so they live in registers: enough independent chains to hide
        // the 4-cycle FMA latency on two ports.
        FloatVector a0 = add, a1 = add * 2, a2 = add * 3, a3 = add * 4, a4 = add * 5, a5 = add * 6;
        FloatVector a6 = add * 7, a7 = add * 8, a8 = add * 9, a9 = add * 10, a10 = add * 11, a11 = add * 12;
        for (long long i = 0; i < iterations; ++i) {
            a0 = a0 * mul + add; a1 = a1 * mul + add; a2 = a2 * mul + add; a3 = a3 * mul + add;
            a4 = a4 * mul + add; a5 = a5 * mul + add; a6 = a6 * mul + add; a7 = a7 * mul + add;
            a8 = a8 * mul + add; a9 = a9 * mul + add; a10 = a10 * mul + add; a11 = a11 * mul + add;
        }
        const FloatVector total = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
        float sum = 0;
        for (int l = 0; l < kLanes; ++l)
            sum += total[l];
        sink.store(sum);
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double flops = double(threads) * double(iterations) * 12 * kLanes * 2;
    return flops / seconds / 1e9;
}

} // namespace attnscope::bench
