// The product y = x · Wᵀ with W stored in one of GGUF's quantized types (issue 32): the AVX-512 level's
// weightProductPacked (panels unpacked from the blocks while packed, kernels/weightproduct.h) and the AVX2
// level's unpackedWeightProduct (its own ymm product, kernels/weightproductavx2.h), at the Llama-3.2-1B
// MLP's shapes (W [8,192, 2,048] and [2,048, 8,192]), on one thread, timed in that thread's CPU time (a
// shared machine takes the core away; CPU time does not count that). bf16 weights beside them: the issue
// asks the quantized files to run as fast as bf16 ones.
//
// --against DIR compares with the modules of another build (DIR/attnscope_cpu_avx2.so and
// DIR/attnscope_cpu_avx512.so, e.g. the same source at an older commit) in the same run: the two are
// called alternately, round by round, so that both see the same load. Each line gives the median of
// --reps rounds, GFLOP/s, the share of one core's FMA peak (measured at the start and the end of the run;
// the higher is used), and against another build the ratio of the medians and whether y is the same to
// the bit. One JSON line per case:
//   {"bench":"quantproduct","level":"avx512","type":"Q4_K","n":128,"in":2048,"out":8192,"median_s":...,
//    "gflops":...,"fraction_of_core_peak":...,"before_median_s":...,"speedup":...,"same_y":true}

#include "kernels/cpukernelselection.h"
#include "support/benchutil.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <random>
#include <string>
#include <vector>

using namespace attnscope;
using namespace attnscope::kernels;

namespace {

double threadSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// The table of a module file of another build, or null (with a note on stderr).
const CpuKernels* loadOtherModule(const std::string& path)
{
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        std::fprintf(stderr, "bench_quantproduct: %s\n", dlerror());
        return nullptr;
    }
    using Entry = const CpuKernels* (*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(handle, kCpuKernelsEntry));
    const CpuKernels* table = entry ? entry() : nullptr;
    if (!table || table->abi != kCpuKernelsAbi) {
        std::fprintf(stderr, "bench_quantproduct: %s: no table of ABI %d\n", path.c_str(), kCpuKernelsAbi);
        return nullptr;
    }
    return table;
}

struct WeightType
{
    int type;
    const char* name;
    std::vector<int> halfOffsets; // where a block keeps its f16 scales
};

// rows × in weights of `type`: random quant bytes, f16 scales of magnitude 2^-10..2^-4 (finite, so that
// every weight is); bf16 weights of N(0, 0.02).
std::vector<unsigned char> randomWeights(const WeightType& t, int rows, int in, std::mt19937& random)
{
    if (t.type == kWeightBF16) {
        std::vector<unsigned char> bytes(size_t(rows) * size_t(in) * 2);
        std::normal_distribution<float> normal(0.0f, 0.02f);
        for (size_t i = 0; i < bytes.size(); i += 2) {
            const float v = normal(random);
            std::uint32_t bits;
            std::memcpy(&bits, &v, sizeof bits);
            const auto high = std::uint16_t(bits >> 16);
            std::memcpy(&bytes[i], &high, 2);
        }
        return bytes;
    }
    const WeightBlock block = weightBlock(t.type);
    const size_t blocks = size_t(rows) * size_t(in / block.elements);
    std::vector<unsigned char> bytes(blocks * size_t(block.bytes));
    std::uniform_int_distribution<int> byte(0, 255), exponent(5, 11), mantissa(0, 1023), sign(0, 1);
    for (unsigned char& b : bytes)
        b = static_cast<unsigned char>(byte(random));
    for (size_t i = 0; i < blocks; ++i)
        for (const int offset : t.halfOffsets) {
            const auto h = std::uint16_t(sign(random) << 15 | exponent(random) << 10 | mantissa(random));
            std::memcpy(&bytes[i * size_t(block.bytes) + size_t(offset)], &h, 2);
        }
    return bytes;
}

