// A stand-in for an ATTNSCOPE_NATIVE build started on a CPU below its own, for app/tst_packaged_cpu: compiled
// for x86-64-v4 (AVX-512), with a static constructor and a main() that each execute an AVX-512 instruction.
// Linked with app/cpurequirements.cpp (target cpurequirements_probe), the CPU check must stop it with one
// line before either runs; linked without (cpurequirements_probe_unchecked), the same code dies of SIGILL
// there, which shows that the check is what stops it.

#include <cstdio>

namespace {

__attribute__((constructor)) void useAvx512BeforeMain()
{
    asm volatile("vpxord %%zmm0, %%zmm0, %%zmm0" ::: "xmm0");
}

} // namespace

int main()
{
    asm volatile("vpxord %%zmm1, %%zmm1, %%zmm1" ::: "xmm1");
    std::puts("ran");
    return 0;
}
