#pragma once

// One baked compute shader and its pipeline. Binding 0 is the kernel's parameter block (a dynamic
// uniform buffer); bindings 1..N are storage buffers with the access listed in `storage`.
// Lives on the device thread, with the QRhi that made it.

#include "gpu/rhicompat.h"

#include <memory>
#include <vector>

namespace attnscope {

enum class StorageAccess { Load, Store, LoadStore };

class ComputeKernel
{
public:
    // Loads ":/attnscope/shaders/<name>.comp.qsb" and builds the pipeline; throws GpuError.
    ComputeKernel(QRhi& rhi, const QString& name, std::vector<StorageAccess> storage);
    ~ComputeKernel();

    QString name() const { return m_name; }
    QRhiComputePipeline* pipeline() const { return m_pipeline.get(); }
    // Bindings for one dispatch: params at 0, storage[i] at i + 1 (layout-compatible with the pipeline's).
    QRhiShaderResourceBindings* newBindings(QRhiBuffer* params,
                                            const std::vector<QRhiBuffer*>& storage) const;

private:
    QRhi& m_rhi;
    QString m_name;
    std::vector<StorageAccess> m_storage;
    std::vector<std::unique_ptr<QRhiBuffer>> m_placeholders;
    std::unique_ptr<QRhiShaderResourceBindings> m_layout;
    std::unique_ptr<QRhiComputePipeline> m_pipeline;
};

} // namespace attnscope
