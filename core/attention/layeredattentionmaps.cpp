#include "attention/layeredattentionmaps.h"

#include <stdexcept>
#include <string>

namespace attnscope {

void LayeredAttentionMaps::appendLayer(FloatBuffer probabilities)
{
    if (probabilities.size() != size_t(m_heads) * size_t(m_queries) * size_t(m_keys))
        throw std::invalid_argument("LayeredAttentionMaps: " + std::to_string(probabilities.size()) +
                                    " values do not fill one layer of " + std::to_string(m_heads) + " heads");
    m_layers.push_back(std::move(probabilities));
}

std::vector<float> LayeredAttentionMaps::tile(int layer, int head, int q0, int q1, int k0, int k1) const
{
    checkTileRequest(*this, layer, head, q0, q1, k0, k1);
    return copyTile(data(layer, head), m_keys, q0, q1, k0, k1);
}

} // namespace attnscope
