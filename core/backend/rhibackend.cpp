#include "backend/rhibackend.h"

#include "gpu/rhiattentionkernels.h"
#include "gpu/rhidevice.h"

#include <string>

namespace attnscope {

std::unique_ptr<RhiBackend> RhiBackend::create(RhiApi api, QString* error, bool hardwareOnly)
{
    std::unique_ptr<RhiBackend> backend(new RhiBackend);
    backend->m_device = RhiDevice::create(api, error);
    if (!backend->m_device) return nullptr;
    if (hardwareOnly && backend->m_device->loopIterationLimit() > 0) {
        if (error)
            *error = QStringLiteral("%1 is a software rasteriser, slower than the CPU core")
                         .arg(backend->m_device->deviceName());
        return nullptr;
    }
    try {
        backend->m_device->run([&](QRhi& rhi) {
            backend->m_kernels =
                std::make_unique<RhiAttentionKernels>(rhi, backend->m_device->loopIterationLimit());
        });
    } catch (const GpuError& e) {
        if (error) *error = QString::fromStdString(e.what());
        return nullptr;
    }
    return backend;
}

RhiBackend::~RhiBackend()
{
    if (m_device && m_kernels) {
        try {
            m_device->run([this](QRhi&) { m_kernels.reset(); });
        } catch (...) {
            // The device is gone: its resources went with it.
            (void)m_kernels.release();
        }
    }
}

QString RhiBackend::apiName() const
{
    return m_device->api() == RhiApi::Vulkan ? QStringLiteral("vulkan") : QStringLiteral("opengl");
}

BackendKind RhiBackend::kind() const
{
    if (m_failed) return BackendKind::Cpu;
    return m_device->api() == RhiApi::Vulkan ? BackendKind::Vulkan : BackendKind::OpenGL;
}

QString RhiBackend::deviceName() const
{
    return m_failed ? m_cpu.deviceName() : m_device->deviceName();
}

int RhiBackend::maxHeadDim() const
{
    return RhiAttentionKernels::kMaxHeadDim;
}

bool RhiBackend::fitsKernels(int headDim)
{
    if (headDim <= RhiAttentionKernels::kMaxHeadDim && headDim % 4 == 0) return true;
    if (!m_toldHeadDim.exchange(true))
        notice(QStringLiteral(
                   "%1: the GPU kernels take head dimensions that are multiples of 4 up to %3, not %2; "
                   "computing on the CPU")
                   .arg(apiName())
                   .arg(headDim)
                   .arg(RhiAttentionKernels::kMaxHeadDim));
    return false;
}

bool RhiBackend::kernelsSupport(const AttentionOptions& options)
{
    if (options.slidingWindow == 0 && options.softCap == 0.0f && options.sinks.empty()) return true;
    if (!m_toldOptions.exchange(true))
        notice(
            QStringLiteral("%1: the GPU kernels have no sliding window, logit soft-capping or learned sinks; "
                           "computing those layers on the CPU")
                .arg(apiName()));
    return false;
}

template <typename Result, typename Gpu, typename Cpu>
Result RhiBackend::runOrFallBack(Gpu gpuWork, Cpu cpuWork)
{
    if (!m_failed) {
        Result result;
        try {
            m_device->run([&](QRhi&) { result = gpuWork(*m_kernels); });
            return result;
        } catch (const GpuError& e) {
            if (!m_failed.exchange(true))
                notice(QStringLiteral("%1 (%2) failed: %3; computing on the CPU from now on")
                           .arg(apiName(), m_device->deviceName(), QString::fromStdString(e.what())));
        }
    }
    return cpuWork();
}

TiledAttentionResult RhiBackend::tiledForward(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v,
                                              const AttentionOptions& options)
{
    validateAttentionInputs(q, k, v, options); // bad shapes throw here, on the caller's thread
    if (q.tokens == 0 || k.tokens == 0 || !fitsKernels(q.dim) || !kernelsSupport(options))
        return m_cpu.tiledForward(q, k, v, options);
    if (options.rope.enabled)
        (void)ropeInverseFrequencies(options.rope, q.dim); // throws on an invalid rotary dimension
    return runOrFallBack<TiledAttentionResult>(
        [&](RhiAttentionKernels& kernels) { return kernels.forward(q, k, v, options); },
        [&] { return m_cpu.tiledForward(q, k, v, options); });
}

namespace {

// Inputs the kernels can take as they are; anything else goes to the CPU code, which throws the
// readable error (or handles the empty case).
bool consistent(const HeadTensor& q, const HeadTensor& k, const std::vector<double>& logSumExp,
                const AttentionOptions& options, int head)
{
    return q.tokens > 0 && k.tokens > 0 && q.heads > 0 && k.heads > 0 && q.dim == k.dim &&
           q.heads % k.heads == 0 && head >= 0 && head < q.heads &&
           logSumExp.size() == size_t(q.heads) * size_t(q.tokens) &&
           (options.keyPadding.empty() || options.keyPadding.size() == size_t(k.tokens));
}

} // namespace

std::vector<float> RhiBackend::probabilityTile(const HeadTensor& q, const HeadTensor& k,
                                               const std::vector<double>& logSumExp,
                                               const AttentionOptions& options, int head, int q0, int q1,
                                               int k0, int k1)
{
    const bool inside = q0 >= 0 && q1 <= q.tokens && q0 < q1 && k0 >= 0 && k1 <= k.tokens && k0 < k1;
    if (!inside || !consistent(q, k, logSumExp, options, head) || !fitsKernels(q.dim) ||
        !kernelsSupport(options))
        return m_cpu.probabilityTile(q, k, logSumExp, options, head, q0, q1, k0, k1);
    return runOrFallBack<std::vector<float>>(
        [&](RhiAttentionKernels& kernels) {
            return kernels.probabilityTile(q, k, logSumExp, options, head, q0, q1, k0, k1);
        },
        [&] { return m_cpu.probabilityTile(q, k, logSumExp, options, head, q0, q1, k0, k1); });
}

AttentionOverview RhiBackend::overview(const HeadTensor& q, const HeadTensor& k,
                                       const std::vector<double>& logSumExp, const AttentionOptions& options,
                                       int head, int maxCols, int maxRows)
{
    if (maxCols <= 0 || maxRows <= 0 || !consistent(q, k, logSumExp, options, head) || !fitsKernels(q.dim) ||
        !kernelsSupport(options))
        return m_cpu.overview(q, k, logSumExp, options, head, maxCols, maxRows);
    return runOrFallBack<AttentionOverview>(
        [&](RhiAttentionKernels& kernels) {
            return kernels.overview(q, k, logSumExp, options, head, maxCols, maxRows);
        },
        [&] { return m_cpu.overview(q, k, logSumExp, options, head, maxCols, maxRows); });
}

} // namespace attnscope
