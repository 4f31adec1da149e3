#include "explorer/syntheticattentionmaps.h"

namespace attnscope {

RecomputedAttentionMaps::RecomputedAttentionMaps(std::vector<Layer> layers, AttentionOptions options)
    : m_layers(std::move(layers)), m_options(std::move(options))
{
    m_options.rope.enabled = false; // the stored Q and K are already rotated
}

std::vector<float> RecomputedAttentionMaps::tile(int layer, int head, int q0, int q1, int k0, int k1) const
{
    checkTileRequest(*this, layer, head, q0, q1, k0, k1);
    const Layer& l = m_layers[size_t(layer)];
    return probabilityTile(l.queries, l.keys, l.logSumExp, m_options, head, q0, q1, k0, k1);
}

} // namespace attnscope
