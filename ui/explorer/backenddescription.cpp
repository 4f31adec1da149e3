#include "explorer/backenddescription.h"

#include "backend/attentionbackend.h"
#include "backend/cpubackend.h"
#include "kernels/cpukernelselection.h"
#include "util/parallel.h"

#include <QCoreApplication>

namespace attnscope {

namespace {

// CpuBackend::deviceName in the window's language.
QString cpuDeviceText()
{
    return QCoreApplication::translate("attnscope", "%1 (%n thread(s), %2 kernels)", nullptr,
                                       defaultThreadCount())
        .arg(CpuBackend::processorName(), kernels::cpuKernelChoice().variant);
}

} // namespace

QString cpuBackendDescription()
{
    return QStringLiteral("CPU · ") + cpuDeviceText();
}

QString backendDescription(const AttentionBackend& backend)
{
    QString api;
    switch (backend.kind()) {
    case BackendKind::Vulkan:
        api = QStringLiteral("Vulkan");
        break;
    case BackendKind::OpenGL:
        api = QStringLiteral("OpenGL");
        break;
    case BackendKind::Cpu:
    case BackendKind::Auto:
        api = QStringLiteral("CPU");
        break;
    }
    return api + QStringLiteral(" · ") +
           (backend.kind() == BackendKind::Cpu ? cpuDeviceText() : backend.deviceName());
}

QString scanBackendNote(const AttentionBackend* chosen)
{
    if (!chosen || chosen->kind() == BackendKind::Cpu || chosen->kind() == BackendKind::Auto) return {};
    return QCoreApplication::translate("attnscope", "on the CPU: the head scan does not use %1")
        .arg(backendDescription(*chosen));
}

} // namespace attnscope
