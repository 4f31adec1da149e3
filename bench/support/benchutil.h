#pragma once

#include <QString>
#include <chrono>
#include <functional>
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

} // namespace attnscope::bench
