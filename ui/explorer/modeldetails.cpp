#include "explorer/modeldetails.h"

#include <QCoreApplication>
#include <QLocale>

namespace attnscope {

QString modelDetailsText(const ModelInfo& info)
{
    if (info.parameters <= 0) return QString();
    const MemoryEstimate e = estimateMemory(info);
    return QCoreApplication::translate("attnscope", "%1 parameters · needs ≈ %2 at %3 tokens")
        .arg(formatParameterCount(info.parameters, QLocale()), formatBytes(e.total(), QLocale()))
        .arg(e.tokens);
}

QString memoryRefusalText(const ModelInfo& info, std::optional<qint64> available)
{
    if (!available || info.parameters <= 0) return QString();
    const MemoryEstimate e = estimateMemory(info);
    if (e.total() <= *available) return QString();
    return QCoreApplication::translate(
               "attnscope",
               "%1 is not loaded: it needs about %2 (%3 of weights, %4 working memory at %5 tokens) but "
               "only %6 is available (MemAvailable in /proc/meminfo).")
        .arg(info.name, formatBytes(e.total(), QLocale()), formatBytes(e.weights, QLocale()),
             formatBytes(e.conversion + e.activations + e.process, QLocale()))
        .arg(e.tokens)
        .arg(formatBytes(*available, QLocale()));
}

} // namespace attnscope
