#pragma once

// Running per-head, per-layer and per-position means over a corpus, fed one input's attention at a time.
// Holds O(layers · heads · metrics + positions) numbers whatever the corpus size; the input's matrices
// are read and dropped.

#include "census/censusmetric.h"
#include "census/runningstat.h"
#include "stats/headstats.h"

#include <QJsonObject>
#include <cstdint>
#include <optional>
#include <vector>

namespace attnscope {

class AttentionMaps;

// One input where a head's metric was among the highest or lowest: its id (the corpus line) and value.
struct CensusExtreme
{
    std::int64_t input = 0;
    double value = 0;
};

class CensusAccumulator
{
public:
    static constexpr int kExtremes = 3; // strongest and weakest inputs kept per head and metric

    CensusAccumulator() = default;
    CensusAccumulator(int layers, int heads, int positions);

    // One input: every head's HeadStats (core/stats, rows of P fed in blocks) and Gu et al.'s key
    // importance (stats/tokenimportance.h). `input` identifies it in the strongest/weakest lists.
    // contributionShares: the same input's contribution shares (ContributionMaps, ContributionScale::Share,
    // laid out as maps), read for the contribution metrics; null when the capture has no value vectors, and
    // then those metrics skip this input.
    void addInput(const AttentionMaps& maps, const TokenRoles& roles, std::int64_t input, int threads = 0,
                  const AttentionMaps* contributionShares = nullptr);
    // The same from already computed values: stats layer-major (layer * heads + head); importance per head
    // (same order) alpha_k for the input's positions; contributionStats the HeadStats of the contribution
    // shares in stats' order, or empty.
    void addHeadStats(const std::vector<HeadStats>& stats, const std::vector<std::vector<double>>& importance,
                      std::int64_t input, const std::vector<HeadStats>& contributionStats = {});

    int layers() const { return m_layers; }
    int heads() const { return m_heads; }
    int positions() const { return m_positions; }
    std::int64_t inputs() const { return m_inputs; }

    // Over inputs: the head's per-input value of `metric` (contribution metrics: over the inputs that had
    // contribution shares).
    const RunningStat& head(int layer, int head, CensusMetric metric) const;
    // Over inputs: the per-input mean over the layer's heads (its mean is the Clark curve's point).
    const RunningStat& layer(int layer, CensusMetric metric) const;
    // Over the inputs that reach position k: the share of heads with alpha_k > kSinkImportanceThreshold
    // (Gu et al.'s sink rate at k), and the mean alpha_k over heads.
    const RunningStat& sinkRate(int position) const { return m_sinkRate[size_t(position)]; }
    const RunningStat& importance(int position) const { return m_importance[size_t(position)]; }
    // Highest first / lowest first.
    const std::vector<CensusExtreme>& strongest(int layer, int head, CensusMetric metric) const;
    const std::vector<CensusExtreme>& weakest(int layer, int head, CensusMetric metric) const;

    QJsonObject toJson() const;
    // nullopt (and *error) when the object is not a census accumulator of a known shape.
    static std::optional<CensusAccumulator> fromJson(const QJsonObject& object, QString* error);

private:
    size_t headIndex(int layer, int head, CensusMetric metric) const;

    int m_layers = 0, m_heads = 0, m_positions = 0, m_metrics = 0;
    std::int64_t m_inputs = 0;
    std::vector<RunningStat> m_head;                                // [layer][head][metric]
    std::vector<RunningStat> m_layer;                               // [layer][metric]
    std::vector<RunningStat> m_sinkRate, m_importance;              // [position]
    std::vector<std::vector<CensusExtreme>> m_strongest, m_weakest; // [layer][head][metric]
};

} // namespace attnscope
