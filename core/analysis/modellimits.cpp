#include "analysis/modellimits.h"

#include <cmath>
#include <stdexcept>

namespace attnscope {

std::optional<SinkOrSepHead> strongestSinkOrSepHead(const std::vector<HeadStats>& stats,
                                                    const LabelThresholds& thresholds)
{
    std::optional<SinkOrSepHead> best;
    for (const HeadStats& s : stats) {
        const bool onSep = s.sepMass > s.sinkMass;
        const double mass = onSep ? s.sepMass : s.sinkMass;
        if (best && mass <= best->mass) continue;
        best = SinkOrSepHead{s.layer, s.head, mass, onSep,
                             onSep ? mass >= thresholds.noOp : mass >= thresholds.sink};
    }
    return best;
}

bool hasNoSinkOrSepHead(const std::vector<HeadStats>& stats, const LabelThresholds& thresholds)
{
    if (stats.empty()) return false;
    for (const HeadStats& s : stats)
        if (s.sinkMass >= thresholds.sink || s.sepMass >= thresholds.noOp) return false;
    return true;
}

double meanRowShift(const AttentionMaps& a, const AttentionMaps& b)
{
    if (a.layers() != b.layers() || a.heads() != b.heads() || a.queries() != b.queries() ||
        a.keys() != b.keys())
        throw std::invalid_argument("meanRowShift: the two maps differ in shape");
    const int rows = a.queries(), keys = a.keys();
    if (a.layers() == 0 || a.heads() == 0 || rows == 0 || keys == 0) return 0;
    double total = 0;
    for (int layer = 0; layer < a.layers(); ++layer)
        for (int head = 0; head < a.heads(); ++head) {
            const std::vector<float> pa = a.matrix(layer, head), pb = b.matrix(layer, head);
            for (size_t i = 0; i < pa.size(); ++i)
                total += std::abs(double(pa[i]) - double(pb[i]));
        }
    return 0.5 * total / (double(a.layers()) * a.heads() * rows);
}

double specialTokenShare(const AttentionMaps& maps, const std::vector<int>& positions)
{
    const int rows = maps.queries(), keys = maps.keys();
    if (maps.layers() == 0 || maps.heads() == 0 || rows == 0 || keys == 0) return 0;
    double total = 0;
    for (int layer = 0; layer < maps.layers(); ++layer)
        for (int head = 0; head < maps.heads(); ++head) {
            const std::vector<float> p = maps.matrix(layer, head);
            for (int i = 0; i < rows; ++i)
                for (int j : positions)
                    if (j >= 0 && j < keys) total += p[size_t(i) * size_t(keys) + size_t(j)];
        }
    return total / (double(maps.layers()) * maps.heads() * rows);
}

bool MeasureComparison::normShowsNothingNew(double tolerance) const
{
    if (!std::isfinite(rowShift) || !std::isfinite(weightSpecialShare) || !std::isfinite(normSpecialShare))
        return false;
    return rowShift <= tolerance || normSpecialShare >= (1.0 - tolerance) * weightSpecialShare;
}

MeasureComparison compareMeasures(const AttentionMaps& weights, const AttentionMaps& normShares,
                                  const std::vector<int>& specialPositions)
{
    MeasureComparison comparison;
    comparison.rowShift = meanRowShift(weights, normShares);
    comparison.weightSpecialShare = specialTokenShare(weights, specialPositions);
    comparison.normSpecialShare = specialTokenShare(normShares, specialPositions);
    return comparison;
}

bool tooSmallToPredict(qint64 parameters)
{
    return parameters > 0 && parameters < kSmallModelParameters;
}

} // namespace attnscope