// The level's product of quantized weights as a forward pass runs it on one thread: where the level has
// weightProduct (AVX-512), x packed in blocks of rows of at most 16 MiB (packProductInput) and all of W's
// panels multiplied by each (weightProductPacked), as ops::linear's sharedInputProduct does; else
// unpackedWeightProduct. bf16 weights only where the level has weightProduct (else: false, not timed).
bool runProduct(const CpuKernels& cpu, const float* x, int n, int in, const void* w, int type, float* y,
                int out)
{
    if (cpu.weightProductPacked) {
        constexpr size_t kSharedInputBytes = size_t(16) << 20; // tensorops.cpp's block of x
        static std::vector<float> packed;
        const int blockRows = int(std::max<size_t>(64, kSharedInputBytes / (sizeof(float) * size_t(in))));
        for (int r0 = 0; r0 < n; r0 += blockRows) {
            const int rows = std::min(blockRows, n - r0);
            packed.resize(std::max(packed.size(), cpu.packedInputFloats(rows, in)));
            cpu.packProductInput(x + std::ptrdiff_t(r0) * in, rows, in, in, 0, cpu.productInputTiles(rows),
                                 packed.data());
            cpu.weightProductPacked(packed.data(), rows, in, w, type, in, true, y + std::ptrdiff_t(r0) * out,
                                    out, out);
        }
        return true;
    }
    if (!isQuantizedWeight(type)) return false;
    cpu.unpackedWeightProduct(x, n, in, in, w, type, y, out, out);
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const bench::BenchArguments args(app.arguments());
    const std::vector<int> tokens = args.intList("--tokens", QStringLiteral("128"));
    const int reps = std::max(1, args.value("--reps", QStringLiteral("7")).toInt());
    const QString against = args.value("--against", QString());
    const QStringList levels = args.value("--levels", QStringLiteral("avx512,avx2")).split(QLatin1Char(','));
    const QStringList typeNames =
        args.value("--types", QStringLiteral("BF16,Q8_0,Q4_K,Q6_K,Q5_K,Q4_0")).split(QLatin1Char(','));

    const std::vector<WeightType> allTypes = {
        {kWeightBF16, "BF16", {}},       {kWeightQ8_0, "Q8_0", {0}},    {kWeightQ4_K, "Q4_K", {0, 2}},
        {kWeightQ6_K, "Q6_K", {208}},    {kWeightQ5_K, "Q5_K", {0, 2}}, {kWeightQ4_0, "Q4_0", {0}},
        {kWeightQ4_1, "Q4_1", {0, 2}},   {kWeightQ5_0, "Q5_0", {0}},    {kWeightQ5_1, "Q5_1", {0, 2}},
        {kWeightQ2_K, "Q2_K", {80, 82}}, {kWeightQ3_K, "Q3_K", {108}},
    };
    std::vector<WeightType> types;
    for (const WeightType& t : allTypes)
        if (typeNames.contains(QLatin1String(t.name))) types.push_back(t);

    const double peakBefore = bench::measureCoreFmaPeakGflops();
    struct Case
    {
        QString level;
        const CpuKernels* now;
        const CpuKernels* before;
    };
    std::vector<Case> cases;
    for (const QString& level : levels) {
        QString error;
        const CpuKernelChoice choice = loadCpuKernelVariant(level, &error);
        if (!choice.kernels) {
            std::fprintf(stderr, "bench_quantproduct: no %s level: %s\n", qPrintable(level),
                         qPrintable(error));
            continue;
        }
        const CpuKernels* before = nullptr;
        if (!against.isEmpty()) {
            before = loadOtherModule(
                (against + QStringLiteral("/attnscope_cpu_") + level + QStringLiteral(".so")).toStdString());
            if (!before) return 1;
        }
        cases.push_back({level, choice.kernels, before});
    }

    struct Shape
    {
        int in, out;
    };
    std::mt19937 random(32);
    std::vector<std::string> lines;
    for (const Shape shape : {Shape{2048, 8192}, Shape{8192, 2048}})
        for (const WeightType& t : types) {
            const std::vector<unsigned char> w = randomWeights(t, shape.out, shape.in, random);
            for (const int n : tokens) {
                std::vector<float> x(size_t(n) * size_t(shape.in));
                std::normal_distribution<float> normal(0.0f, 1.0f);
                for (float& v : x)
                    v = normal(random);
                std::vector<float> y(size_t(n) * size_t(shape.out)), yBefore(y.size());
                const double flops = 2.0 * n * double(shape.in) * shape.out;
                for (const Case& c : cases) {
                    std::vector<double> now, before;
                    const auto timed = [&](const CpuKernels& cpu, float* into, std::vector<double>& times) {
                        const double start = threadSeconds();
                        const bool ran =
                            runProduct(cpu, x.data(), n, shape.in, w.data(), t.type, into, shape.out);
                        if (ran) times.push_back(threadSeconds() - start);
                        return ran;
                    };
                    if (!timed(*c.now, y.data(), now)) continue; // warm-up, and whether the level has it
                    now.clear();
                    if (c.before) { // warm-up too
                        timed(*c.before, yBefore.data(), before);
                        before.clear();
                    }
                    for (int round = 0; round < reps; ++round) { // alternately: both see the same load
                        timed(*c.now, y.data(), now);
                        if (c.before) timed(*c.before, yBefore.data(), before);
                    }
                    const double seconds = median(now);
                    char line[512];
                    int length = std::snprintf(
                        line, sizeof line,
                        "{\"bench\":\"quantproduct\",\"level\":\"%s\",\"type\":\"%s\",\"n\":%d,\"in\":%d,"
                        "\"out\":%d,\"median_s\":%.6f,\"gflops\":%.1f",
                        qPrintable(c.level), t.name, n, shape.in, shape.out, seconds, flops / seconds / 1e9);
                    if (c.before && !before.empty()) {
                        const double old = median(before);
                        const bool same =
                            std::memcmp(y.data(), yBefore.data(), sizeof(float) * y.size()) == 0;
                        length +=
                            std::snprintf(line + length, sizeof line - size_t(length),
                                          ",\"before_median_s\":%.6f,\"before_gflops\":%.1f,\"speedup\":%.2f,"
                                          "\"same_y\":%s",
                                          old, flops / old / 1e9, old / seconds, same ? "true" : "false");
                    }
                    lines.push_back(std::string(line, size_t(length)));
                    std::fprintf(stderr, "%s}\n",
                                 line); // progress; stdout gets it with its share of the peak
                }
            }
        }
    const double peakAfter = bench::measureCoreFmaPeakGflops();
    const double peak = std::max(peakBefore, peakAfter);
    std::printf(
        "{\"bench\":\"quantproduct\",\"core_fma_peak_gflops_start\":%.1f,\"core_fma_peak_gflops_end\":%.1f,"
        "\"reps\":%d}\n",
        peakBefore, peakAfter, reps);
    // The cases again with their shares of the peak, now that both measurements exist.
    for (const std::string& line : lines) {
        const size_t at = line.find("\"gflops\":");
        const double gflops = std::atof(line.c_str() + at + 9);
        std::printf("%s,\"fraction_of_core_peak\":%.3f}\n", line.c_str(), gflops / peak);
    }
    return 0;
}
