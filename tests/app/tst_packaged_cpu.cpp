// The packaged attnscope (the .deb that the install/deb test builds and unpacks; ctest runs it first, fixture
// "deb") on CPUs without AVX-512, emulated by Debian's qemu-user:
//   Haswell  AVX2 + FMA, no AVX-512: the avx2 module from the package;
//   Nehalem  x86-64-v2, no AVX: the built-in baseline kernels;
//   qemu64   qemu's default model, close to plain x86-64 (no SSSE3): baseline, and Eigen for the projections
//            (OpenBLAS would pick its 3DNow! "Opteron" kernels there, see core/model/tensorops.cpp).
// On each it must name its kernels, and compute the worked example and two oracle models as the native
// build does: against the hand computation and upstream's attentions, against the native build's numbers,
// and bit for bit against the native build running the same kernels and the same OpenBLAS kernels.
// An ATTNSCOPE_NATIVE build's package is for its build machine only: on a CPU that lacks one of its
// instruction sets it must say so in one line and exit, never die of SIGILL (app/cpurequirements.cpp).

#include "attention/workedexample.h"
#include "io/npy.h"
#include "kernels/cpukernelselection.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <memory>

using namespace attnscope;

namespace {

const QString kPackageRoot = QStringLiteral(ATTNSCOPE_BUILD_DIR "/tests/deb-check/root");
const QString kPackagedBinary = kPackageRoot + QStringLiteral("/usr/bin/attnscope");

QString oracle(const QString& name)
{
    return QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/") + name;
}

QString oracleIds(const QString& name)
{
    QFile file(oracle(name) + QStringLiteral("/case.json"));
    file.open(QIODevice::ReadOnly);
    QStringList ids;
    for (const QJsonValue& id :
         QJsonDocument::fromJson(file.readAll()).object().value(QLatin1String("input_ids")).toArray())
        ids << QString::number(id.toInt());
    return ids.join(QLatin1Char(','));
}

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

// The packaged binary under `qemu-x86_64 -cpu cpu`, or the native build's binary when cpu is empty.
Run run(const QString& cpu, const QStringList& arguments, const QStringList& environment = {})
{
    static QTemporaryDir runtimeDir;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_RUNTIME_DIR"), runtimeDir.path());
    env.remove(QStringLiteral("ATTNSCOPE_CPU_KERNELS"));
    env.remove(QStringLiteral("OPENBLAS_CORETYPE"));
    for (const QString& assignment : environment)
        env.insert(assignment.section(QLatin1Char('='), 0, 0), assignment.section(QLatin1Char('='), 1));
    QProcess process;
    process.setProcessEnvironment(env);
    if (cpu.isEmpty())
        process.start(QStringLiteral(ATTNSCOPE_BINARY), arguments);
    else
        process.start(QStringLiteral("qemu-x86_64"),
                      QStringList{QStringLiteral("-cpu"), cpu, kPackagedBinary} + arguments);
    if (!process.waitForFinished(300000)) process.kill();
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

// The probabilities an attention/export command wrote to `path` (npy), or empty with a failed check.
std::vector<double> probabilities(const Run& r, const QString& path)
{
    if (r.exitCode != 0) {
        qWarning("exit %d: %s", r.exitCode, qPrintable(r.err));
        return {};
    }
    return readNpyFile(path).values;
}

double maxDifference(const std::vector<double>& a, const std::vector<double>& b)
{
    if (a.size() != b.size() || a.empty()) return INFINITY;
    double worst = 0;
    for (size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, std::abs(a[i] - b[i]));
    return worst;
}

// P of the worked example by hand: softmax(q·kᵀ/√4) in double.
std::vector<double> workedExampleByHand()
{
    const WorkedExample example;
    std::vector<double> p;
    for (const auto& q : example.queries) {
        std::vector<double> row;
        double sum = 0;
        for (const auto& k : example.keys) {
            double s = 0;
            for (int c = 0; c < 4; ++c)
                s += double(q[size_t(c)]) * double(k[size_t(c)]);
            row.push_back(std::exp(s / 2.0));
            sum += row.back();
        }
        for (double x : row)
            p.push_back(x / sum);
    }
    return p;
}

} // namespace

class TestPackagedCpu : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
#if !defined(__x86_64__)
        QSKIP("the package is x86-64 only here");
#endif
        QVERIFY2(
            QFile::exists(kPackagedBinary),
            qPrintable(kPackagedBinary + QStringLiteral(" is missing: the install/deb test unpacks it")));
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("qemu-x86_64")).isEmpty(),
                 "qemu-x86_64 is missing: install Debian's qemu-user (tools/dev does)");
    }

    void runsOnOlderCpus_data()
    {
        QTest::addColumn<QString>("cpu");
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>(
            "openBlasCore"); // OPENBLAS_CORETYPE that the native run copies; "" for Eigen
        QTest::newRow("Haswell") << QStringLiteral("Haswell") << QStringLiteral("avx2")
                                 << QStringLiteral("Haswell");
        QTest::newRow("Nehalem") << QStringLiteral("Nehalem") << QStringLiteral("baseline")
                                 << QStringLiteral("Nehalem");
        QTest::newRow("qemu64") << QStringLiteral("qemu64") << QStringLiteral("baseline") << QString();
    }
    void runsOnOlderCpus()
    {
        QFETCH(QString, cpu);
        QFETCH(QString, variant);
        QFETCH(QString, openBlasCore);
        if (kernels::builtCpuKernelVariants() == QStringList{QStringLiteral("native")})
            QSKIP("an ATTNSCOPE_NATIVE build: see nativeBuildRefusesOlderCpus");
        QTemporaryDir dir;

        // It names its kernels, and takes the avx2 module from the package, not from the build tree.
        const Run info =
            run(cpu, {QStringLiteral("gpu-info"), QStringLiteral("--backend"), QStringLiteral("cpu")});
        QVERIFY2(info.exitCode == 0, qPrintable(info.err));
        QVERIFY2(info.out.contains(QStringLiteral("cpu kernels: ") + variant + QStringLiteral(" (")),
                 qPrintable(info.out));
        QVERIFY2(!info.out.contains(QLatin1String("kernels not loaded")), qPrintable(info.out));
        if (variant == QLatin1String("avx2"))
            QVERIFY2(info.out.contains(QStringLiteral(" from ") + kPackageRoot +
                                       QStringLiteral("/usr/lib/attnscope/attnscope_cpu_avx2.so")),
                     qPrintable(info.out));
        // OpenBLAS's kernels: AttnScope names Haswell's itself for AVX2 + FMA (core/model/openblas.h); below
        // that OpenBLAS chooses. A user's OPENBLAS_CORETYPE wins.
        const QString how =
            variant == QLatin1String("avx2")
                ? QStringLiteral("OPENBLAS_CORETYPE=Haswell set by AttnScope for AVX2 and FMA")
                : QStringLiteral("OpenBLAS's own choice");
        QVERIFY2(info.out.contains(
                     openBlasCore.isEmpty()
                         ? QStringLiteral("projections: Eigen")
                         : QStringLiteral("projections: OpenBLAS (%1 kernels; %2)\n").arg(openBlasCore, how)),
                 qPrintable(info.out));
        if (variant == QLatin1String("avx2")) {
            const Run userSet =
                run(cpu, {QStringLiteral("gpu-info"), QStringLiteral("--backend"), QStringLiteral("cpu")},
                    {QStringLiteral("OPENBLAS_CORETYPE=Nehalem")});
            QVERIFY2(userSet.out.contains(QStringLiteral("projections: OpenBLAS (Nehalem kernels; "
                                                         "OPENBLAS_CORETYPE=Nehalem from the environment)")),
                     qPrintable(userSet.out));
        }

        // The worked example: the hand computation, and the native build's numbers.
        const QStringList worked{QStringLiteral("export"),
                                 QStringLiteral("--model"),
                                 QStringLiteral("worked-example"),
                                 QStringLiteral("--text"),
                                 QStringLiteral("kedi mindere oturdu"),
                                 QStringLiteral("--layer"),
                                 QStringLiteral("0"),
                                 QStringLiteral("--head"),
                                 QStringLiteral("0"),
                                 QStringLiteral("--out")};
        const QString emulatedWorked = dir.filePath(QStringLiteral("worked-emulated.npy"));
        const QString nativeWorked = dir.filePath(QStringLiteral("worked-native.npy"));
        const std::vector<double> pEmulated =
            probabilities(run(cpu, worked + QStringList{emulatedWorked}), emulatedWorked);
        const std::vector<double> pNative =
            probabilities(run(QString(), worked + QStringList{nativeWorked}), nativeWorked);
        QVERIFY2(maxDifference(pEmulated, workedExampleByHand()) <= 1e-6,
                 qPrintable(QString::number(maxDifference(pEmulated, workedExampleByHand()))));
        QVERIFY2(maxDifference(pEmulated, pNative) <= 1e-6,
                 qPrintable(QString::number(maxDifference(pEmulated, pNative))));

        // Two oracle models (BERT: LayerNorm, GELU; Llama: RMSNorm, RoPE, GQA, SwiGLU), every layer and head.
        for (const QString& model : {QStringLiteral("bert_s0"), QStringLiteral("llama_s0")}) {
            const QStringList attention{
                QStringLiteral("attention"), QStringLiteral("--model"), oracle(model),
                QStringLiteral("--ids"),     oracleIds(model),          QStringLiteral("--format"),
                QStringLiteral("npy"),       QStringLiteral("--out")};
            const QString emulatedPath = dir.filePath(model + QStringLiteral("-emulated.npy"));
            const QString nativePath = dir.filePath(model + QStringLiteral("-native.npy"));
            const QString sameKernelsPath = dir.filePath(model + QStringLiteral("-native-same-kernels.npy"));
            const std::vector<double> emulated =
                probabilities(run(cpu, attention + QStringList{emulatedPath}), emulatedPath);
            const std::vector<double> native =
                probabilities(run(QString(), attention + QStringList{nativePath}), nativePath);
            const std::vector<double> upstream =
                readNpyFile(oracle(model) + QStringLiteral("/attentions.npy")).values;
            qInfo("%s on %s: max |P − upstream| %.2g, max |P − native| %.2g", qPrintable(model),
                  qPrintable(cpu), maxDifference(emulated, upstream), maxDifference(emulated, native));
            QVERIFY2(maxDifference(emulated, upstream) <= 1e-5,
                     qPrintable(model + QStringLiteral(" vs upstream: ") +
                                QString::number(maxDifference(emulated, upstream))));
            QVERIFY2(maxDifference(emulated, native) <= 5e-6,
                     qPrintable(model + QStringLiteral(" vs native: ") +
                                QString::number(maxDifference(emulated, native))));
            if (openBlasCore.isEmpty()) continue; // the native build cannot be told to skip OpenBLAS
            // The same kernels natively (ATTNSCOPE_CPU_KERNELS, OPENBLAS_CORETYPE): the very same bits.
            const std::vector<double> sameKernels =
                probabilities(run(QString(), attention + QStringList{sameKernelsPath},
                                  {QStringLiteral("ATTNSCOPE_CPU_KERNELS=") + variant,
                                   QStringLiteral("OPENBLAS_CORETYPE=") + openBlasCore}),
                              sameKernelsPath);
            QVERIFY(!sameKernels.empty());
            QVERIFY2(emulated == sameKernels,
                     qPrintable(model + QStringLiteral(" vs native with the same kernels: ") +
                                QString::number(maxDifference(emulated, sameKernels))));
        }
    }

    // A native build either runs (the emulated CPU has all it needs) or refuses in one line: never SIGILL.
    void nativeBuildRefusesOlderCpus_data()
    {
        runsOnOlderCpus_data();
    }
    void nativeBuildRefusesOlderCpus()
    {
        QFETCH(QString, cpu);
        if (kernels::builtCpuKernelVariants() != QStringList{QStringLiteral("native")})
            QSKIP("a portable build: see runsOnOlderCpus");
        const Run info =
            run(cpu, {QStringLiteral("gpu-info"), QStringLiteral("--backend"), QStringLiteral("cpu")});
        QStringList errors; // qemu's own warnings about the CPU model aside
        for (const QString& line : info.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            if (!line.startsWith(QLatin1String("qemu-x86_64: warning:"))) errors << line;
        if (info.exitCode == 0) {
            QVERIFY2(info.out.contains(QLatin1String("cpu kernels: native")), qPrintable(info.out));
            return;
        }
        QCOMPARE(info.exitCode, 1);
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors[0].startsWith(QLatin1String("attnscope: this CPU lacks ")), qPrintable(errors[0]));
    }

    // Below the lowest level a build needs: the portable build's lowest is plain x86-64, which every CPU
    // above has (runsOnOlderCpus, qemu64). An ATTNSCOPE_NATIVE build needs its build machine's levels; what
    // it does elsewhere is shown on a probe built the same way (-march=x86-64-v4 with
    // app/cpurequirements.cpp) around AVX-512 code in a static constructor and in main(): one line naming the
    // first instruction set the CPU lacks, exit status 1, no SIGILL. Without the check the same code dies of
    // SIGILL there.
    void belowTheBuildsLevelOneLineNotSigill_data()
    {
        QTest::addColumn<QString>("cpu");
        QTest::addColumn<QString>("missing"); // the first that the check tests and the CPU lacks
        QTest::newRow("Haswell") << QStringLiteral("Haswell") << QStringLiteral("AVX-512F");
        QTest::newRow("Nehalem") << QStringLiteral("Nehalem") << QStringLiteral("AVX");
        QTest::newRow("qemu64") << QStringLiteral("qemu64") << QStringLiteral("SSSE3");
    }
    void belowTheBuildsLevelOneLineNotSigill()
    {
#if !defined(ATTNSCOPE_CPU_REQUIREMENTS_PROBE)
        QSKIP("no probe in this build (GCC on x86-64 with -march=x86-64-v4 only)");
#else
        QFETCH(QString, cpu);
        QFETCH(QString, missing);
        QTemporaryDir scratch; // where qemu would write a core file of the SIGILL
        auto start = [&](const QString& probe) {
            auto process = std::make_unique<QProcess>();
            process->setWorkingDirectory(scratch.path());
            process->start(QStringLiteral("qemu-x86_64"), {QStringLiteral("-cpu"), cpu, probe});
            if (!process->waitForFinished(300000)) process->kill();
            return process;
        };
        const auto checked = start(QStringLiteral(ATTNSCOPE_CPU_REQUIREMENTS_PROBE));
        const QString out = QString::fromUtf8(checked->readAllStandardOutput());
        QStringList errors; // qemu's own warnings about the CPU model aside
        for (const QString& line :
             QString::fromUtf8(checked->readAllStandardError()).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            if (!line.startsWith(QLatin1String("qemu-x86_64: warning:"))) errors << line;
        QCOMPARE(checked->exitStatus(), QProcess::NormalExit);
        QCOMPARE(checked->exitCode(), 1);
        QVERIFY2(out.isEmpty(), qPrintable(out)); // neither the constructor's nor main's AVX-512 code ran
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors[0].startsWith(
                     QStringLiteral("attnscope: this CPU lacks %1, which this build needs").arg(missing)),
                 qPrintable(errors[0]));

        const auto unchecked = start(QStringLiteral(ATTNSCOPE_CPU_REQUIREMENTS_PROBE_UNCHECKED));
        QCOMPARE(unchecked->exitStatus(), QProcess::CrashExit); // qemu-user re-raises the guest's SIGILL
#endif
    }

    void probeRunsWhereTheCpuHasItsLevel()
    {
#if !defined(ATTNSCOPE_CPU_REQUIREMENTS_PROBE)
        QSKIP("no probe in this build");
#else
        if (!kernels::cpuRunsVariant(QStringLiteral("avx512"))) QSKIP("this CPU has no AVX-512");
        QProcess probe;
        probe.start(QStringLiteral(ATTNSCOPE_CPU_REQUIREMENTS_PROBE), QStringList());
        QVERIFY(probe.waitForFinished(60000));
        QCOMPARE(probe.exitCode(), 0);
        QCOMPARE(QString::fromUtf8(probe.readAllStandardOutput()), QStringLiteral("ran\n"));
#endif
    }

    // A level above the CPU's is refused with a note, never run.
    void higherLevelIsRefused()
    {
        if (kernels::builtCpuKernelVariants() == QStringList{QStringLiteral("native")})
            QSKIP("an ATTNSCOPE_NATIVE build has one level");
        const Run info = run(QStringLiteral("Haswell"),
                             {QStringLiteral("gpu-info"), QStringLiteral("--backend"), QStringLiteral("cpu")},
                             {QStringLiteral("ATTNSCOPE_CPU_KERNELS=avx512")});
        QVERIFY2(info.exitCode == 0, qPrintable(info.err));
        QVERIFY2(info.out.contains(QLatin1String("cpu kernels: avx2 (")), qPrintable(info.out));
        QVERIFY2(info.out.contains(
                     QLatin1String("ATTNSCOPE_CPU_KERNELS=avx512 ignored: this CPU lacks x86-64-v4")),
                 qPrintable(info.out));
    }
};

QTEST_GUILESS_MAIN(TestPackagedCpu)
#include "tst_packaged_cpu.moc"
