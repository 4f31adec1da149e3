#include "backend/cpubackend.h"

#include "kernels/cpukernelselection.h"
#include "util/parallel.h"

#include <QFile>
#include <QSysInfo>

namespace attnscope {

namespace {

// "AMD EPYC 7B13" from /proc/cpuinfo where there is one, else the architecture.
QString cpuModelName()
{
    QFile cpuinfo(QStringLiteral("/proc/cpuinfo"));
    // Read to the end rather than asking atEnd(): /proc files report size 0, so atEnd() is true at once.
    if (cpuinfo.open(QIODevice::ReadOnly | QIODevice::Text)) {
        for (const QByteArray& line : cpuinfo.readAll().split('\n')) {
            if (line.startsWith("model name")) {
                const int colon = int(line.indexOf(':'));
                if (colon >= 0) return QString::fromLatin1(line.mid(colon + 1).trimmed());
            }
        }
    }
    return QSysInfo::currentCpuArchitecture();
}

} // namespace

QString CpuBackend::processorName()
{
    static const QString name = cpuModelName();
    return name;
}

QString CpuBackend::deviceName() const
{
    const int threads = defaultThreadCount();
    return QStringLiteral("%1 (%2 %3, %4 kernels)")
        .arg(processorName())
        .arg(threads)
        .arg(threads == 1 ? QStringLiteral("thread") : QStringLiteral("threads"))
        .arg(kernels::cpuKernelChoice().variant);
}

TiledAttentionResult CpuBackend::tiledForward(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v,
                                              const AttentionOptions& options)
{
    return attentionTiled(q, k, v, options);
}

std::vector<float> CpuBackend::probabilityTile(const HeadTensor& rotatedQueries,
                                               const HeadTensor& rotatedKeys,
                                               const std::vector<double>& logSumExp,
                                               const AttentionOptions& options, int head, int q0, int q1,
                                               int k0, int k1)
{
    return attnscope::probabilityTile(rotatedQueries, rotatedKeys, logSumExp, options, head, q0, q1, k0, k1);
}

AttentionOverview CpuBackend::overview(const HeadTensor& rotatedQueries, const HeadTensor& rotatedKeys,
                                       const std::vector<double>& logSumExp, const AttentionOptions& options,
                                       int head, int maxCols, int maxRows)
{
    return attentionOverview(rotatedQueries, rotatedKeys, logSumExp, options, head, maxCols, maxRows);
}

} // namespace attnscope
