#include "model/openblas.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#ifdef ATTNSCOPE_HAVE_OPENBLAS
#include <dlfcn.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

namespace attnscope::ops {

namespace {

constexpr const char* kCoreVariable = "OPENBLAS_CORETYPE";
[[maybe_unused]] constexpr const char* kThreadsVariable = "OPENBLAS_NUM_THREADS";

// What chooseOpenBlasCore() found and did, for the description.
struct CoreChoice
{
    std::string fromEnvironment; // the user's OPENBLAS_CORETYPE, when set
    const char* setByUs = nullptr;
};

CoreChoice& coreChoice()
{
    static CoreChoice choice;
    return choice;
}

#ifdef ATTNSCOPE_HAVE_OPENBLAS
// OpenBLAS (0.3.21 in Debian 12, and upstream to date) takes its "Opteron" kernels for any CPU that calls
// itself AuthenticAMD family 15, and those use 3DNow!'s femms. qemu's default CPU model, qemu64, says exactly
// that without 3DNow!, so sgemm dies with SIGILL in such a VM (and under qemu-user). There Eigen computes
// the products instead.
bool cpuHas3dNow()
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid(0x80000001u, &eax, &ebx, &ecx, &edx) && (edx & (1u << 31)) != 0;
#else
    return true;
#endif
}

struct Loaded
{
    OpenBlas blas;
    bool usable = false;
    std::string whyNot; // when !usable
};

const Loaded& loaded()
{
    static const Loaded result = [] {
        Loaded l;
        chooseOpenBlasCore();
        void* library = dlopen(ATTNSCOPE_OPENBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            const char* error = dlerror();
            l.whyNot = std::string(ATTNSCOPE_OPENBLAS_SONAME " did not load: ") + (error ? error : "?");
            return l;
        }
        using SetThreads = void (*)(int);
        using CoreName = char* (*)();
        auto sgemm = reinterpret_cast<decltype(OpenBlas::sgemm)>(dlsym(library, "sgemm_"));
        auto setThreads = reinterpret_cast<SetThreads>(dlsym(library, "openblas_set_num_threads"));
        auto coreName = reinterpret_cast<CoreName>(dlsym(library, "openblas_get_corename"));
        if (!sgemm || !setThreads || !coreName) {
            l.whyNot = ATTNSCOPE_OPENBLAS_SONAME " lacks sgemm_, openblas_set_num_threads or "
                                                 "openblas_get_corename";
            return l;
        }
        // ops::linear runs one product per thread of its own: OpenBLAS must not start more.
        setThreads(1);
        const char* core = coreName();
        l.blas.core = core ? core : "?";
        l.blas.sgemm = sgemm;
        if (l.blas.core.rfind("Opteron", 0) == 0 && !cpuHas3dNow()) {
            l.whyNot = "OpenBLAS's " + l.blas.core + " kernels need 3DNow!, which this CPU lacks";
            return l;
        }
        l.usable = true;
        return l;
    }();
    return result;
}
#endif

} // namespace

BlasCpuFeatures thisCpuBlasFeatures()
{
    BlasCpuFeatures cpu;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    // libgcc/compiler-rt report AVX and AVX-512 only when the OS also saves those registers (XCR0).
    __builtin_cpu_init();
    cpu.avx2 = __builtin_cpu_supports("avx2");
    cpu.fma = __builtin_cpu_supports("fma");
    cpu.avx512f = __builtin_cpu_supports("avx512f");
    cpu.avx512bw = __builtin_cpu_supports("avx512bw");
    cpu.avx512dq = __builtin_cpu_supports("avx512dq");
    cpu.avx512vl = __builtin_cpu_supports("avx512vl");
#endif
    return cpu;
}

const char* openBlasCoreFor(const BlasCpuFeatures& cpu)
{
    // OpenBLAS's SkylakeX kernels use AVX-512 F/BW/DQ/VL; its Haswell kernels AVX2 and FMA. Below those
    // it knows every CPU (they all predate it), so its own choice stands.
    if (cpu.avx512f && cpu.avx512bw && cpu.avx512dq && cpu.avx512vl && cpu.avx2 && cpu.fma) return "SkylakeX";
    if (cpu.avx2 && cpu.fma) return "Haswell";
    return nullptr;
}

void chooseOpenBlasCore()
{
    static std::once_flag once;
    std::call_once(once, [] {
        CoreChoice& choice = coreChoice();
#ifdef ATTNSCOPE_HAVE_OPENBLAS
        // ops::linear gives OpenBLAS one thread per call (loaded() sets it), but the library's constructor
        // starts a pool of (cores − 1) threads of its own first, from OPENBLAS_NUM_THREADS or the core count,
        // and each spins on sched_yield for a while before it sleeps: ~70 ms of one of two cores taken from
        // our own threads at the start of a BERT-base pass (perf, docs/benchmarks.md). With 1 it starts none.
        // The user's value, if any, is kept (loaded() still calls openblas_set_num_threads(1)).
        if (const char* threads = std::getenv(kThreadsVariable); !threads || !*threads)
            setenv(kThreadsVariable, "1", 1);
#endif
        const char* user = std::getenv(kCoreVariable);
        if (user && *user) {
            choice.fromEnvironment = user;
            return;
        }
#ifdef ATTNSCOPE_HAVE_OPENBLAS
        // Left in the environment afterwards: a child process with OpenBLAS gets the same kernels.
        if (const char* core = openBlasCoreFor(thisCpuBlasFeatures()))
            if (setenv(kCoreVariable, core, 1) == 0) choice.setByUs = core;
#endif
    });
}

const OpenBlas* openBlas()
{
#ifdef ATTNSCOPE_HAVE_OPENBLAS
    return loaded().usable ? &loaded().blas : nullptr;
#else
    return nullptr;
#endif
}

std::string openBlasDescription()
{
#ifdef ATTNSCOPE_HAVE_OPENBLAS
    const Loaded& l = loaded();
    if (!l.usable) return "Eigen (" + l.whyNot + ")";
    const CoreChoice& choice = coreChoice();
    std::string text = "OpenBLAS (" + l.blas.core + " kernels; ";
    if (!choice.fromEnvironment.empty())
        text += std::string(kCoreVariable) + "=" + choice.fromEnvironment + " from the environment";
    else if (choice.setByUs)
        text += std::string(kCoreVariable) + "=" + choice.setByUs + " set by AttnScope for " +
                (std::strcmp(choice.setByUs, "SkylakeX") == 0 ? "AVX-512" : "AVX2 and FMA");
    else
        text += "OpenBLAS's own choice";
    return text + ")";
#else
    return "Eigen (this build has no OpenBLAS)";
#endif
}

} // namespace attnscope::ops
