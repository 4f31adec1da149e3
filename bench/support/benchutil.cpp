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

// 8-wide float vectors; with -march=native GCC turns a*b+c into vfmadd on AVX2/FMA machines.
typedef float Float8 __attribute__((vector_size(32)));

double measureFmaPeakGflops(int threads)
{
    if (threads <= 0)
        threads = defaultThreadCount();
    constexpr int kAccumulators = 12; // enough independent chains to cover FMA latency on two ports
    const long long iterations = 40'000'000;
    std::atomic<float> sink{0};
    const auto start = std::chrono::steady_clock::now();
    parallelFor(threads, threads, [&](int) {
        Float8 acc[kAccumulators];
        for (int a = 0; a < kAccumulators; ++a)
            for (int l = 0; l < 8; ++l)
                acc[a][l] = 1.0f + 0.001f * float(a + l);
        Float8 mul, add;
        for (int l = 0; l < 8; ++l)
            mul[l] = 0.999999f, add[l] = 1e-7f;
        for (long long i = 0; i < iterations / kAccumulators; ++i)
            for (int a = 0; a < kAccumulators; ++a)
                acc[a] = acc[a] * mul + add;
        float total = 0;
        for (int a = 0; a < kAccumulators; ++a)
            for (int l = 0; l < 8; ++l)
                total += acc[a][l];
        sink.store(total);
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double flops = double(threads) * double(iterations / kAccumulators) * kAccumulators * 8 * 2;
    return flops / seconds / 1e9;
}

} // namespace attnscope::bench
