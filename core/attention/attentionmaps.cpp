#include "attention/attentionmaps.h"

#include "util/parallel.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace attnscope {

void checkTileRequest(const AttentionMaps& maps, int layer, int head, int q0, int q1, int k0, int k1)
{
    if (layer < 0 || layer >= maps.layers() || head < 0 || head >= maps.heads() || q0 < 0 || q0 > q1 ||
        q1 > maps.queries() || k0 < 0 || k0 > k1 || k1 > maps.keys())
        throw std::invalid_argument("attention tile layer " + std::to_string(layer) + " head " + std::to_string(head) +
                                    " [" + std::to_string(q0) + "," + std::to_string(q1) + ")x[" + std::to_string(k0) +
                                    "," + std::to_string(k1) + ") is outside " + std::to_string(maps.layers()) +
                                    " layers x " + std::to_string(maps.heads()) + " heads x " +
                                    std::to_string(maps.queries()) + "x" + std::to_string(maps.keys()));
}

std::vector<std::vector<float>> headMatrices(const AttentionMaps& maps, int layer, int firstHead, int endHead,
                                             int threads)
{
    std::vector<std::vector<float>> matrices(size_t(std::max(0, endHead - firstHead)));
    // Every implementation's tile() is const and keeps no scratch state, so heads run side by side.
    parallelFor(int(matrices.size()), threads,
                [&](int i) { matrices[size_t(i)] = maps.matrix(layer, firstHead + i); });
    return matrices;
}

std::vector<float> copyTile(const float* matrix, int keys, int q0, int q1, int k0, int k1)
{
    std::vector<float> out;
    out.reserve(size_t(q1 - q0) * size_t(k1 - k0));
    for (int q = q0; q < q1; ++q)
        out.insert(out.end(), matrix + size_t(q) * keys + k0, matrix + size_t(q) * keys + k1);
    return out;
}

DenseAttentionMaps::DenseAttentionMaps(int layers, int heads, int queries, int keys, std::vector<float> probabilities)
    : m_layers(layers), m_heads(heads), m_queries(queries), m_keys(keys), m_probabilities(std::move(probabilities))
{
    if (m_probabilities.size() != size_t(layers) * size_t(heads) * size_t(queries) * size_t(keys))
        throw std::invalid_argument("DenseAttentionMaps: " + std::to_string(m_probabilities.size()) +
                                    " values do not fill the given shape");
}

std::vector<float> DenseAttentionMaps::tile(int layer, int head, int q0, int q1, int k0, int k1) const
{
    checkTileRequest(*this, layer, head, q0, q1, k0, k1);
    return copyTile(data(layer, head), m_keys, q0, q1, k0, k1);
}

} // namespace attnscope
