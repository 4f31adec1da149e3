#pragma once

// A data-driven test's rows, one per CPU kernel level this build has (builtCpuKernelVariants: baseline,
// avx2, avx512, ...), each holding the level's name in the column "variant".
void addKernelVariantRows();
