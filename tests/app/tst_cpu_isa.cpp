// The proof that the portable build keeps its AVX2/AVX-512 code inside the kernel modules (core/kernels/
// cpukernels.h): disassembled with objdump, the attnscope executable (all of attnscope_core, the UI and
// the app) has no VEX or EVEX instruction at all, so nothing in it needs more than x86-64; the avx2 module
// has no EVEX (AVX-512) instruction; and each module exports its entry point and nothing else, so none of
// its Eigen or libstdc++ template copies can stand in for the executable's. Then, on the binary, that
// ATTNSCOPE_CPU_KERNELS picks the level and gpu-info names it.

#include "kernels/cpukernelselection.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace attnscope;

namespace {

const QString kModuleDir = QStringLiteral(ATTNSCOPE_BUILD_DIR "/lib/attnscope/");

struct Encodings
{
    qint64 instructions = 0;
    qint64 vex = 0;       // AVX, AVX2, FMA, ... (VEX prefix C4/C5)
    qint64 evex = 0;      // AVX-512 (EVEX prefix 62)
    QStringList examples; // "function: instruction" for the first few VEX/EVEX ones
};

// Counts the instructions of every executable section by their encoding. In 64-bit mode C4/C5 and 62 as the
// first opcode byte are always VEX and EVEX (LES, LDS and BOUND do not exist there); only segment and
// address-size prefixes may come before them.
Encodings encodings(const QString& file)
{
    Encodings result;
    QProcess objdump;
    objdump.start(QStringLiteral("objdump"), {QStringLiteral("-d"), QStringLiteral("-w"), file});
    if (!objdump.waitForStarted()) {
        result.examples << QStringLiteral("objdump did not start (binutils)");
        return result;
    }
    static const QList<QByteArray> skippedPrefixes = {"26", "2e", "36", "3e", "64", "65", "67"};
    QByteArray function;
    auto handle = [&](const QByteArray& line) {
        if (line.endsWith(">:\n")) { // "0000000000401126 <main>:"
            function = line.mid(line.indexOf('<') + 1).chopped(3);
            return;
        }
        const QList<QByteArray> fields = line.split('\t'); // "  4011d6:", "c5 fc 10 04 07 ", "vmovups ..."
        if (fields.size() < 3 || !fields[0].trimmed().endsWith(':')) return;
        const QList<QByteArray> bytes = fields[1].simplified().split(' ');
        int first = 0;
        while (first < bytes.size() && skippedPrefixes.contains(bytes[first]))
            ++first;
        if (first >= bytes.size()) return;
        ++result.instructions;
        const bool isEvex = bytes[first] == "62";
        const bool isVex = bytes[first] == "c4" || bytes[first] == "c5";
        result.evex += isEvex;
        result.vex += isVex;
        if ((isEvex || isVex) && result.examples.size() < 5)
            result.examples << QString::fromLatin1(function + ": " + fields[2].trimmed());
    };
    while (objdump.state() != QProcess::NotRunning || objdump.canReadLine()) {
        if (!objdump.canReadLine() && !objdump.waitForReadyRead(120000) &&
            objdump.state() == QProcess::NotRunning)
            break;
        while (objdump.canReadLine())
            handle(objdump.readLine());
    }
    objdump.waitForFinished(-1);
    return result;
}

QStringList exportedSymbols(const QString& file)
{
    QProcess nm;
    nm.start(QStringLiteral("nm"), {QStringLiteral("-D"), QStringLiteral("--defined-only"), file});
    nm.waitForFinished(60000);
    QStringList names;
    for (const QByteArray& line : nm.readAllStandardOutput().split('\n'))
        if (!line.trimmed().isEmpty()) names << QString::fromLatin1(line.split(' ').last());
    return names;
}

bool hasModules()
{
    return kernels::builtCpuKernelVariants().size() > 1;
}

struct GpuInfo
{
    QString cpuKernelsLine; // "cpu kernels: ..." from stdout, or what went wrong
    QString standardError;
};

// `gpu-info --backend cpu` of a binary (the build's by default), with ATTNSCOPE_CPU_KERNELS=request.
GpuInfo gpuInfo(const QString& request, const QString& binary = QStringLiteral(ATTNSCOPE_BINARY))
{
    static QTemporaryDir runtimeDir;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_RUNTIME_DIR"), runtimeDir.path());
    environment.remove(QStringLiteral("ATTNSCOPE_CPU_KERNELS"));
    if (!request.isNull()) environment.insert(QStringLiteral("ATTNSCOPE_CPU_KERNELS"), request);
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(binary, {QStringLiteral("gpu-info"), QStringLiteral("--backend"), QStringLiteral("cpu")});
    process.waitForFinished(60000);
    GpuInfo info;
    info.standardError = QString::fromUtf8(process.readAllStandardError());
    for (const QString& line : QString::fromUtf8(process.readAllStandardOutput()).split(QLatin1Char('\n')))
        if (line.startsWith(QLatin1String("cpu kernels: "))) info.cpuKernelsLine = line;
    if (info.cpuKernelsLine.isEmpty())
        info.cpuKernelsLine = QStringLiteral("(no cpu kernels line; stderr: %1)").arg(info.standardError);
    return info;
}

QString gpuInfoCpuKernelsLine(const QString& request)
{
    return gpuInfo(request).cpuKernelsLine;
}

} // namespace

