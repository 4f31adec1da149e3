#pragma once

#include <QString>

// A data-driven test's rows, one per CPU kernel level this build has (builtCpuKernelVariants: baseline,
// avx2, avx512, ...), each holding the level's name in the column "variant".
void addKernelVariantRows();

namespace attnscope::kernels {
struct CpuKernels;
}

// One level's kernel table (loadCpuKernelVariant), or null where this build or this CPU lacks it.
const attnscope::kernels::CpuKernels* kernelsOfVariant(const QString& variant);

// In a test function of addKernelVariantRows' rows: fetches "variant" and declares `name`, that level's
// table; skips the row where this CPU lacks the level.
#define FETCH_KERNELS_OR_SKIP(name)                                                                          \
    QFETCH(QString, variant);                                                                                \
    const attnscope::kernels::CpuKernels* const name = kernelsOfVariant(variant);                            \
    if (!kernels) QSKIP("this CPU lacks the level")
