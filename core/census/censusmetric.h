#pragma once

// The per-head measures a census averages over a corpus. Each is one field of HeadStats (core/stats,
// docs/metrics.md): the census adds no definition of its own, it only averages them over inputs.

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
    // Contribution (value-norm, Kobayashi et al. 2020) shares go here once core computes them per input
    // (branch `analysis`, issue 14): e.g. SepContribution = mean_i sum_{j in SEP} ||a_ij f(x_j)|| /
    // sum_j ||a_ij f(x_j)||. Add the enum value, its id and its HeadStats field; the census, its JSON,
    // CSV and figures pick it up from allCensusMetrics().
};

std::vector<CensusMetric> allCensusMetrics();
QString censusMetricId(CensusMetric metric);    // "first_token", "cls_mass", "sep_mass", "punct_mass", ...
QString censusMetricTitle(CensusMetric metric); // "[SEP] share", for figures
std::optional<CensusMetric> censusMetricFromId(const QString& id);
double censusMetricValue(const HeadStats& stats, CensusMetric metric);
// Shares lie in [0, 1]; entropy in nats does not.
bool censusMetricIsShare(CensusMetric metric);

} // namespace attnscope
