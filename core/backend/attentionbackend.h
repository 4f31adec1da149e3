#pragma once

// One interface for every place attention can be computed: the CPU core and the GPU through Qt RHI
// (Vulkan, OpenGL). Like ggml's backend struct it is a small set of documented operations, each
// checked on every backend against the CPU reference (tests/ui/tst_gpu_backends.cpp).
//
// Operations (all required):
//   tiledForward     O and the row logsumexp of multi-head attention; never n×n.
//   probabilityTile  one rectangle of one head's P, recomputed as exp(S − L).
//   overview         one head pooled to at most maxCols × maxRows cells, plus column sums and row entropies.
// Optional:
//   supportsHeadDim  false when an implementation has a size limit; the caller (or the backend itself)
//                    then uses the CPU for that input.
//
// Failure policy: an operation never returns a wrong result. A GPU backend that fails (device lost,
// pipeline rejected, input it cannot handle) computes the answer on the CPU instead and reports one
// line through the notice handler.

#include "attention/attention.h"
#include "attention/attentionoverview.h"

#include <QString>
#include <functional>
#include <memory>

namespace attnscope {

enum class BackendKind { Auto, Cpu, Vulkan, OpenGL };

// "auto", "cpu", "vulkan", "opengl"; parseBackendKind returns false for anything else.
QString backendKindName(BackendKind kind);
bool parseBackendKind(const QString& text, BackendKind* kind);

class AttentionBackend
{
public:
    using NoticeHandler = std::function<void(const QString&)>;

    virtual ~AttentionBackend();

    // The implementation actually in use ("cpu", "vulkan", "opengl") and the device it runs on
    // ("llvmpipe (LLVM 15.0.6, 256 bits)", "NVIDIA H200", or the CPU's name).
    virtual BackendKind kind() const = 0;
    QString name() const { return backendKindName(kind()); }
    virtual QString deviceName() const = 0;

    // Shapes as attentionTiled: q [n_q, H, d], k and v [n_k, H_kv, d] before RoPE; options.rope is applied.
    // Returns O [n_q, H, d] and L [H, n_q]. Throws std::invalid_argument on inconsistent shapes.
    virtual TiledAttentionResult tiledForward(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v,
                                              const AttentionOptions& options) = 0;

    // As the CPU probabilityTile: Q and K already rotated, L from tiledForward; row-major (q1−q0)×(k1−k0).
    virtual std::vector<float> probabilityTile(const HeadTensor& rotatedQueries,
                                               const HeadTensor& rotatedKeys,
                                               const std::vector<double>& logSumExp,
                                               const AttentionOptions& options, int head, int q0, int q1,
                                               int k0, int k1) = 0;

    // As attentionOverview (attention/attentionoverview.h).
    virtual AttentionOverview overview(const HeadTensor& rotatedQueries, const HeadTensor& rotatedKeys,
                                       const std::vector<double>& logSumExp, const AttentionOptions& options,
                                       int head, int maxCols, int maxRows) = 0;

    // Optional: the largest head dimension this backend computes itself (0 = no limit).
    virtual int maxHeadDim() const { return 0; }

    // Where one-line notices go (fallback to the CPU, a GPU that stopped working). Default: qWarning.
    void setNoticeHandler(NoticeHandler handler) { m_noticeHandler = std::move(handler); }

protected:
    void notice(const QString& message) const;

private:
    NoticeHandler m_noticeHandler;
};

// Creates the backend asked for. Auto tries Vulkan, then OpenGL, then the CPU, taking only hardware GPUs:
// Mesa's software rasterisers (llvmpipe, lavapipe) are slower than the CPU core, so asking for them is
// explicit (vulkan, opengl). When the one asked for
// cannot start (no Vulkan loader or device, no compute support, a shader pipeline that will not build,
// no QGuiApplication), the CPU backend is returned and *notice gets one line saying why; otherwise
// *notice is cleared. Never returns null. GPU backends need a QGuiApplication, and the OpenGL one must be
// created on the GUI thread (its fallback surface lives there); their work runs on a thread of their own.
std::unique_ptr<AttentionBackend> createBackend(BackendKind kind, QString* notice = nullptr);

} // namespace attnscope
