#include "attention/tiledattentionmaps.h"

#include <stdexcept>

namespace attnscope {

TiledAttentionMaps::TiledAttentionMaps(std::vector<Layer> layers) : m_layers(std::move(layers))
{
    for (const Layer& l : m_layers) {
        const Layer& first = m_layers.front();
        if (l.rotatedQueries.heads != first.rotatedQueries.heads ||
            l.rotatedQueries.tokens != first.rotatedQueries.tokens ||
            l.rotatedKeys.tokens != first.rotatedKeys.tokens)
            throw std::invalid_argument("TiledAttentionMaps: layers disagree in heads or tokens");
        if (l.logSumExp.size() != size_t(l.rotatedQueries.heads) * size_t(l.rotatedQueries.tokens))
            throw std::invalid_argument("TiledAttentionMaps: logsumexp does not match the queries");
    }
}

std::vector<float> TiledAttentionMaps::tile(int layer, int head, int q0, int q1, int k0, int k1) const
{
    checkTileRequest(*this, layer, head, q0, q1, k0, k1);
    const Layer& l = m_layers[size_t(layer)];
    return probabilityTile(l.rotatedQueries, l.rotatedKeys, l.logSumExp, l.options, head, q0, q1, k0, k1);
}

} // namespace attnscope
