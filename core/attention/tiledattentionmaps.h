#pragma once

#include "attention/attention.h"
#include "attention/attentionmaps.h"

#include <vector>

namespace attnscope {

// Attention maps of a long input, never held as n×n: per layer it keeps Q and K as the scores saw them
// (after RoPE), the row logsumexp of attentionTiled and the options (scale, masks); tile() recomputes
// any rectangle exactly with probabilityTile. Memory per layer: (H + H_kv)·n·d floats + H·n doubles.
class TiledAttentionMaps final : public AttentionMaps
{
public:
    struct Layer
    {
        HeadTensor rotatedQueries;     // [n_q, H, d]
        HeadTensor rotatedKeys;        // [n_k, H_kv, d]
        std::vector<double> logSumExp; // [H, n_q]
        AttentionOptions options;      // scale and masks; rope is ignored (inputs are already rotated)
    };

    // Throws std::invalid_argument when the layers disagree in heads or tokens.
    explicit TiledAttentionMaps(std::vector<Layer> layers);

    int layers() const override { return int(m_layers.size()); }
    int heads() const override { return m_layers.empty() ? 0 : m_layers.front().rotatedQueries.heads; }
    int queries() const override { return m_layers.empty() ? 0 : m_layers.front().rotatedQueries.tokens; }
    int keys() const override { return m_layers.empty() ? 0 : m_layers.front().rotatedKeys.tokens; }
    std::vector<float> tile(int layer, int head, int q0, int q1, int k0, int k1) const override;

    const Layer& layer(int index) const { return m_layers[size_t(index)]; }

private:
    std::vector<Layer> m_layers;
};

} // namespace attnscope
