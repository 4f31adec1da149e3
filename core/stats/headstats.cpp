#include "stats/headstats.h"

#include <array>

namespace attnscope {

HeadLabel classifyHead(const HeadStats& stats, const LabelThresholds& thresholds)
{
    struct Pattern
    {
        HeadLabel label;
        double score;
        double threshold;
    };
    const std::array<Pattern, 5> patterns{{
        {HeadLabel::Sink, stats.sinkMass, thresholds.sink},
        {HeadLabel::NoOp, stats.sepMass, thresholds.noOp},
        {HeadLabel::PreviousToken, stats.previous, thresholds.previous},
        {HeadLabel::NextToken, stats.next, thresholds.next},
        {HeadLabel::Self, stats.self, thresholds.self},
    }};
    // The largest raw score among the patterns at or over their thresholds: a head with 0.9 on [SEP]
    // and 0.55 on the sink is a no-op head whatever the two thresholds are.
    std::optional<HeadLabel> best;
    double bestScore = -1;
    for (const Pattern& pattern : patterns) {
        if (pattern.score >= pattern.threshold && pattern.score > bestScore) {
            bestScore = pattern.score;
            best = pattern.label;
        }
    }
    if (best) return *best;
    if (stats.normalizedEntropy >= thresholds.broadEntropy) return HeadLabel::Broad;
    return HeadLabel::Mixed;
}

QString headLabelName(HeadLabel label)
{
    switch (label) {
    case HeadLabel::Sink:
        return QStringLiteral("sink");
    case HeadLabel::NoOp:
        return QStringLiteral("no-op");
    case HeadLabel::PreviousToken:
        return QStringLiteral("previous-token");
    case HeadLabel::NextToken:
        return QStringLiteral("next-token");
    case HeadLabel::Self:
        return QStringLiteral("self");
    case HeadLabel::Broad:
        return QStringLiteral("broad");
    case HeadLabel::Mixed:
        return QStringLiteral("mixed");
    }
    return {};
}

std::optional<HeadLabel> headLabelFromName(const QString& name)
{
    for (HeadLabel label : {HeadLabel::Sink, HeadLabel::NoOp, HeadLabel::PreviousToken, HeadLabel::NextToken,
                            HeadLabel::Self, HeadLabel::Broad, HeadLabel::Mixed})
        if (headLabelName(label) == name) return label;
    return std::nullopt;
}

std::vector<HeadMetric> allHeadMetrics()
{
    return {HeadMetric::Entropy,   HeadMetric::NormalizedEntropy,
            HeadMetric::SinkMass,  HeadMetric::Sink4Mass,
            HeadMetric::SepMass,   HeadMetric::ClsMass,
            HeadMetric::PunctMass, HeadMetric::Self,
            HeadMetric::Previous,  HeadMetric::Next};
}

double headMetricValue(const HeadStats& stats, HeadMetric metric)
{
    switch (metric) {
    case HeadMetric::Entropy:
        return stats.entropy;
    case HeadMetric::NormalizedEntropy:
        return stats.normalizedEntropy;
    case HeadMetric::SinkMass:
        return stats.sinkMass;
    case HeadMetric::Sink4Mass:
        return stats.sink4Mass;
    case HeadMetric::SepMass:
        return stats.sepMass;
    case HeadMetric::ClsMass:
        return stats.clsMass;
    case HeadMetric::PunctMass:
        return stats.punctMass;
    case HeadMetric::Self:
        return stats.self;
    case HeadMetric::Previous:
        return stats.previous;
    case HeadMetric::Next:
        return stats.next;
    }
    return 0;
}

QString headMetricId(HeadMetric metric)
{
    switch (metric) {
    case HeadMetric::Entropy:
        return QStringLiteral("entropy");
    case HeadMetric::NormalizedEntropy:
        return QStringLiteral("entropy_norm");
    case HeadMetric::SinkMass:
        return QStringLiteral("sink_mass");
    case HeadMetric::Sink4Mass:
        return QStringLiteral("sink4_mass");
    case HeadMetric::SepMass:
        return QStringLiteral("sep_mass");
    case HeadMetric::ClsMass:
        return QStringLiteral("cls_mass");
    case HeadMetric::PunctMass:
        return QStringLiteral("punct_mass");
    case HeadMetric::Self:
        return QStringLiteral("self");
    case HeadMetric::Previous:
        return QStringLiteral("prev");
    case HeadMetric::Next:
        return QStringLiteral("next");
    }
    return {};
}

} // namespace attnscope
