#include "explorer/backenddescription.h"

#include "backend/attentionbackend.h"
#include "backend/cpubackend.h"

#include <QCoreApplication>

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

QString scanBackendNote(const AttentionBackend* chosen)
{
    if (!chosen || chosen->kind() == BackendKind::Cpu || chosen->kind() == BackendKind::Auto) return {};
    return QCoreApplication::translate("attnscope", "on the CPU: the head scan does not use %1")
        .arg(backendDescription(*chosen));
}

} // namespace attnscope
