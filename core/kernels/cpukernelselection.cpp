#include "kernels/cpukernelselection.h"

#include <QDir>
#include <QFileInfo>
#include <QString>

#ifdef ATTNSCOPE_CPU_KERNEL_MODULES
#include <dlfcn.h>
#endif
#if defined(__x86_64__) && defined(__clang__) && __clang_major__ < 16
#include <cpuid.h>
#endif

// Set by core/CMakeLists.txt: ATTNSCOPE_CPU_KERNEL_MODULES="avx2,avx512" where the modules are built, and
// ATTNSCOPE_CPU_KERNEL_DIR, their folder relative to the executable's (the same in the build tree and
// installed: bin/../lib/attnscope). ATTNSCOPE_CPU_KERNELS_NATIVE in an ATTNSCOPE_NATIVE build.

namespace attnscope::kernels {

namespace {

constexpr QLatin1String kBaseline("baseline");

bool isBuiltIn(const QString& variant)
{
    return variant == kBaseline || variant == QLatin1String("native");
}

#ifdef ATTNSCOPE_CPU_KERNEL_MODULES
// The folder of the running executable: the kernel modules are found relative to it, so a build tree,
// an installed /usr/bin/attnscope and a package unpacked anywhere each use their own.
QString executableDir()
{
    return QFileInfo(QFile::symLinkTarget(QStringLiteral("/proc/self/exe"))).absolutePath();
}

QString modulePath(const QString& variant)
{
    return QDir::cleanPath(executableDir() + QLatin1Char('/') + QStringLiteral(ATTNSCOPE_CPU_KERNEL_DIR) +
                           QStringLiteral("/attnscope_cpu_") + variant + QStringLiteral(".so"));
}

// dlopen the module; its table, or null with *error. Never unloaded: its code serves the whole process.
const CpuKernels* loadModule(const QString& path, QString* error)
{
    if (!QFileInfo::exists(path)) {
        *error = QStringLiteral("%1 is missing").arg(path);
        return nullptr;
    }
    // RTLD_LOCAL: nothing in it becomes visible to libraries loaded later (it exports one symbol anyway).
    void* handle = dlopen(QFile::encodeName(path).constData(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        *error = QString::fromLocal8Bit(dlerror());
        return nullptr;
    }
    using Entry = const CpuKernels* (*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(handle, kCpuKernelsEntry));
    if (!entry) {
        *error = QStringLiteral("%1 has no %2").arg(path, QLatin1String(kCpuKernelsEntry));
        return nullptr;
    }
    return entry();
}
#endif

} // namespace

QStringList builtCpuKernelVariants()
{
#if defined(ATTNSCOPE_CPU_KERNELS_NATIVE)
    return {QStringLiteral("native")};
#elif defined(ATTNSCOPE_CPU_KERNEL_MODULES)
    return QStringList{QString(kBaseline)} +
           QStringLiteral(ATTNSCOPE_CPU_KERNEL_MODULES).split(QLatin1Char(','));
#else
    return {QString(kBaseline)};
#endif
}

bool cpuRunsVariant(const QString& variant)
{
    if (isBuiltIn(variant)) return true; // a native build checks its CPU in main() (app/cpurequirements.cpp)
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    // The features each psABI level lets the compiler use (-march=x86-64-v3, -v4). libgcc/compiler-rt set the
    // AVX and AVX-512 bits only when the OS also saves those registers (XCR0).
    __builtin_cpu_init();
#if defined(__clang__) && __clang_major__ < 16
    // Clang before 16 (Debian 12's clang-14 builds the fuzz preset) does not know "f16c", "lzcnt" and "movbe"
    // here: read them from CPUID, as libgcc does (leaf 1 ECX bits 29 and 22; leaf 0x80000001 ECX bit 5).
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool f16cAndMovbe =
        __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29)) && (ecx & (1u << 22));
    const bool lzcnt = __get_cpuid(0x80000001u, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 5));
    const bool f16cLzcntMovbe = f16cAndMovbe && lzcnt;
#else
    const bool f16cLzcntMovbe =
        __builtin_cpu_supports("f16c") && __builtin_cpu_supports("lzcnt") && __builtin_cpu_supports("movbe");
#endif
    const bool v3 = __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2") &&
                    __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi") &&
                    __builtin_cpu_supports("bmi2") && f16cLzcntMovbe;
    if (variant == QLatin1String("avx2")) return v3;
    if (variant == QLatin1String("avx512"))
        return v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vl");
#endif
    return false;
}

