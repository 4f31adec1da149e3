// An ATTNSCOPE_NATIVE build is compiled for the CPU it was built on (-march=native) and may use that CPU's
// instructions anywhere, even in static constructors. Started on a CPU without them it would die of SIGILL
// at some arbitrary point. This check runs before any other code of the executable (a constructor of the
// highest priority) and says in one line which instruction set is missing. Its own code is compiled for
// plain x86-64 (the target attribute), so it runs on any CPU.
//
// A portable build (the default) uses nothing beyond x86-64 outside the kernel modules, which are picked
// by what the CPU has (core/kernels): none of the macros below is defined and the check is empty.

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <cstring>
#include <unistd.h>

namespace {

[[maybe_unused]] __attribute__((target("arch=x86-64"))) void refuse(const char* instructionSet)
{
    const char* parts[] = {"attnscope: this CPU lacks ", instructionSet,
                           ", which this build needs (it was compiled with -march=native for another CPU; "
                           "a build with ATTNSCOPE_NATIVE=OFF runs on any x86-64 CPU)\n"};
    for (const char* part : parts)
        if (write(STDERR_FILENO, part, std::strlen(part)) < 0) break;
    _exit(1);
}

#define ATTNSCOPE_REQUIRE(feature, name)                                                                     \
    if (!__builtin_cpu_supports(feature)) refuse(name)

__attribute__((constructor(101), target("arch=x86-64"))) void checkCpuRequirements()
{
    __builtin_cpu_init(); // constructors run before libgcc's own CPU detection
#ifdef __SSSE3__
    ATTNSCOPE_REQUIRE("ssse3", "SSSE3");
#endif
#ifdef __SSE4_2__
    ATTNSCOPE_REQUIRE("sse4.2", "SSE4.2");
#endif
#ifdef __POPCNT__
    ATTNSCOPE_REQUIRE("popcnt", "POPCNT");
#endif
#ifdef __AVX__
    ATTNSCOPE_REQUIRE("avx", "AVX");
#endif
#ifdef __AVX2__
    ATTNSCOPE_REQUIRE("avx2", "AVX2");
#endif
#ifdef __FMA__
    ATTNSCOPE_REQUIRE("fma", "FMA");
#endif
#ifdef __F16C__
    ATTNSCOPE_REQUIRE("f16c", "F16C");
#endif
#ifdef __BMI2__
    ATTNSCOPE_REQUIRE("bmi2", "BMI2");
#endif
#ifdef __AVX512F__
    ATTNSCOPE_REQUIRE("avx512f", "AVX-512F");
#endif
#ifdef __AVX512BW__
    ATTNSCOPE_REQUIRE("avx512bw", "AVX-512BW");
#endif
#ifdef __AVX512DQ__
    ATTNSCOPE_REQUIRE("avx512dq", "AVX-512DQ");
#endif
#ifdef __AVX512VL__
    ATTNSCOPE_REQUIRE("avx512vl", "AVX-512VL");
#endif
#ifdef __AVX512CD__
    ATTNSCOPE_REQUIRE("avx512cd", "AVX-512CD");
#endif
#ifdef __AVX512VNNI__
    ATTNSCOPE_REQUIRE("avx512vnni", "AVX-512 VNNI");
#endif
#ifdef __AVX512BF16__
    ATTNSCOPE_REQUIRE("avx512bf16", "AVX-512 BF16");
#endif
#ifdef __AVX512FP16__
    ATTNSCOPE_REQUIRE("avx512fp16", "AVX-512 FP16");
#endif
}

#undef ATTNSCOPE_REQUIRE

} // namespace

#endif
