#pragma once

#include "attention/attention.h"
#include "attention/attentionmaps.h"

namespace attnscope {

// Attention recomputed on demand from Q, K and the row logsumexp of attentionTiled, per layer: the
// long-input representation (memory O(n·H·d) per layer, never n×n). Used by the synthetic demo.
class RecomputedAttentionMaps final : public AttentionMaps
{
public:
    struct Layer
    {
        HeadTensor queries, keys; // after RoPE, as the scores see them
        std::vector<double> logSumExp; // [H, n_q]
    };
    RecomputedAttentionMaps(std::vector<Layer> layers, AttentionOptions options);

    int layers() const override { return int(m_layers.size()); }
    int heads() const override { return m_layers.empty() ? 0 : m_layers.front().queries.heads; }
    int queries() const override { return m_layers.empty() ? 0 : m_layers.front().queries.tokens; }
    int keys() const override { return m_layers.empty() ? 0 : m_layers.front().keys.tokens; }
    std::vector<float> tile(int layer, int head, int q0, int q1, int k0, int k1) const override;

private:
    std::vector<Layer> m_layers;
    AttentionOptions m_options;
};

} // namespace attnscope