class TestCpuIsa : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void executableIsPlainX86_64()
    {
        if (!hasModules())
            QSKIP("an ATTNSCOPE_NATIVE build (or no modules here): all of it is this CPU's code");
        const Encodings executable = encodings(QStringLiteral(ATTNSCOPE_BINARY));
        QVERIFY2(executable.instructions > 100000, qPrintable(executable.examples.join(QLatin1Char('\n'))));
        QVERIFY2(executable.vex == 0 && executable.evex == 0,
                 qPrintable(QStringLiteral("%1 VEX and %2 EVEX instructions in the executable, e.g.\n%3")
                                .arg(executable.vex)
                                .arg(executable.evex)
                                .arg(executable.examples.join(QLatin1Char('\n')))));
    }

    void modulesStayInTheirLevel()
    {
        if (!hasModules()) QSKIP("no kernel modules in this build");
        const Encodings avx2 = encodings(kModuleDir + QStringLiteral("attnscope_cpu_avx2.so"));
        const Encodings avx512 = encodings(kModuleDir + QStringLiteral("attnscope_cpu_avx512.so"));
        // Each module really is compiled for its level (and the counting finds both encodings) ...
        QVERIFY2(avx2.vex > 100, qPrintable(QString::number(avx2.vex)));
        QVERIFY2(avx512.evex > 100, qPrintable(QString::number(avx512.evex)));
        // ... and the avx2 one runs where AVX-512 does not.
        QVERIFY2(avx2.evex == 0,
                 qPrintable(QStringLiteral("%1 EVEX instructions in the avx2 module, e.g.\n%2")
                                .arg(avx2.evex)
                                .arg(avx2.examples.join(QLatin1Char('\n')))));
    }

    void modulesExportOnlyTheirEntryPoint()
    {
        if (!hasModules()) QSKIP("no kernel modules in this build");
        for (const QString& variant : {QStringLiteral("avx2"), QStringLiteral("avx512")}) {
            const QStringList symbols =
                exportedSymbols(kModuleDir + QStringLiteral("attnscope_cpu_%1.so").arg(variant));
            QCOMPARE(symbols, QStringList{QLatin1String(kernels::kCpuKernelsEntry)});
        }
    }

    void environmentChoosesTheLevel_data()
    {
        QTest::addColumn<QString>("request");
        QTest::addColumn<QString>("expectedStart");
        QTest::addColumn<QString>("expectedPart");
        QString best;
        for (const QString& variant : kernels::builtCpuKernelVariants())
            if (kernels::cpuRunsVariant(variant)) best = variant;
        const QString from = QStringLiteral(" from ") + kModuleDir;
        QTest::newRow("unset") << QString() << best << QString();
        QTest::newRow("baseline") << QStringLiteral("baseline") << QStringLiteral("baseline (x86-64: SSE2)")
                                  << QString();
        QTest::newRow("auto") << QStringLiteral("auto") << best << QString();
        QTest::newRow("unknown") << QStringLiteral("sse9") << best
                                 << QStringLiteral("ATTNSCOPE_CPU_KERNELS=sse9 ignored: this build has ");
        if (kernels::cpuRunsVariant(QStringLiteral("avx2")))
            QTest::newRow("avx2") << QStringLiteral("avx2") << QStringLiteral("avx2")
                                  << from + QStringLiteral("attnscope_cpu_avx2.so");
        if (kernels::cpuRunsVariant(QStringLiteral("avx512")))
            QTest::newRow("avx512") << QStringLiteral("AVX512") << QStringLiteral("avx512")
                                    << from + QStringLiteral("attnscope_cpu_avx512.so");
    }
    void environmentChoosesTheLevel()
    {
        if (!hasModules()) QSKIP("no kernel modules in this build");
        QFETCH(QString, request);
        QFETCH(QString, expectedStart);
        QFETCH(QString, expectedPart);
        const QString line = gpuInfoCpuKernelsLine(request);
        QVERIFY2(line.startsWith(QStringLiteral("cpu kernels: ") + expectedStart), qPrintable(line));
        if (!expectedPart.isEmpty()) QVERIFY2(line.contains(expectedPart), qPrintable(line));
        if (request.isNull() || request == QLatin1String("auto"))
            QVERIFY2(!line.contains(QLatin1String("; ")), qPrintable(line));
    }

    // The executable copied alone (without ../lib/attnscope) still runs, on the baseline kernels, and says on
    // stderr that it is slower than the CPU allows, naming the module it looked for; the build's own binary
    // and a level left out on request say nothing of the kind.
    void binaryWithoutItsModulesSaysSo()
    {
        if (!hasModules()) QSKIP("no kernel modules in this build");
        QString best;
        for (const QString& variant : kernels::builtCpuKernelVariants())
            if (kernels::cpuRunsVariant(variant)) best = variant;
        if (best == QLatin1String("baseline")) QSKIP("this CPU runs only the baseline kernels");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("bin"))));
        const QString copy = dir.filePath(QStringLiteral("bin/attnscope"));
        QVERIFY(QFile::copy(QStringLiteral(ATTNSCOPE_BINARY), copy));
        QVERIFY(QFile::setPermissions(copy, QFile::permissions(copy) | QFileDevice::ExeOwner));

        const GpuInfo alone = gpuInfo(QString(), copy);
        QVERIFY2(alone.cpuKernelsLine.startsWith(QLatin1String("cpu kernels: baseline")),
                 qPrintable(alone.cpuKernelsLine));
        const QString missing = dir.filePath(QStringLiteral("lib/attnscope/attnscope_cpu_%1.so").arg(best));
        QVERIFY2(
            alone.standardError.contains(
                QStringLiteral("attnscope: warning: using the baseline CPU kernels, slower than this CPU "
                               "allows: %1 kernels not loaded: %2 is missing")
                    .arg(best, missing)),
            qPrintable(alone.standardError));

        const GpuInfo built = gpuInfo(QString());
        QVERIFY2(!built.standardError.contains(QLatin1String("warning: using")),
                 qPrintable(built.standardError));
        const GpuInfo asked = gpuInfo(QStringLiteral("baseline"));
        QVERIFY2(asked.cpuKernelsLine.startsWith(QLatin1String("cpu kernels: baseline")),
                 qPrintable(asked.cpuKernelsLine));
        QVERIFY2(!asked.standardError.contains(QLatin1String("warning: using")),
                 qPrintable(asked.standardError));
    }
};

QTEST_GUILESS_MAIN(TestCpuIsa)
#include "tst_cpu_isa.moc"
