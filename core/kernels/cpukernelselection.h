#pragma once

// Which build of the CPU kernels (cpukernels.h) this process uses: the highest instruction-set level that
// both the CPU and this build have, chosen once on first use. ATTNSCOPE_CPU_KERNELS=baseline|avx2|avx512 in
// the environment asks for a lower level (a higher one than the CPU has is refused, with a note).

#include "kernels/cpukernels.h"

#include <QString>
#include <QStringList>

namespace attnscope::kernels {

struct CpuKernelChoice
{
    const CpuKernels* kernels = nullptr;
    QString variant; // "baseline", "avx2", "avx512", "native"
    QString module;  // the file it was loaded from; empty for the copy built into attnscope_core
    QString note;    // why not the best level this CPU has (environment, missing module), else empty
    // The levels this CPU runs that were wanted but did not load (a binary copied without its lib/attnscope,
    // a module from another build), else empty: the process then computes several times slower than it
    // could, and the command line and the window say so (unlike a level the user asked to leave out).
    QString unloaded;

    // "avx512 (x86-64-v4: AVX-512 F/BW/CD/DQ/VL, AVX2, FMA) from /usr/lib/attnscope/attnscope_cpu_avx512.so"
    QString description() const;
};

// The process-wide choice, made on first use (thread-safe).
const CpuKernelChoice& cpuKernelChoice();
inline const CpuKernels& cpuKernels()
{
    return *cpuKernelChoice().kernels;
}

// "using the baseline CPU kernels, slower than this CPU allows: avx512 kernels not loaded: …/attnscope_cpu_
// avx512.so is missing; …" when cpuKernelChoice().unloaded says a level was lost, else empty. The command
// line prints it and the window shows it, so a binary copied without its modules is not silently slow.
QString unloadedKernelsWarning();

// The levels this build carries, lowest first: {"baseline", "avx2", "avx512"}, or {"native"} for an
// ATTNSCOPE_NATIVE build, {"baseline"} where there are no modules (not x86-64 Linux).
QStringList builtCpuKernelVariants();
// Whether this CPU (and its OS, for the AVX registers) runs a level's instructions.
bool cpuRunsVariant(const QString& variant);
// "x86-64-v3: AVX2, FMA, BMI1/2, F16C, LZCNT, MOVBE" for a level, for messages.
QString variantInstructionSets(const QString& variant);
// One level's table (tests and benchmarks compare them): null with *error when this build lacks it, the
// CPU cannot run it, or its module does not load.
CpuKernelChoice loadCpuKernelVariant(const QString& variant, QString* error);

} // namespace attnscope::kernels
