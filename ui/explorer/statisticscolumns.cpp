#include "explorer/statisticscolumns.h"

#include "render/headnames.h"

#include <QCoreApplication>

namespace attnscope {

bool metricMeansSomething(HeadMetric metric, const TokenRoles& roles)
{
    switch (metric) {
    case HeadMetric::SepMass:
        return !roles.sepPositions.empty();
    case HeadMetric::Next:
        return !roles.causal;
    case HeadMetric::ClsMass:
        return !roles.clsPositions.empty() &&
               !(roles.causal && roles.clsPositions.size() == 1 && roles.clsPositions.front() == 0);
    default:
        return true;
    }
}

QString metricColumnTitle(HeadMetric metric, bool causal)
{
    if (metric == HeadMetric::ClsMass && causal) return QCoreApplication::translate("attnscope", "BOS mass");
    return headMetricDisplayName(metric);
}

QString stackedColumnTitle(const QString& title)
{
    qsizetype parenthesis = title.indexOf(QStringLiteral(" ("));
    if (parenthesis < 0) parenthesis = title.size();
    QString out = title.left(parenthesis);
    out.replace(QLatin1Char(' '), QLatin1Char('\n'));
    if (parenthesis < title.size()) out += QLatin1Char('\n') + title.mid(parenthesis + 1);
    return out;
}

} // namespace attnscope
