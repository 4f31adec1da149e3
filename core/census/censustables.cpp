#include "census/censustables.h"

#include "census/censusaccumulator.h"

namespace attnscope {

namespace {

QString number(double value)
{
    return QString::number(value, 'g', 8);
}

// ",mean,std"; empty fields for a metric no input had (contribution shares without value vectors).
QString statFields(const RunningStat& s)
{
    if (s.count == 0) return QStringLiteral(",,");
    return QLatin1Char(',') + number(s.mean) + QLatin1Char(',') + number(s.stddev());
}

QString metricHeader()
{
    QString header;
    for (CensusMetric metric : allCensusMetrics())
        header += QStringLiteral(",%1_mean,%1_std").arg(censusMetricId(metric));
    return header;
}

} // namespace

QString censusHeadsCsv(const CensusAccumulator& sums)
{
    QString out = QStringLiteral("layer,head,inputs") + metricHeader() + QLatin1Char('\n');
    for (int l = 0; l < sums.layers(); ++l)
        for (int h = 0; h < sums.heads(); ++h) {
            out += QStringLiteral("%1,%2,%3").arg(l).arg(h).arg(sums.head(l, h, CensusMetric::Sep).count);
            for (CensusMetric metric : allCensusMetrics()) {
                out += statFields(sums.head(l, h, metric));
            }
            out += QLatin1Char('\n');
        }
    return out;
}

QString censusLayersCsv(const CensusAccumulator& sums)
{
    QString out = QStringLiteral("layer") + metricHeader() + QLatin1Char('\n');
    for (int l = 0; l < sums.layers(); ++l) {
        out += QString::number(l);
        for (CensusMetric metric : allCensusMetrics()) {
            out += statFields(sums.layer(l, metric));
        }
        out += QLatin1Char('\n');
    }
    return out;
}

QString censusPositionsCsv(const CensusAccumulator& sums)
{
    QString out = QStringLiteral("position,inputs,sink_rate,importance\n");
    for (int k = 0; k < sums.positions(); ++k) {
        if (sums.sinkRate(k).count == 0) break;
        out += QStringLiteral("%1,%2,%3,%4\n")
                   .arg(k)
                   .arg(sums.sinkRate(k).count)
                   .arg(number(sums.sinkRate(k).mean), number(sums.importance(k).mean));
    }
    return out;
}

} // namespace attnscope
