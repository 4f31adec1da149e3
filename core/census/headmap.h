#pragma once

// Heads placed on a plane so that heads with similar census profiles lie close together: each head is a
// vector of its census means (one entry per metric, each metric standardised over the heads: zero mean,
// unit variance, so [SEP] share and entropy in nats weigh alike), projected on its first two principal
// components (PCA of the heads × metrics matrix).

#include "census/censusaccumulator.h"

#include <vector>

namespace attnscope {

struct HeadMapPoint
{
    int layer = 0;
    int head = 0;
    double x = 0, y = 0; // first and second principal component scores
};

// Layer-major (layer * heads + head). Metrics with no spread over the heads are left out; fewer than two
// heads give all points at 0.
std::vector<HeadMapPoint> censusHeadMap(const CensusAccumulator& sums,
                                        const std::vector<CensusMetric>& metrics = allCensusMetrics());

} // namespace attnscope
