#include "explorer/backenddescription.h"

#include "backend/attentionbackend.h"
#include "backend/cpubackend.h"

namespace attnscope {

QString cpuBackendDescription()
{
    static const QString description = QStringLiteral("CPU · ") + CpuBackend().deviceName();
    return description;
}

QString backendDescription(const AttentionBackend& backend)
{
    QString api;
    switch (backend.kind()) {
    case BackendKind::Vulkan: api = QStringLiteral("Vulkan"); break;
    case BackendKind::OpenGL: api = QStringLiteral("OpenGL"); break;
    case BackendKind::Cpu:
    case BackendKind::Auto: api = QStringLiteral("CPU"); break;
    }
    return api + QStringLiteral(" · ") + backend.deviceName();
}

} // namespace attnscope
