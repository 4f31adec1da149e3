// AttnScope's float32 error against upstream's own (issue 35), on every oracle case, on the CPU at every
// kernel level this build has and this CPU runs (baseline, avx2, avx512): `attnscope attention` against the
// float64 reference (attentions.npy), next to upstream's float32 figures beside each case in
// upstream_f32_error.json (tools/oracle/f32error.py: transformers 4.36 reloaded with torch_dtype=float32 for
// the kit cases, reference.py in float32 for the numpy ones).
//
// One float32 run is one draw: on these small random models, summing each product's inputs in another order
// (the same sums, other roundings) moves upstream's own error by a factor of 2 to 5 (llama_s2: 2.9e-6 to
// 1.2e-5 over 20 orders, 4.5e-6 as it is), so a single run of each cannot rank two implementations case by
// case. What is asserted instead:
//   - every case: at most 1.5 times upstream float32's largest error over its plain run and its 20 orders;
//   - every level: AttnScope's error relative to upstream's plain run, as a geometric mean over the cases,
//     at most 1 (no larger than upstream's own float32 on the typical case).
// Each row also prints its ratio to upstream's plain run alone, the per-case figure.

#include "io/npy.h"
#include "kernels/cpukernelselection.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <map>
#include <vector>

namespace {

const double kAllowedRatio = 1.5;        // to upstream's largest float32 error over its orders
const double kAllowedTypicalRatio = 1.0; // geometric mean over the cases, to upstream's plain run

QString oracleDir()
{
    return QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle");
}

// Every case folder: those with an attentions.npy.
QStringList oracleCases()
{
    QStringList cases;
    const QDir dir(oracleDir());
    for (const QString& name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
        if (QFile::exists(dir.filePath(name + QStringLiteral("/attentions.npy")))) cases << name;
    return cases;
}

QJsonObject readJson(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

QString caseIds(const QString& caseName)
{
    QStringList ids;
    for (const QJsonValue& v :
         readJson(oracleDir() + QLatin1Char('/') + caseName + QStringLiteral("/case.json"))
             .value(QLatin1String("input_ids"))
             .toArray())
        ids << QString::number(v.toInt());
    return ids.join(QLatin1Char(','));
}

struct Errors
{
    double overall = INFINITY;
    std::vector<double> perLayer;
};

// Largest |P − reference P| of an `attention --format npy` output, overall and per layer.
Errors errorsAgainstReference(const QString& caseName, const QString& npyPath)
{
    const attnscope::NpyArray got = attnscope::readNpyFile(npyPath);
    const attnscope::NpyArray expected =
        attnscope::readNpyFile(oracleDir() + QLatin1Char('/') + caseName + QStringLiteral("/attentions.npy"));
    Errors errors;
    if (got.shape != expected.shape || got.shape.empty()) return errors;
    const size_t layers = size_t(got.shape[0]), perLayer = got.values.size() / layers;
    errors.overall = 0;
    errors.perLayer.assign(layers, 0.0);
    for (size_t i = 0; i < got.values.size(); ++i) {
        const double d = std::abs(got.values[i] - expected.values[i]);
        const double worst = std::isnan(d) ? INFINITY : d;
        errors.perLayer[i / perLayer] = std::max(errors.perLayer[i / perLayer], worst);
        errors.overall = std::max(errors.overall, worst);
    }
    return errors;
}

QString figures(const std::vector<double>& values)
{
    QStringList parts;
    for (double v : values)
        parts << QString::number(v, 'g', 2);
    return parts.join(QStringLiteral(", "));
}

} // namespace

class TestOraclePrecision : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyCaseHasUpstreamFloat32Error();
    void cpuWithinUpstreamFloat32_data();
    void cpuWithinUpstreamFloat32();
    void typicalCaseNoWorseThanUpstream();

private:
    std::map<QString, std::vector<double>> m_logRatios; // per level, log(error / upstream's plain run)
};

// The figure is there for every case, describes it (one value per layer, the overall one their largest)
// and says what made it: a case added without it fails here rather than going unchecked below.
void TestOraclePrecision::everyCaseHasUpstreamFloat32Error()
{
    const QStringList cases = oracleCases();
    QVERIFY2(cases.size() >= 37, qPrintable(cases.join(QLatin1Char(' '))));
    for (const QString& name : cases) {
        const QString folder = oracleDir() + QLatin1Char('/') + name;
        const QJsonObject figure = readJson(folder + QStringLiteral("/upstream_f32_error.json"));
        QVERIFY2(!figure.isEmpty(), qPrintable(name + QStringLiteral(": no upstream_f32_error.json")));
        const double overall = figure.value(QLatin1String("max_abs_error")).toDouble(-1);
        const QJsonArray perLayer = figure.value(QLatin1String("per_layer")).toArray();
        const attnscope::NpyArray reference =
            attnscope::readNpyFile(folder + QStringLiteral("/attentions.npy"));
        QCOMPARE(perLayer.size(), qsizetype(reference.shape.at(0)));
        double largest = 0;
        for (const QJsonValue& v : perLayer)
            largest = std::max(largest, v.toDouble());
        // A float32 run differs from float64 somewhere, and by far less than a wrong model would.
        QVERIFY2(overall > 0 && overall < 1e-4, qPrintable(name));
        QCOMPARE(largest, overall);
        QVERIFY2(!figure.value(QLatin1String("made_by")).toString().isEmpty(), qPrintable(name));
        // The same code's error over other orders of each product's sums: a spread around the plain run's.
        const QJsonObject orders = figure.value(QLatin1String("over_orders")).toObject();
        const double least = orders.value(QLatin1String("min")).toDouble(-1),
                     median = orders.value(QLatin1String("median")).toDouble(-1),
                     most = orders.value(QLatin1String("max")).toDouble(-1);
        QVERIFY2(orders.value(QLatin1String("orders")).toInt() >= 10, qPrintable(name));
        QVERIFY2(least > 0 && least <= median && median <= most && most < 1e-4, qPrintable(name));
    }
}

void TestOraclePrecision::cpuWithinUpstreamFloat32_data()
{
    QTest::addColumn<QString>("level");
    QTest::addColumn<QString>("caseName");
    for (const QString& level : attnscope::kernels::builtCpuKernelVariants()) {
        if (!attnscope::kernels::cpuRunsVariant(level)) {
            qInfo("%s kernels: this CPU does not run them", qPrintable(level));
            continue;
        }
        for (const QString& name : oracleCases())
            QTest::addRow("%s:%s", qPrintable(level), qPrintable(name)) << level << name;
    }
}

void TestOraclePrecision::cpuWithinUpstreamFloat32()
{
    QFETCH(QString, level);
    QFETCH(QString, caseName);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("p.npy"));
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("ATTNSCOPE_CPU_KERNELS"), level);
    environment.remove(QStringLiteral("ATTNSCOPE_PRODUCT"));
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(ATTNSCOPE_BINARY),
                  {QStringLiteral("attention"), QStringLiteral("--model"),
                   oracleDir() + QLatin1Char('/') + caseName, QStringLiteral("--ids"), caseIds(caseName),
                   QStringLiteral("--format"), QStringLiteral("npy"), QStringLiteral("--out"), out,
                   QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--verbose")});
    QVERIFY(process.waitForFinished(120000));
    const QString err = QString::fromUtf8(process.readAllStandardError());
    QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0, qPrintable(err));
    // The level asked for is the one that ran ("backend: cpu on … (2 threads, avx2 kernels)").
    QVERIFY2(err.contains(QStringLiteral(", %1 kernels)").arg(level)), qPrintable(err));

    const Errors errors = errorsAgainstReference(caseName, out);
    const QJsonObject figure =
        readJson(oracleDir() + QLatin1Char('/') + caseName + QStringLiteral("/upstream_f32_error.json"));
    const double upstream = figure.value(QLatin1String("max_abs_error")).toDouble(-1);
    const double overOrders =
        figure.value(QLatin1String("over_orders")).toObject().value(QLatin1String("max")).toDouble(-1);
    QVERIFY2(upstream > 0 && overOrders > 0,
             qPrintable(caseName + QStringLiteral(": no upstream float32 figures")));
    const double largestUpstream = std::max(upstream, overOrders);
    std::vector<double> upstreamPerLayer;
    for (const QJsonValue& v : figure.value(QLatin1String("per_layer")).toArray())
        upstreamPerLayer.push_back(v.toDouble());
    const QString line =
        QStringLiteral("%1 %2: error %3 (per layer %4), upstream float32 %5 (per layer %6): %7x; "
                       "upstream's largest over its orders %8: %9x")
            .arg(caseName, level)
            .arg(errors.overall, 0, 'g', 3)
            .arg(figures(errors.perLayer))
            .arg(upstream, 0, 'g', 3)
            .arg(figures(upstreamPerLayer))
            .arg(errors.overall / upstream, 0, 'f', 2)
            .arg(largestUpstream, 0, 'g', 3)
            .arg(errors.overall / largestUpstream, 0, 'f', 2);
    qInfo("%s", qPrintable(line));
    m_logRatios[level].push_back(std::log(errors.overall / upstream));
    QVERIFY2(errors.overall <= kAllowedRatio * largestUpstream, qPrintable(line));
}

// Runs after every row of cpuWithinUpstreamFloat32: per level, the typical case.
void TestOraclePrecision::typicalCaseNoWorseThanUpstream()
{
    QVERIFY2(!m_logRatios.empty(), "cpuWithinUpstreamFloat32 ran no row");
    const int cases = int(oracleCases().size());
    for (const auto& [level, logs] : m_logRatios) {
        QCOMPARE(int(logs.size()), cases); // every case of the level ran
        double sum = 0;
        for (double v : logs)
            sum += v;
        const double geometricMean = std::exp(sum / double(logs.size()));
        qInfo("%s: error / upstream float32's over %d cases, geometric mean %.2f", qPrintable(level), cases,
              geometricMean);
        QVERIFY2(geometricMean <= kAllowedTypicalRatio,
                 qPrintable(QStringLiteral("%1: %2").arg(level).arg(geometricMean)));
    }
}

QTEST_GUILESS_MAIN(TestOraclePrecision)
#include "tst_oracle_precision.moc"
