#pragma once

#include "backend/attentionbackend.h"

namespace attnscope {

// The reference: each operation is the CPU core's function of the same name.
class CpuBackend : public AttentionBackend
{
public:
    BackendKind kind() const override { return BackendKind::Cpu; }
    // "<processor> (<n> threads, <kernel variant> kernels)", in English (the CLI's words).
    QString deviceName() const override;
    // The processor's name from /proc/cpuinfo, else the architecture; read once.
    static QString processorName();

    TiledAttentionResult tiledForward(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v,
                                      const AttentionOptions& options) override;
    std::vector<float> probabilityTile(const HeadTensor& rotatedQueries, const HeadTensor& rotatedKeys,
                                       const std::vector<double>& logSumExp, const AttentionOptions& options,
                                       int head, int q0, int q1, int k0, int k1) override;
    AttentionOverview overview(const HeadTensor& rotatedQueries, const HeadTensor& rotatedKeys,
                               const std::vector<double>& logSumExp, const AttentionOptions& options,
                               int head, int maxCols, int maxRows) override;
};

} // namespace attnscope
