#pragma once

#include "attention/attentionmaps.h"
#include "util/uninitializedbuffer.h"

#include <vector>

namespace attnscope {

// Dense probabilities held per layer, [heads, n_q, n_k] each, exactly as attentionFull returns them: the
// forward pass moves each layer's P in without copying it into one [layers, heads, n_q, n_k] block.
class LayeredAttentionMaps final : public AttentionMaps
{
public:
    LayeredAttentionMaps(int heads, int queries, int keys) : m_heads(heads), m_queries(queries), m_keys(keys)
    {}

    // Throws std::invalid_argument when the size is not heads × queries × keys.
    void appendLayer(FloatBuffer probabilities);

    int layers() const override { return int(m_layers.size()); }
    int heads() const override { return m_heads; }
    int queries() const override { return m_queries; }
    int keys() const override { return m_keys; }
    std::vector<float> tile(int layer, int head, int q0, int q1, int k0, int k1) const override;

    // Row-major n_q × n_k of one head.
    const float* data(int layer, int head) const
    {
        return m_layers[size_t(layer)].data() + size_t(head) * size_t(m_queries) * size_t(m_keys);
    }

private:
    int m_heads, m_queries, m_keys;
    std::vector<FloatBuffer> m_layers;
};

} // namespace attnscope
