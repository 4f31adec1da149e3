#pragma once

#include "stats/headstats.h"
#include "stats/pooledheadoverview.h"

#include <atomic>
#include <optional>
#include <vector>

namespace attnscope {

class AttentionMaps;

// Mean of the per-head metrics over one layer's heads: the per-layer chart.
struct LayerSummary
{
    int layer = 0;
    double sinkMass = 0, sink4Mass = 0, sepMass = 0, clsMass = 0, punctMass = 0, entropy = 0;
};
std::vector<LayerSummary> summarizeLayers(const std::vector<HeadStats>& heads, int layers);

struct AnalysisOptions
{
    LabelThresholds thresholds;
    int overviewSize = 64; // thumbnails are at most this many cells a side
    int rowBlock = 64;     // query rows fetched per tile: rowBlock × n_k floats in memory per thread
    int threads = 0;       // 0 = all cores
    const std::atomic<bool>* cancel = nullptr;
};

// Every head's statistics and overview, in one pass over row blocks of each head's matrix.
struct AttentionAnalysis
{
    int layers = 0, heads = 0;
    std::vector<HeadStats> stats;              // layer-major: index layer * heads + head
    std::vector<PooledHeadOverview> overviews; // same order
    std::vector<LayerSummary> layerSummaries;

    const HeadStats& at(int layer, int head) const { return stats[size_t(layer * heads + head)]; }
};

// Returns nullopt when options.cancel was raised before it finished.
std::optional<AttentionAnalysis> analyzeAttention(const AttentionMaps& maps, const TokenRoles& roles,
                                                  const AnalysisOptions& options = {});

} // namespace attnscope
