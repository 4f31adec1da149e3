#include "stats/attentionanalysis.h"

#include "attention/attentionmaps.h"
#include "stats/headstatsaccumulator.h"
#include "util/parallel.h"

#include <algorithm>

namespace attnscope {

std::vector<LayerSummary> summarizeLayers(const std::vector<HeadStats>& heads, int layers)
{
    std::vector<LayerSummary> out(size_t(std::max(0, layers)));
    std::vector<int> counts(out.size(), 0);
    for (size_t l = 0; l < out.size(); ++l)
        out[l].layer = int(l);
    for (const HeadStats& s : heads) {
        if (s.layer < 0 || s.layer >= layers) continue;
        LayerSummary& summary = out[size_t(s.layer)];
        summary.sinkMass += s.sinkMass;
        summary.sink4Mass += s.sink4Mass;
        summary.sepMass += s.sepMass;
        summary.clsMass += s.clsMass;
        summary.punctMass += s.punctMass;
        summary.entropy += s.entropy;
        ++counts[size_t(s.layer)];
    }
    for (size_t l = 0; l < out.size(); ++l) {
        if (counts[l] == 0) continue;
        const double n = counts[l];
        out[l].sinkMass /= n;
        out[l].sink4Mass /= n;
        out[l].sepMass /= n;
        out[l].clsMass /= n;
        out[l].punctMass /= n;
        out[l].entropy /= n;
    }
    return out;
}

std::optional<AttentionAnalysis> analyzeAttention(const AttentionMaps& maps, const TokenRoles& roles,
                                                  const AnalysisOptions& options)
{
    AttentionAnalysis analysis;
    analysis.layers = maps.layers();
    analysis.heads = maps.heads();
    const int headCount = analysis.layers * analysis.heads;
    const int queries = maps.queries(), keys = maps.keys();
    const int block = std::max(1, options.rowBlock);
    analysis.stats.resize(size_t(headCount));
    analysis.overviews.assign(size_t(headCount), PooledHeadOverview(queries, keys, options.overviewSize));
    std::atomic<bool> stopped{false};
    parallelFor(headCount, options.threads, [&](int index) {
        const int layer = index / analysis.heads, head = index % analysis.heads;
        HeadStatsAccumulator accumulator(roles, queries, keys);
        PooledHeadOverview& overview = analysis.overviews[size_t(index)];
        for (int q0 = 0; q0 < queries; q0 += block) {
            if (stopped.load(std::memory_order_relaxed) ||
                (options.cancel && options.cancel->load(std::memory_order_relaxed))) {
                stopped = true;
                return;
            }
            const int q1 = std::min(queries, q0 + block);
            const std::vector<float> rows = maps.tile(layer, head, q0, q1, 0, keys);
            accumulator.addRows(q0, rows.data(), q1 - q0);
            overview.addRows(q0, rows.data(), q1 - q0);
        }
        overview.finish();
        analysis.stats[size_t(index)] = accumulator.finish(layer, head, options.thresholds);
    });
    if (stopped) return std::nullopt;
    analysis.layerSummaries = summarizeLayers(analysis.stats, analysis.layers);
    return analysis;
}

} // namespace attnscope
