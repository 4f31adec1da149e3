#include "census/censusmetric.h"

namespace attnscope {

std::vector<CensusMetric> allCensusMetrics()
{
    return {CensusMetric::FirstToken,
            CensusMetric::Cls,
            CensusMetric::Sep,
            CensusMetric::Punctuation,
            CensusMetric::Self,
            CensusMetric::Previous,
            CensusMetric::Next,
            CensusMetric::Entropy,
            CensusMetric::NormalizedEntropy,
            CensusMetric::FirstTokenContribution,
            CensusMetric::ClsContribution,
            CensusMetric::SepContribution,
            CensusMetric::PunctuationContribution};
}

QString censusMetricId(CensusMetric metric)
{
    switch (metric) {
    case CensusMetric::FirstToken:
        return QStringLiteral("first_token");
    case CensusMetric::Cls:
        return QStringLiteral("cls_mass");
    case CensusMetric::Sep:
        return QStringLiteral("sep_mass");
    case CensusMetric::Punctuation:
        return QStringLiteral("punct_mass");
    case CensusMetric::Self:
        return QStringLiteral("self");
    case CensusMetric::Previous:
        return QStringLiteral("prev");
    case CensusMetric::Next:
        return QStringLiteral("next");
    case CensusMetric::Entropy:
        return QStringLiteral("entropy");
    case CensusMetric::NormalizedEntropy:
        return QStringLiteral("entropy_norm");
    case CensusMetric::FirstTokenContribution:
        return QStringLiteral("first_token_norm");
    case CensusMetric::ClsContribution:
        return QStringLiteral("cls_mass_norm");
    case CensusMetric::SepContribution:
        return QStringLiteral("sep_mass_norm");
    case CensusMetric::PunctuationContribution:
        return QStringLiteral("punct_mass_norm");
    }
    return {};
}

QString censusMetricTitle(CensusMetric metric)
{
    switch (metric) {
    case CensusMetric::FirstToken:
        return QStringLiteral("first-token share");
    case CensusMetric::Cls:
        return QStringLiteral("[CLS] share");
    case CensusMetric::Sep:
        return QStringLiteral("[SEP] share");
    case CensusMetric::Punctuation:
        return QStringLiteral("punctuation share");
    case CensusMetric::Self:
        return QStringLiteral("self");
    case CensusMetric::Previous:
        return QStringLiteral("previous token");
    case CensusMetric::Next:
        return QStringLiteral("next token");
    case CensusMetric::Entropy:
        return QStringLiteral("entropy (nats)");
    case CensusMetric::NormalizedEntropy:
        return QStringLiteral("normalised entropy");
    case CensusMetric::FirstTokenContribution:
        return QStringLiteral("first-token contribution share");
    case CensusMetric::ClsContribution:
        return QStringLiteral("[CLS] contribution share");
    case CensusMetric::SepContribution:
        return QStringLiteral("[SEP] contribution share");
    case CensusMetric::PunctuationContribution:
        return QStringLiteral("punctuation contribution share");
    }
    return {};
}

std::optional<CensusMetric> censusMetricFromId(const QString& id)
{
    for (CensusMetric metric : allCensusMetrics())
        if (censusMetricId(metric) == id) return metric;
    return std::nullopt;
}

CensusMetric censusWeightMetric(CensusMetric metric)
{
    switch (metric) {
    case CensusMetric::FirstTokenContribution:
        return CensusMetric::FirstToken;
    case CensusMetric::ClsContribution:
        return CensusMetric::Cls;
    case CensusMetric::SepContribution:
        return CensusMetric::Sep;
    case CensusMetric::PunctuationContribution:
        return CensusMetric::Punctuation;
    default:
        return metric;
    }
}

bool censusMetricIsContribution(CensusMetric metric)
{
    return censusWeightMetric(metric) != metric;
}

double censusMetricValue(const HeadStats& stats, CensusMetric metric)
{
    switch (censusWeightMetric(metric)) {
    case CensusMetric::FirstToken:
        return stats.sinkMass;
    case CensusMetric::Cls:
        return stats.clsMass;
    case CensusMetric::Sep:
        return stats.sepMass;
    case CensusMetric::Punctuation:
        return stats.punctMass;
    case CensusMetric::Self:
        return stats.self;
    case CensusMetric::Previous:
        return stats.previous;
    case CensusMetric::Next:
        return stats.next;
    case CensusMetric::Entropy:
        return stats.entropy;
    case CensusMetric::NormalizedEntropy:
        return stats.normalizedEntropy;
    case CensusMetric::FirstTokenContribution:
    case CensusMetric::ClsContribution:
    case CensusMetric::SepContribution:
    case CensusMetric::PunctuationContribution:
        break; // censusWeightMetric maps these to their weight counterparts
    }
    return 0;
}

bool censusMetricIsShare(CensusMetric metric)
{
    return metric != CensusMetric::Entropy;
}

} // namespace attnscope
