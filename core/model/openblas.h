#pragma once

// OpenBLAS, where the build found it, computes the projections' products (ops::linear). It is loaded at run
// time (dlopen), not linked, for one reason: OpenBLAS (DYNAMIC_ARCH, as Debian ships it) picks its kernels
// from CPUID once, in its library constructor, and a version older than the CPU falls back to generic
// kernels without a word (Debian 12's 0.3.21 takes "Prescott", SSE3, on Emerald Rapids Xeons: 1.7–2.2×
// slower whole-model runs than its AVX-512 kernels). The only switch it reads is the environment variable
// OPENBLAS_CORETYPE, so AttnScope sets it from CPUID before the library is loaded, unless the user has set
// it (the user's choice always wins). See docs/cpu-kernels.md.

#include <string>

namespace attnscope::ops {

// What the choice of OpenBLAS kernels looks at (the OS must also save the registers: XCR0).
struct BlasCpuFeatures
{
    bool avx2 = false;
    bool fma = false;
    bool avx512f = false;
    bool avx512bw = false;
    bool avx512dq = false;
    bool avx512vl = false;
};

BlasCpuFeatures thisCpuBlasFeatures();

// The OPENBLAS_CORETYPE name for a CPU: "SkylakeX" with AVX-512 F/BW/DQ/VL, "Haswell" with AVX2 and FMA,
// nullptr otherwise (OpenBLAS's own choice is kept: on such CPUs it knows them all).
const char* openBlasCoreFor(const BlasCpuFeatures& cpu);

// Sets OPENBLAS_CORETYPE for this CPU when the environment has none, and OPENBLAS_NUM_THREADS to 1 (AttnScope
// runs one single-threaded product per thread of its own; OpenBLAS's idle pool only spins). Once per process;
// call it before any thread starts (main() does; openBlas() calls it too, for programs that did not).
void chooseOpenBlasCore();

// The loaded library. Null when the build has no OpenBLAS or it did not load (then Eigen computes).
struct OpenBlas
{
    void (*sgemm)(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                  const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
                  const float* beta, float* c, const int* ldc) = nullptr; // Fortran BLAS, column-major
    std::string core; // openblas_get_corename(): "SkylakeX", "Haswell", "Prescott", ...
};
const OpenBlas* openBlas();

// One line for gpu-info: "OpenBLAS (SkylakeX kernels; OPENBLAS_CORETYPE=SkylakeX set by AttnScope for
// AVX-512)", "... from the environment", "... OpenBLAS's own choice", or "Eigen (why not OpenBLAS)".
std::string openBlasDescription();

} // namespace attnscope::ops