QString variantInstructionSets(const QString& variant)
{
    if (variant == QLatin1String("avx2"))
        return QStringLiteral("x86-64-v3: AVX2, FMA, BMI1/2, F16C, LZCNT, MOVBE");
    if (variant == QLatin1String("avx512"))
        return QStringLiteral("x86-64-v4: AVX-512 F/BW/CD/DQ/VL on top of x86-64-v3");
    if (variant == QLatin1String("native")) return QStringLiteral("-march=native: this build's CPU only");
#if defined(__x86_64__)
    return QStringLiteral("x86-64: SSE2");
#else
    return QStringLiteral("the compiler's default for this architecture");
#endif
}

QString CpuKernelChoice::description() const
{
    QString text = QStringLiteral("%1 (%2)").arg(variant, variantInstructionSets(variant));
    if (!module.isEmpty()) text += QStringLiteral(" from ") + module;
    if (!note.isEmpty()) text += QStringLiteral("; ") + note;
    return text;
}

QString unloadedKernelsWarning()
{
    const CpuKernelChoice& choice = cpuKernelChoice();
    if (choice.unloaded.isEmpty()) return {};
    return QStringLiteral("using the %1 CPU kernels, slower than this CPU allows: %2 (the modules belong in "
                          "lib/attnscope/ beside the executable's bin/, as the package installs them)")
        .arg(choice.variant, choice.unloaded);
}

CpuKernelChoice loadCpuKernelVariant(const QString& variant, QString* error)
{
    CpuKernelChoice choice;
    choice.variant = variant;
    const QStringList built = builtCpuKernelVariants();
    if (!built.contains(variant)) {
        *error = QStringLiteral("this build has no %1 kernels (it has %2)")
                     .arg(variant, built.join(QStringLiteral(", ")));
        return choice;
    }
    if (!cpuRunsVariant(variant)) {
        *error = QStringLiteral("this CPU lacks %1 for the %2 kernels")
                     .arg(variantInstructionSets(variant), variant);
        return choice;
    }
    const CpuKernels* kernels = nullptr;
    if (isBuiltIn(variant)) {
        kernels = attnscope_cpu_kernels_builtin();
    } else {
#ifdef ATTNSCOPE_CPU_KERNEL_MODULES
        choice.module = modulePath(variant);
        kernels = loadModule(choice.module, error);
#endif
        if (!kernels) return choice;
    }
    if (kernels->abi != kCpuKernelsAbi || variant != QLatin1String(kernels->variant)) {
        *error = QStringLiteral("%1 is from another build (kernels %2, interface %3; expected %4, %5)")
                     .arg(choice.module.isEmpty() ? QStringLiteral("the built-in table") : choice.module,
                          QLatin1String(kernels->variant))
                     .arg(kernels->abi)
                     .arg(variant)
                     .arg(kCpuKernelsAbi);
        return choice;
    }
    choice.kernels = kernels;
    return choice;
}

const CpuKernelChoice& cpuKernelChoice()
{
    static const CpuKernelChoice chosen = [] {
        const QStringList built = builtCpuKernelVariants();
        QStringList candidates; // highest first
        for (auto it = built.rbegin(); it != built.rend(); ++it)
            if (cpuRunsVariant(*it)) candidates << *it;
        QStringList notes;
        const QString requested = qEnvironmentVariable("ATTNSCOPE_CPU_KERNELS").trimmed().toLower();
        if (!requested.isEmpty() && requested != QLatin1String("auto")) {
            const auto at = candidates.indexOf(requested);
            if (at >= 0)
                candidates = candidates.mid(at);
            else if (built.contains(requested))
                notes << QStringLiteral("ATTNSCOPE_CPU_KERNELS=%1 ignored: this CPU lacks %2")
                             .arg(requested, variantInstructionSets(requested));
            else
                notes << QStringLiteral("ATTNSCOPE_CPU_KERNELS=%1 ignored: this build has %2")
                             .arg(requested, built.join(QStringLiteral(", ")));
            if (at > 0) notes << QStringLiteral("ATTNSCOPE_CPU_KERNELS=%1").arg(requested);
        }
        QStringList unloaded;
        for (const QString& variant : candidates) {
            QString error;
            CpuKernelChoice choice = loadCpuKernelVariant(variant, &error);
            if (choice.kernels) {
                choice.note = notes.join(QStringLiteral("; "));
                choice.unloaded = unloaded.join(QStringLiteral("; "));
                return choice;
            }
            notes << QStringLiteral("%1 kernels not loaded: %2").arg(variant, error);
            unloaded << notes.last();
        }
        // Unreachable: the built-in level is always a candidate and always loads.
        CpuKernelChoice builtIn;
        builtIn.kernels = attnscope_cpu_kernels_builtin();
        builtIn.variant = QLatin1String(builtIn.kernels->variant);
        builtIn.note = notes.join(QStringLiteral("; "));
        builtIn.unloaded = unloaded.join(QStringLiteral("; "));
        return builtIn;
    }();
    return chosen;
}

} // namespace attnscope::kernels
