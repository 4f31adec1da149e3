#include "modelfixtures.h"

#include "model/safetensorsfile.h"
#include "model/transformermodel.h"
#include "support/testdata.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <cmath>
#include <limits>

namespace attnscope::testing {

QString oracleFolder(const QString& caseName)
{
    return QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/") + caseName;
}

std::vector<int> oracleInputIds(const QString& caseName)
{
    QFile file(oracleFolder(caseName) + QStringLiteral("/case.json"));
    if (!file.open(QIODevice::ReadOnly)) return {};
    std::vector<int> ids;
    for (const QJsonValue& v :
         QJsonDocument::fromJson(file.readAll()).object().value(QLatin1String("input_ids")).toArray())
        ids.push_back(v.toInt());
    return ids;
}

NpyArray oracleAttentions(const QString& caseName)
{
    return readNpyFile(oracleFolder(caseName) + QStringLiteral("/attentions.npy"));
}

double maxAbsError(const AttentionMaps& maps, const NpyArray& expected)
{
    if (expected.shape != std::vector<qint64>{maps.layers(), maps.heads(), maps.queries(), maps.keys()})
        return std::numeric_limits<double>::infinity();
    double worst = 0;
    size_t index = 0;
    for (int l = 0; l < maps.layers(); ++l)
        for (int h = 0; h < maps.heads(); ++h)
            for (float p : maps.matrix(l, h))
                worst = std::max(worst, std::abs(double(p) - expected.values[index++]));
    return worst;
}

double maxAbsError(const AttentionMaps& a, const AttentionMaps& b)
{
    if (a.layers() != b.layers() || a.heads() != b.heads() || a.queries() != b.queries() ||
        a.keys() != b.keys())
        return std::numeric_limits<double>::infinity();
    double worst = 0;
    for (int l = 0; l < a.layers(); ++l)
        for (int h = 0; h < a.heads(); ++h) {
            const std::vector<float> pa = a.matrix(l, h), pb = b.matrix(l, h);
            for (size_t i = 0; i < pa.size(); ++i)
                worst = std::max(worst, std::abs(double(pa[i]) - double(pb[i])));
        }
    return worst;
}

std::vector<TensorToWrite> readTensors(const QString& safetensorsPath)
{
    const SafetensorsFile file(safetensorsPath);
    std::vector<TensorToWrite> tensors;
    for (const QString& name : file.names()) {
        const TensorInfo& info = *file.find(name);
        tensors.push_back(
            {name, info.dtype, info.shape,
             QByteArray(reinterpret_cast<const char*>(file.bytes(info)), qsizetype(info.end - info.begin))});
    }
    return tensors;
}

void copyFolderWithoutWeights(const QString& from, const QString& to)
{
    QDir().mkpath(to);
    const QDir source(from);
    for (const QString& name : source.entryList(QDir::Files)) {
        if (name == QLatin1String("model.safetensors")) continue;
        QFile::remove(to + QLatin1Char('/') + name);
        QFile::copy(source.filePath(name), to + QLatin1Char('/') + name);
        QFile(to + QLatin1Char('/') + name).setPermissions(QFile::ReadOwner | QFile::WriteOwner);
    }
}

void copyModel(const QString& from, const QString& to,
               const std::function<void(std::vector<TensorToWrite>&)>& edit)
{
    copyFolderWithoutWeights(from, to);
    std::vector<TensorToWrite> tensors = readTensors(from + QStringLiteral("/model.safetensors"));
    if (edit) edit(tensors);
    writeSafetensors(to + QStringLiteral("/model.safetensors"), tensors);
}

QString copyOracleCase(const QTemporaryDir& dir, const QString& caseName, const QString& name)
{
    const QString folder = dir.filePath(name);
    copyModel(oracleFolder(caseName), folder);
    return folder;
}

void addOracleCaseRows(const std::vector<const char*>& caseNames)
{
    QTest::addColumn<QString>("caseName");
    for (const char* name : caseNames)
        QTest::newRow(name) << QString::fromLatin1(name);
}

void checkMatchesOracle(const TransformerModel& model, const QString& caseName)
{
    const std::vector<int> ids = oracleInputIds(caseName);
    QVERIFY(!ids.empty());
    const AttentionCapture capture = model.run(ids, {});
    const NpyArray expected = oracleAttentions(caseName);
    QCOMPARE(capture.maps->layers(), int(expected.shape[0]));
    QCOMPARE(capture.maps->heads(), int(expected.shape[1]));
    QCOMPARE(capture.maps->queries(), int(ids.size()));
    const double error = maxAbsError(*capture.maps, expected);
    qInfo("%s: max abs error %.3g", qPrintable(caseName), error);
    QVERIFY2(error <= 1e-5, qPrintable(QStringLiteral("max abs error %1").arg(error)));
    QCOMPARE(capture.causal, model.config().isDecoder());
}

void editModelConfig(const QString& folder, const QString& key, const QJsonValue& value)
{
    const QString path = folder + QStringLiteral("/config.json");
    QJsonObject config = readRequiredJsonObject(path);
    if (value.isUndefined())
        config.remove(key);
    else
        config.insert(key, value);
    writeJsonObject(path, config);
}

QString modelOpenError(const QString& folder)
{
    return modelErrorOf([&] { TransformerModel::open(folder); });
}

QByteArray rawSafetensors(const QByteArray& header, int dataBytes, quint64 declaredLength)
{
    QByteArray out(8, '\0');
    const quint64 length = declaredLength ? declaredLength : quint64(header.size());
    for (int i = 0; i < 8; ++i)
        out[i] = char((length >> (8 * i)) & 0xff);
    return out + header + QByteArray(dataBytes, '\0');
}

QStringList mappingFlags(const void* address)
{
    QFile smaps(QStringLiteral("/proc/self/smaps"));
    if (!smaps.open(QIODevice::ReadOnly | QIODevice::Text)) return {};
    // Each mapping: "start-end perms offset dev inode path", then "Key: value" lines, VmFlags last.
    const auto target = quintptr(address);
    bool inside = false;
    for (const QByteArray& line : smaps.readAll().split('\n')) {
        const int dash = line.indexOf('-');
        const int space = line.indexOf(' ');
        const bool keyLine = space > 0 && line.at(space - 1) == ':'; // "Rss:", "VmFlags:"
        if (!keyLine && dash > 0 && space > dash) {
            bool okStart = false, okEnd = false;
            const quintptr start = line.left(dash).toULongLong(&okStart, 16);
            const quintptr end = line.mid(dash + 1, space - dash - 1).toULongLong(&okEnd, 16);
            inside = okStart && okEnd && start <= target && target < end;
        } else if (inside && line.startsWith("VmFlags:")) {
            return QString::fromLatin1(line.mid(8)).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        }
    }
    return {};
}

bool kernelHasTransparentHugePages()
{
    return QFile::exists(QStringLiteral("/sys/kernel/mm/transparent_hugepage/enabled"));
}

} // namespace attnscope::testing
