#pragma once

// The norm-based view of attention (Kobayashi et al. 2020, "Attention is Not Only a Weight"): what key j
// actually adds to query i's output in head h is α_ij · f_h(x_j), with f_h(x) = (x·W_V + b_V)·W_O restricted
// to head h's slice of W_O (GQA: the head's shared key/value head, its own W_O slice). Its size
// ‖α_ij f_h(x_j)‖ is the "contribution"; a head that puts most weight on [SEP] or BOS whose value vector
// there is small moves almost nothing (a "no-op" head).
//
// Everything here is computed from one forward pass's capture (the value vectors V and W_O it keeps).

#include "attention/attentionmaps.h"
#include "model/attentioncapture.h"

#include <atomic>
#include <memory>
#include <vector>

namespace attnscope {

// ‖f_h(x_j)‖ for every layer, head and key token of a capture: [layers][heads][keys], row-major.
struct ValueNorms
{
    int layers = 0, heads = 0, keys = 0;
    std::vector<float> norms;

    float at(int layer, int head, int key) const
    {
        return norms[(size_t(layer) * size_t(heads) + size_t(head)) * size_t(keys) + size_t(key)];
    }
    const float* row(int layer, int head) const
    {
        return norms.data() + (size_t(layer) * size_t(heads) + size_t(head)) * size_t(keys);
    }
};

// Every layer's and head's ‖f_h(x_j)‖ (heads in parallel on `threads`, 0 = all cores). Throws
// OperationCancelled when cancel turns true (checked between layers), std::invalid_argument for a capture
// without values.
ValueNorms valueNorms(const AttentionCapture& capture, const std::atomic<bool>* cancel = nullptr,
                      int threads = 0);

// How a contribution map is scaled.
enum class ContributionScale {
    Norm,  // ‖α_ij f_h(x_j)‖ as is (in the residual stream's units)
    Share, // each query row divided by its sum: the share of row i's total contribution that comes from j,
           // comparable to α (rows sum to 1) and what the statistics and rollout use
};

// The contributions of every head, in the layout of the attention maps (same layers, heads, queries, keys),
// so every view and statistic that reads P reads them unchanged. Computed from P tile by tile on request:
// it keeps only the norms and, for Share, each row's sum.
class ContributionMaps final : public AttentionMaps
{
public:
    // Throws std::invalid_argument when the norms do not fit the maps. cancel: checked between heads while
    // the row sums are computed (OperationCancelled).
    ContributionMaps(std::shared_ptr<const AttentionMaps> weights, ValueNorms norms, ContributionScale scale,
                     const std::atomic<bool>* cancel = nullptr);

    int layers() const override { return m_weights->layers(); }
    int heads() const override { return m_weights->heads(); }
    int queries() const override { return m_weights->queries(); }
    int keys() const override { return m_weights->keys(); }
    std::vector<float> tile(int layer, int head, int q0, int q1, int k0, int k1) const override;

    ContributionScale scale() const { return m_scale; }
    const ValueNorms& valueNorms() const { return m_norms; }

private:
    std::shared_ptr<const AttentionMaps> m_weights;
    ValueNorms m_norms;
    ContributionScale m_scale;
    std::vector<double> m_rowSums; // [layers][heads][queries], Share only
};

// The capture's contributions: valueNorms() over capture.maps.
std::shared_ptr<const ContributionMaps> contributionMaps(const AttentionCapture& capture,
                                                         ContributionScale scale,
                                                         const std::atomic<bool>* cancel = nullptr,
                                                         int threads = 0);

} // namespace attnscope
