#include "gpu/computeframe.h"

#include "gpu/rhidevice.h"

#include <algorithm>
#include <string>

namespace attnscope {

namespace {

// Larger buffers than this are not attempted: some drivers limit a storage buffer binding well
// below the memory they have, and a silently truncated binding would give a wrong result.
constexpr size_t kMaxBufferBytes = size_t(1) << 30;

} // namespace

ComputeFrame::ComputeFrame(QRhi& rhi) : m_rhi(rhi) {}

ComputeFrame::~ComputeFrame()
{
    m_bindings.clear(); // bindings reference the buffers
    m_buffers.clear();
}

QRhiBuffer* ComputeFrame::newStorage(size_t bytes)
{
    if (bytes > kMaxBufferBytes)
        throw GpuError("a " + std::to_string(bytes >> 20) + " MiB buffer is more than the GPU path handles");
    m_buffers.emplace_back(m_rhi.newBuffer(QRhiBuffer::Static, QRhiBuffer::StorageBuffer,
                                           rhicompat::bufferSize(std::max<size_t>(bytes, 16))));
    if (!m_buffers.back()->create())
        throw GpuError("cannot allocate a GPU buffer of " + std::to_string(bytes) + " bytes");
    return m_buffers.back().get();
}

QRhiBuffer* ComputeFrame::upload(const void* data, size_t bytes)
{
    QRhiBuffer* buffer = newStorage(bytes);
    QByteArray contents(static_cast<const char*>(data), qsizetype(bytes));
    contents.resize(std::max<qsizetype>(contents.size(), 16), '\0');
    m_uploads.push_back({buffer, contents, false});
    return buffer;
}

QRhiBuffer* ComputeFrame::output(size_t bytes)
{
    return newStorage(bytes);
}

QRhiBuffer* ComputeFrame::paramsBuffer(const void* data, size_t bytes)
{
    m_buffers.emplace_back(m_rhi.newBuffer(QRhiBuffer::Dynamic, QRhiBuffer::UniformBuffer, 256));
    if (bytes > 256 || !m_buffers.back()->create()) throw GpuError("cannot create a parameter buffer");
    QByteArray contents(static_cast<const char*>(data), qsizetype(bytes));
    contents.resize(256, '\0');
    m_uploads.push_back({m_buffers.back().get(), contents, true});
    return m_buffers.back().get();
}

void ComputeFrame::dispatch(const ComputeKernel& kernel, QRhiBuffer* params,
                            const std::vector<QRhiBuffer*>& storage, int groupsX, int groupsY)
{
    const int limit = m_rhi.resourceLimit(QRhi::MaxThreadGroupsPerDimension);
    if (groupsX > limit || groupsY > limit)
        throw GpuError("input too large for one dispatch of " + kernel.name().toStdString());
    m_bindings.emplace_back(kernel.newBindings(params, storage));
    m_dispatches.push_back({&kernel, m_bindings.back().get(), groupsX, groupsY});
}

std::vector<QByteArray> ComputeFrame::submit(const std::vector<std::pair<QRhiBuffer*, size_t>>& readbacks)
{
    if (qEnvironmentVariable("ATTNSCOPE_GPU_FAULT") == QLatin1String("lost"))
        throw GpuError("device lost (injected by ATTNSCOPE_GPU_FAULT)");
    if (m_dispatches.empty()) throw GpuError("a GPU frame with nothing to dispatch");
    QRhiCommandBuffer* cb = nullptr;
    const QRhi::FrameOpResult begun = m_rhi.beginOffscreenFrame(&cb);
    if (begun != QRhi::FrameOpSuccess)
        throw GpuError(begun == QRhi::FrameOpDeviceLost ? "device lost" : "cannot begin a GPU frame");

    QRhiResourceUpdateBatch* uploads = m_rhi.nextResourceUpdateBatch();
    for (const Upload& upload : m_uploads) {
        if (upload.dynamic)
            uploads->updateDynamicBuffer(upload.buffer, 0, rhicompat::bufferSize(size_t(upload.data.size())),
                                         upload.data.constData());
        else
            uploads->uploadStaticBuffer(upload.buffer, 0, rhicompat::bufferSize(size_t(upload.data.size())),
                                        upload.data.constData());
    }

    std::vector<rhicompat::BufferReadback> results(readbacks.size());
    for (size_t i = 0; i < m_dispatches.size(); ++i) {
        const Dispatch& d = m_dispatches[i];
        cb->beginComputePass(i == 0 ? uploads : nullptr);
        cb->setComputePipeline(d.kernel->pipeline());
        cb->setShaderResources(d.bindings);
        cb->dispatch(d.groupsX, d.groupsY, 1);
        QRhiResourceUpdateBatch* after = nullptr;
        if (i + 1 == m_dispatches.size()) {
            after = m_rhi.nextResourceUpdateBatch();
            for (size_t r = 0; r < readbacks.size(); ++r)
                after->readBackBuffer(readbacks[r].first, 0, rhicompat::bufferSize(readbacks[r].second),
                                      &results[r]);
        }
        cb->endComputePass(after);
    }
    const QRhi::FrameOpResult ended = m_rhi.endOffscreenFrame(); // waits for the readbacks
    if (ended != QRhi::FrameOpSuccess)
        throw GpuError(ended == QRhi::FrameOpDeviceLost ? "device lost" : "the GPU frame failed");
    std::vector<QByteArray> data;
    for (size_t r = 0; r < readbacks.size(); ++r) {
        if (size_t(results[r].data.size()) != readbacks[r].second)
            throw GpuError("a GPU readback came back incomplete");
        data.push_back(results[r].data);
    }
    return data;
}

} // namespace attnscope
