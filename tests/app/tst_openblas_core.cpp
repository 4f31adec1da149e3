// AttnScope picks OpenBLAS's kernels for the CPU (core/model/openblas.h): OpenBLAS 0.3.21 does not know CPUs
// newer than itself and falls back to its generic SSE3 "Prescott" kernels on them. Checked here:
//   - the rule (SkylakeX for AVX-512 F/BW/DQ/VL, Haswell for AVX2 + FMA, else OpenBLAS's own choice), on
//     hand-made feature sets and on this CPU's flags as the kernel lists them in /proc/cpuinfo;
//   - the executable does not link OpenBLAS (it would be initialised before main() could set anything);
//   - `attnscope gpu-info` names the chosen kernels and how they were chosen, and OpenBLAS itself
//     (OPENBLAS_VERBOSE=2, "Core: ...") says it runs them;
//   - a user's OPENBLAS_CORETYPE wins;
//   - the oracle Llama's attention, with the chosen kernels, against upstream and the core named by hand.
// The packaged binary under qemu's Haswell is checked in tst_packaged_cpu.
// OpenBLAS computes the projections where AttnScope's own product is absent (CPUs without AVX-512) or
// ATTNSCOPE_PRODUCT=library asks for it: every run here asks, so that it is OpenBLAS on any CPU.

#include "io/npy.h"
#include "model/openblas.h"
#include "support/processrun.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

using Run = TextRun;

// The built attnscope with OPENBLAS_CORETYPE removed from the environment and ATTNSCOPE_PRODUCT=library,
// then `environment` added.
Run runAttnscope(const QStringList& arguments, const QStringList& environment = {})
{
    ProcessOptions options;
    options.environment.remove(QStringLiteral("OPENBLAS_CORETYPE"));
    options.environment.remove(QStringLiteral("OPENBLAS_VERBOSE"));
    options.environment.insert(QStringLiteral("ATTNSCOPE_PRODUCT"), QStringLiteral("library"));
    for (const QString& assignment : environment)
        options.environment.insert(assignment.section(QLatin1Char('='), 0, 0),
                                   assignment.section(QLatin1Char('='), 1));
    return runProcess(QStringLiteral(ATTNSCOPE_BINARY), arguments, options).text();
}

QString projectionsLine(const Run& run)
{
    const QRegularExpressionMatch m =
        QRegularExpression(QStringLiteral("^projections: (.*)$"), QRegularExpression::MultilineOption)
            .match(run.out);
    return m.hasMatch() ? m.captured(1) : QString();
}

// The "Core: X" line OpenBLAS prints at load time with OPENBLAS_VERBOSE=2.
QString openBlasOwnWord(const Run& run)
{
    const QRegularExpressionMatch m =
        QRegularExpression(QStringLiteral("^Core: (\\S+)"), QRegularExpression::MultilineOption)
            .match(run.out + QLatin1Char('\n') + run.err);
    return m.hasMatch() ? m.captured(1) : QString();
}

// This CPU's flags as Linux reports them (it leaves out AVX-512 when the OS does not save its registers).
QStringList procCpuFlags()
{
    QFile file(QStringLiteral("/proc/cpuinfo"));
    if (!file.open(QIODevice::ReadOnly)) return {};
    for (const QByteArray& line : file.readAll().split('\n'))
        if (line.startsWith("flags"))
            return QString::fromLatin1(line.mid(line.indexOf(':') + 1))
                .split(QLatin1Char(' '), Qt::SkipEmptyParts);
    return {};
}

// What the rule gives for this CPU, from /proc/cpuinfo's flags: "" for OpenBLAS's own choice.
QString expectedCore()
{
    const QStringList flags = procCpuFlags();
    const auto has = [&](const char* flag) { return flags.contains(QLatin1String(flag)); };
    if (has("avx512f") && has("avx512bw") && has("avx512dq") && has("avx512vl") && has("avx2") && has("fma"))
        return QStringLiteral("SkylakeX");
    if (has("avx2") && has("fma")) return QStringLiteral("Haswell");
    return {};
}

