#pragma once

// The per-head measures a census averages over a corpus. Each is one field of HeadStats (core/stats,
// docs/metrics.md): the census adds no definition of its own, it only averages them over inputs.
// The contribution metrics read the same fields from HeadStats computed over the contribution shares
// (Kobayashi et al. 2020, analysis/contributions.h, ContributionScale::Share) instead of the weights:
// SepContribution = mean_i sum_{j in [SEP]} ||a_ij f(x_j)|| / sum_j ||a_ij f(x_j)||, over the same query
// rows as sep_mass.

#include "stats/headstats.h"

#include <QString>
#include <optional>
#include <vector>

namespace attnscope {

enum class CensusMetric {
    FirstToken,        // HeadStats::sinkMass: attention to position 0
    Cls,               // clsMass
    Sep,               // sepMass
    Punctuation,       // punctMass
    Self,              // self
    Previous,          // previous
    Next,              // next
    Entropy,           // entropy (nats)
    NormalizedEntropy, // normalizedEntropy
    // Contribution shares: FirstToken, Cls, Sep, Punctuation over the contribution shares (see above).
    FirstTokenContribution,
    ClsContribution,
    SepContribution,
    PunctuationContribution,
};

std::vector<CensusMetric> allCensusMetrics();
QString censusMetricId(CensusMetric metric);    // "first_token", "cls_mass", "sep_mass", "punct_mass", ...
QString censusMetricTitle(CensusMetric metric); // "[SEP] share", for figures
std::optional<CensusMetric> censusMetricFromId(const QString& id);
// A contribution metric's weight counterpart (SepContribution -> Sep); a weight metric itself.
CensusMetric censusWeightMetric(CensusMetric metric);
bool censusMetricIsContribution(CensusMetric metric);
// The metric's field of `stats`: pass the weight statistics for a weight metric and the contribution-share
// statistics for a contribution metric.
double censusMetricValue(const HeadStats& stats, CensusMetric metric);
// Shares lie in [0, 1]; entropy in nats does not.
bool censusMetricIsShare(CensusMetric metric);

} // namespace attnscope
