#pragma once

// The attention operations on a QRhi: the host side of core/gpu/shaders/*.comp. Inputs are checked
// by the caller (RhiBackend); these functions assume valid shapes, at least one query and one key,
// and a head dimension of at most kMaxHeadDim. They throw GpuError when the GPU fails.
// Construct, use and destroy on the device thread.

#include "attention/attention.h"
#include "attention/attentionoverview.h"
#include "gpu/computekernel.h"

#include <memory>

namespace attnscope {

class RhiAttentionKernels
{
public:
    static constexpr int kMaxHeadDim = 128; // MAX_DIM in the shaders

    // Builds every pipeline. loopIterationLimit: RhiDevice::loopIterationLimit().
    RhiAttentionKernels(QRhi& rhi, int loopIterationLimit);
    ~RhiAttentionKernels();

    TiledAttentionResult forward(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v,
                                 const AttentionOptions& options);
    std::vector<float> probabilityTile(const HeadTensor& rotatedQueries, const HeadTensor& rotatedKeys,
                                       const std::vector<double>& logSumExp, const AttentionOptions& options,
                                       int head, int q0, int q1, int k0, int k1);
    AttentionOverview overview(const HeadTensor& rotatedQueries, const HeadTensor& rotatedKeys,
                               const std::vector<double>& logSumExp, const AttentionOptions& options,
                               int head, int maxCols, int maxRows);

private:
    QRhi& m_rhi;
    int m_loopIterationLimit;
    std::unique_ptr<ComputeKernel> m_rope, m_forward, m_tile, m_overview, m_pool, m_columnSums;
};

} // namespace attnscope