bool buildHasOpenBlas()
{
    return !projectionsLine(runAttnscope({QStringLiteral("gpu-info"), QStringLiteral("--backend"),
                                          QStringLiteral("cpu")}))
                .contains(QLatin1String("this build has no OpenBLAS"));
}

std::vector<double> llamaAttention(const QString& path, const QStringList& environment)
{
    const QString folder = QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/llama_s0");
    QFile file(folder + QStringLiteral("/case.json"));
    if (!file.open(QIODevice::ReadOnly)) return {};
    QStringList ids;
    for (const QJsonValue& id :
         QJsonDocument::fromJson(file.readAll()).object().value(QLatin1String("input_ids")).toArray())
        ids << QString::number(id.toInt());
    const Run run =
        runAttnscope({QStringLiteral("attention"), QStringLiteral("--model"), folder, QStringLiteral("--ids"),
                      ids.join(QLatin1Char(',')), QStringLiteral("--format"), QStringLiteral("npy"),
                      QStringLiteral("--out"), path},
                     environment);
    if (run.exitCode != 0) {
        qWarning("%s", qPrintable(run.err));
        return {};
    }
    return readNpyFile(path).values;
}

} // namespace

class TestOpenBlasCore : public QObject
{
    Q_OBJECT

private slots:
    void rule_data()
    {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<QString>("core");
        const auto flags = [](const char* list) {
            return QString::fromLatin1(list).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        };
        const QStringList v4 = flags("avx2 fma avx512f avx512bw avx512dq avx512vl");
        QTest::newRow("AVX-512 (Skylake-SP .. Emerald Rapids, Zen 4)") << v4 << QStringLiteral("SkylakeX");
        for (const QString& missing : flags("avx512bw avx512dq avx512vl")) {
            QStringList without = v4;
            without.removeAll(missing);
            QTest::newRow(qPrintable(QStringLiteral("AVX-512F without ") + missing))
                << without << QStringLiteral("Haswell");
        }
        QTest::newRow("AVX2 + FMA (Haswell .. Alder Lake, Zen 1-3)")
            << flags("avx2 fma") << QStringLiteral("Haswell");
        QTest::newRow("AVX2 without FMA") << flags("avx2") << QString();
        QTest::newRow("FMA without AVX2 (Piledriver)") << flags("fma") << QString();
        QTest::newRow("nothing (x86-64 baseline)") << QStringList{} << QString();
    }
    void rule()
    {
        QFETCH(QStringList, flags);
        QFETCH(QString, core);
        ops::BlasCpuFeatures cpu;
        cpu.avx2 = flags.contains(QLatin1String("avx2"));
        cpu.fma = flags.contains(QLatin1String("fma"));
        cpu.avx512f = flags.contains(QLatin1String("avx512f"));
        cpu.avx512bw = flags.contains(QLatin1String("avx512bw"));
        cpu.avx512dq = flags.contains(QLatin1String("avx512dq"));
        cpu.avx512vl = flags.contains(QLatin1String("avx512vl"));
        const char* chosen = ops::openBlasCoreFor(cpu);
        QCOMPARE(chosen ? QString::fromLatin1(chosen) : QString(), core);
    }

    void thisCpuAsLinuxSeesIt()
    {
        if (procCpuFlags().isEmpty()) QSKIP("no /proc/cpuinfo flags here");
        const char* chosen = ops::openBlasCoreFor(ops::thisCpuBlasFeatures());
        QCOMPARE(chosen ? QString::fromLatin1(chosen) : QString(), expectedCore());
    }

    void executableDoesNotLinkOpenBlas()
    {
        const QString objdump = QStandardPaths::findExecutable(QStringLiteral("objdump"));
        if (objdump.isEmpty()) QSKIP("objdump is missing (binutils)");
        QProcess process;
        process.start(objdump, {QStringLiteral("-p"), QStringLiteral(ATTNSCOPE_BINARY)});
        QVERIFY(process.waitForFinished(60000));
        const QString headers = QString::fromUtf8(process.readAllStandardOutput());
        QVERIFY2(headers.contains(QLatin1String("NEEDED")), "objdump -p lists no NEEDED libraries");
        QVERIFY2(!headers.contains(QLatin1String("libopenblas")) &&
                     !headers.contains(QLatin1String("libblas")),
                 qPrintable(headers));
    }

