#include "gpu/computekernel.h"

#include "gpu/rhidevice.h"

#include <QFile>

namespace attnscope {

namespace {

QRhiShaderResourceBinding storageBinding(int binding, StorageAccess access, QRhiBuffer* buffer)
{
    switch (access) {
    case StorageAccess::Load:
        return QRhiShaderResourceBinding::bufferLoad(binding, QRhiShaderResourceBinding::ComputeStage,
                                                     buffer);
    case StorageAccess::Store:
        return QRhiShaderResourceBinding::bufferStore(binding, QRhiShaderResourceBinding::ComputeStage,
                                                      buffer);
    case StorageAccess::LoadStore:
        break;
    }
    return QRhiShaderResourceBinding::bufferLoadStore(binding, QRhiShaderResourceBinding::ComputeStage,
                                                      buffer);
}

} // namespace

ComputeKernel::ComputeKernel(QRhi& rhi, const QString& name, std::vector<StorageAccess> storage)
    : m_rhi(rhi), m_name(name), m_storage(std::move(storage))
{
    const QString path = QStringLiteral(":/attnscope/shaders/%1.comp.qsb").arg(name);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw GpuError("shader " + path.toStdString() + " is missing from the resources");
    const QShader shader = QShader::fromSerialized(file.readAll());
    if (!shader.isValid()) throw GpuError("shader " + path.toStdString() + " is not a valid .qsb");

    // The pipeline is built against placeholder buffers; each dispatch binds its own, layout-compatible.
    std::vector<QRhiBuffer*> placeholders;
    m_placeholders.emplace_back(rhi.newBuffer(QRhiBuffer::Dynamic, QRhiBuffer::UniformBuffer, 256));
    for (size_t i = 0; i < m_storage.size(); ++i)
        m_placeholders.emplace_back(rhi.newBuffer(QRhiBuffer::Static, QRhiBuffer::StorageBuffer, 16));
    for (auto& buffer : m_placeholders)
        if (!buffer->create()) throw GpuError("cannot create a buffer for " + name.toStdString());
    for (size_t i = 1; i < m_placeholders.size(); ++i)
        placeholders.push_back(m_placeholders[i].get());
    m_layout.reset(newBindings(m_placeholders[0].get(), placeholders));

    m_pipeline.reset(rhi.newComputePipeline());
    m_pipeline->setShaderStage({QRhiShaderStage::Compute, shader});
    m_pipeline->setShaderResourceBindings(m_layout.get());
    if (qEnvironmentVariable("ATTNSCOPE_GPU_FAULT") == QLatin1String("pipeline") || !m_pipeline->create())
        throw GpuError("the compute pipeline " + name.toStdString() + " did not build");
}

ComputeKernel::~ComputeKernel() = default;

QRhiShaderResourceBindings* ComputeKernel::newBindings(QRhiBuffer* params,
                                                       const std::vector<QRhiBuffer*>& storage) const
{
    if (storage.size() != m_storage.size())
        throw GpuError("kernel " + m_name.toStdString() + " given the wrong number of buffers");
    std::vector<QRhiShaderResourceBinding> bindings;
    bindings.push_back(
        QRhiShaderResourceBinding::uniformBuffer(0, QRhiShaderResourceBinding::ComputeStage, params));
    for (size_t i = 0; i < storage.size(); ++i)
        bindings.push_back(storageBinding(int(i + 1), m_storage[i], storage[i]));
    QRhiShaderResourceBindings* srb = m_rhi.newShaderResourceBindings();
    srb->setBindings(bindings.begin(), bindings.end());
    if (!srb->create()) {
        delete srb;
        throw GpuError("cannot create the resource bindings of " + m_name.toStdString());
    }
    return srb;
}

} // namespace attnscope
