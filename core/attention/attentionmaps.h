#pragma once

#include "util/uninitializedbuffer.h"

#include <memory>
#include <vector>

namespace attnscope {

// Every head's attention for one input: layers × heads matrices of n_q × n_k probabilities.
// Implementations may hold them densely (short inputs) or recompute any rectangle on demand from
// Q, K and the row logsumexp (long inputs), so views ask for tiles instead of whole matrices.
class AttentionMaps
{
public:
    virtual ~AttentionMaps() = default;
    virtual int layers() const = 0;
    virtual int heads() const = 0;
    virtual int queries() const = 0;
    virtual int keys() const = 0;
    // Row-major (q1−q0)×(k1−k0) block of P for one head. Throws std::invalid_argument outside the matrix.
    virtual std::vector<float> tile(int layer, int head, int q0, int q1, int k0, int k1) const = 0;

    std::vector<float> matrix(int layer, int head) const
    {
        return tile(layer, head, 0, queries(), 0, keys());
    }
};

// Probabilities held in memory as [layers, heads, n_q, n_k].
class DenseAttentionMaps final : public AttentionMaps
{
public:
    DenseAttentionMaps(int layers, int heads, int queries, int keys, std::vector<float> probabilities);
    // From attentionFull's P (copied).
    DenseAttentionMaps(int layers, int heads, int queries, int keys, const FloatBuffer& probabilities)
        : DenseAttentionMaps(layers, heads, queries, keys,
                             std::vector<float>(probabilities.begin(), probabilities.end()))
    {}

    int layers() const override { return m_layers; }
    int heads() const override { return m_heads; }
    int queries() const override { return m_queries; }
    int keys() const override { return m_keys; }
    std::vector<float> tile(int layer, int head, int q0, int q1, int k0, int k1) const override;

    const float* data(int layer, int head) const
    {
        return m_probabilities.data() +
               (size_t(layer) * size_t(m_heads) + size_t(head)) * size_t(m_queries) * size_t(m_keys);
    }
    const std::vector<float>& values() const { return m_probabilities; }

private:
    int m_layers, m_heads, m_queries, m_keys;
    std::vector<float> m_probabilities;
};

// Whole matrices of heads [firstHead, endHead) of one layer, each n_q × n_k row-major, computed on up to
// `threads` threads (0 = all cores): a tiled map recomputes each head's P = exp(S − L), a dump of every head
// spent a quarter of a BERT-base CLI run doing that on one thread (docs/benchmarks.md).
std::vector<std::vector<float>> headMatrices(const AttentionMaps& maps, int layer, int firstHead, int endHead,
                                             int threads = 0);

// Throws std::invalid_argument unless (layer, head, [q0,q1)x[k0,k1)) lies inside maps.
void checkTileRequest(const AttentionMaps& maps, int layer, int head, int q0, int q1, int k0, int k1);

// Rows [q0,q1) × columns [k0,k1) of a row-major matrix with `keys` columns, copied row by row.
std::vector<float> copyTile(const float* matrix, int keys, int q0, int q1, int k0, int k1);

} // namespace attnscope