    void chosenCoreIsReported()
    {
        if (!buildHasOpenBlas()) QSKIP("this build has no OpenBLAS");
        const QStringList gpuInfo{QStringLiteral("gpu-info"), QStringLiteral("--backend"),
                                  QStringLiteral("cpu")};
        const Run run = runAttnscope(gpuInfo, {QStringLiteral("OPENBLAS_VERBOSE=2")});
        QCOMPARE(run.exitCode, 0);
        const QString core = expectedCore();
        if (core.isEmpty()) {
            QVERIFY2(projectionsLine(run).endsWith(QLatin1String("kernels; OpenBLAS's own choice)")),
                     qPrintable(run.out));
            return;
        }
        QCOMPARE(projectionsLine(run),
                 QStringLiteral("OpenBLAS (%1 kernels; OPENBLAS_CORETYPE=%1 set by AttnScope for %2)")
                     .arg(core, core == QLatin1String("SkylakeX") ? QStringLiteral("AVX-512")
                                                                  : QStringLiteral("AVX2 and FMA")));
        QCOMPARE(openBlasOwnWord(run), core);
    }

    void userVariableWins_data()
    {
        QTest::addColumn<QString>("core");
        QTest::newRow("Nehalem") << QStringLiteral("Nehalem");
        QTest::newRow("Prescott") << QStringLiteral("Prescott");
    }
    void userVariableWins()
    {
        QFETCH(QString, core);
        if (!buildHasOpenBlas()) QSKIP("this build has no OpenBLAS");
        const Run run =
            runAttnscope({QStringLiteral("gpu-info"), QStringLiteral("--backend"), QStringLiteral("cpu")},
                         {QStringLiteral("OPENBLAS_CORETYPE=") + core, QStringLiteral("OPENBLAS_VERBOSE=2")});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(
            projectionsLine(run),
            QStringLiteral("OpenBLAS (%1 kernels; OPENBLAS_CORETYPE=%1 from the environment)").arg(core));
        QCOMPARE(openBlasOwnWord(run), core);
    }

    // With the kernels AttnScope chose, the oracle Llama still gives transformers' attention, and the same
    // numbers as naming that core by hand. (Not bit for bit: two runs of one configuration already differ in
    // the last bits now and then, with any OpenBLAS core; seen with Prescott, Haswell and SkylakeX alike.)
    void sameNumbersAsTheCoreNamedByHand()
    {
        const QString core = expectedCore();
        if (!buildHasOpenBlas() || core.isEmpty()) QSKIP("no core for AttnScope to choose here");
        QTemporaryDir dir;
        const std::vector<double> automatic = llamaAttention(dir.filePath(QStringLiteral("auto.npy")), {});
        const std::vector<double> byHand = llamaAttention(dir.filePath(QStringLiteral("hand.npy")),
                                                          {QStringLiteral("OPENBLAS_CORETYPE=") + core});
        const std::vector<double> upstream =
            readNpyFile(QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/llama_s0/attentions.npy")).values;
        QVERIFY(!automatic.empty());
        QCOMPARE(automatic.size(), upstream.size());
        QCOMPARE(byHand.size(), upstream.size());
        double vsUpstream = 0, vsHand = 0;
        for (size_t i = 0; i < automatic.size(); ++i) {
            vsUpstream = std::max(vsUpstream, std::abs(automatic[i] - upstream[i]));
            vsHand = std::max(vsHand, std::abs(automatic[i] - byHand[i]));
        }
        QVERIFY2(vsUpstream <= 1e-5, qPrintable(QString::number(vsUpstream)));
        QVERIFY2(vsHand <= 1e-6, qPrintable(QString::number(vsHand)));
    }
};

QTEST_GUILESS_MAIN(TestOpenBlasCore)
#include "tst_openblas_core.moc"
