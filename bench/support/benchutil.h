#pragma once

#include "attention/headtensor.h"

#include <QString>
#include <QStringList>
#include <chrono>
#include <functional>
#include <random>
#include <vector>

namespace attnscope::bench {

// Median wall time of `repetitions` runs of fn, in seconds, after one warm-up run.
double medianSeconds(const std::function<void()>& fn, int repetitions);

// This process's resident memory now and its peak since the last resetPeakResidentMemory(), in MiB
// (Linux /proc; 0 elsewhere).
double residentMemoryMiB();
double peakResidentMemoryMiB();
void resetPeakResidentMemory();

// Measured fp32 fused-multiply-add throughput of all cores, in GFLOP/s (2 flops per FMA lane).
double measureFmaPeakGflops(int threads);
// The same for the calling thread alone, over its CPU time (CLOCK_THREAD_CPUTIME_ID): one core's peak,
// unaffected by the time other processes take the core away (a shared machine), so that a kernel timed the
// same way can be given as a fraction of it.
double measureCoreFmaPeakGflops();

// CPU time of the whole process (all threads), in seconds: on a shared machine wall time measures the
// neighbours too; CPU time / threads is what the run would take with the cores to itself.
double processCpuSeconds();

// A bench's command line: `--name value` options with their fallbacks, and `--flag` switches.
class BenchArguments
{
public:
    explicit BenchArguments(QStringList arguments) : m_arguments(std::move(arguments)) {}
    bool has(const char* flag) const;
    QString value(const char* name, const QString& fallback) const;
    // A comma-separated list of whole numbers ("512,1024").
    std::vector<int> intList(const char* name, const QString& fallback) const;

private:
    QStringList m_arguments;
};

// The options both attention benches take: --json, --n (the sizes; 512 to 8192 unless given) and --reps
// (at least 5).
struct SizeSweep
{
    bool json = false;
    std::vector<int> sizes;
    int reps = 5;
};
SizeSweep sizeSweep(const BenchArguments& args);

// n tokens × heads × dim of standard normal values from rng: the attention benches' Q, K and V.
HeadTensor randomHeadTensor(int n, int heads, int dim, std::mt19937& rng);

} // namespace attnscope::bench
