#pragma once

// Attention on the GPU through Qt RHI compute (Vulkan or OpenGL; the same kernels would run on Metal
// and Direct3D). The work runs on the device's own thread; a caller blocks only itself.
// When the GPU fails mid-way (device lost, a frame that does not complete) the backend switches to
// the CPU for good, says so once through the notice handler, and returns the CPU's result.

#include "backend/attentionbackend.h"
#include "backend/cpubackend.h"

#include <atomic>
#include <memory>

namespace attnscope {

enum class RhiApi;
class RhiDevice;
class RhiAttentionKernels;

class RhiBackend : public AttentionBackend
{
public:
    // Null with *error set when the device or one of the kernels' pipelines cannot start, or, with
    // hardwareOnly, when the device is a software rasteriser (llvmpipe, lavapipe: slower than the CPU core).
    static std::unique_ptr<RhiBackend> create(RhiApi api, QString* error, bool hardwareOnly = false);
    ~RhiBackend() override;

    BackendKind kind() const override;
    QString deviceName() const override;
    int maxHeadDim() const override;

    TiledAttentionResult tiledForward(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v,
                                      const AttentionOptions& options) override;
    std::vector<float> probabilityTile(const HeadTensor& rotatedQueries, const HeadTensor& rotatedKeys,
                                       const std::vector<double>& logSumExp, const AttentionOptions& options,
                                       int head, int q0, int q1, int k0, int k1) override;
    AttentionOverview overview(const HeadTensor& rotatedQueries, const HeadTensor& rotatedKeys,
                               const std::vector<double>& logSumExp, const AttentionOptions& options,
                               int head, int maxCols, int maxRows) override;

    // False once the GPU has failed: every operation then runs on the CPU.
    bool gpuUsable() const { return !m_failed; }

private:
    RhiBackend() = default;
    // Runs gpuWork on the device thread; on a GpuError switches to the CPU for good and runs cpuWork.
    template <typename Result, typename Gpu, typename Cpu> Result runOrFallBack(Gpu gpuWork, Cpu cpuWork);
    bool fitsKernels(int headDim);
    // False (with one notice) for what the kernels do not compute: sliding windows, logit soft-capping.
    bool kernelsSupport(const AttentionOptions& options);
    QString apiName() const;

    std::unique_ptr<RhiDevice> m_device;
    std::unique_ptr<RhiAttentionKernels> m_kernels; // created and destroyed on the device thread
    CpuBackend m_cpu;
    std::atomic<bool> m_failed{false};
    std::atomic<bool> m_toldHeadDim{false};
    std::atomic<bool> m_toldOptions{false};
};

} // namespace attnscope
