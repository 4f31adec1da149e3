#pragma once

// One offscreen frame of compute work: buffers to upload, dispatches (each in its own compute pass,
// so QRhi orders a pass that reads what an earlier one wrote), and buffers to read back. submit()
// returns when the readbacks are complete. Everything it creates is released with it.
// Lives on the device thread.

#include "gpu/computekernel.h"

#include <QByteArray>
#include <memory>
#include <vector>

namespace attnscope {

class ComputeFrame
{
public:
    explicit ComputeFrame(QRhi& rhi);
    ~ComputeFrame();

    // A storage buffer holding `bytes` of data (at least 16 bytes are allocated).
    QRhiBuffer* upload(const void* data, size_t bytes);
    template <typename T> QRhiBuffer* upload(const std::vector<T>& values)
    {
        return upload(values.data(), values.size() * sizeof(T));
    }
    // A storage buffer the kernels write.
    QRhiBuffer* output(size_t bytes);
    // A kernel's parameter block.
    template <typename Params> QRhiBuffer* params(const Params& p)
    {
        return paramsBuffer(&p, sizeof(Params));
    }

    void dispatch(const ComputeKernel& kernel, QRhiBuffer* params, const std::vector<QRhiBuffer*>& storage,
                  int groupsX, int groupsY = 1);

    // Records and runs the frame; returns the contents of each buffer in `readbacks` (the first
    // `bytes` of it). Throws GpuError when the frame fails or the device is lost.
    std::vector<QByteArray> submit(const std::vector<std::pair<QRhiBuffer*, size_t>>& readbacks);

private:
    QRhiBuffer* paramsBuffer(const void* data, size_t bytes);
    QRhiBuffer* newStorage(size_t bytes);

    struct Upload
    {
        QRhiBuffer* buffer;
        QByteArray data;
        bool dynamic;
    };
    struct Dispatch
    {
        const ComputeKernel* kernel;
        QRhiShaderResourceBindings* bindings;
        int groupsX, groupsY;
    };
    QRhi& m_rhi;
    std::vector<std::unique_ptr<QRhiBuffer>> m_buffers;
    std::vector<std::unique_ptr<QRhiShaderResourceBindings>> m_bindings;
    std::vector<Upload> m_uploads;
    std::vector<Dispatch> m_dispatches;
};

} // namespace attnscope
