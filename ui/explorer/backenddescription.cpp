#include "explorer/backenddescription.h"

#include "backend/attentionbackend.h"
#include "backend/cpubackend.h"
#include "kernels/cpukernelselection.h"
#include "util/parallel.h"

#include <QCoreApplication>

namespace attnscope {

namespace {

// CpuBackend::deviceName in the window's language. Without a translation installed (a window built by a
// test, no LanguageManager) Qt would print the source's "thread(s)": the CLI's English words then.
QString cpuDeviceText()
{
    const char* source = QT_TRANSLATE_N_NOOP("attnscope", "%1 (%n thread(s), %2 kernels)");
    const int threads = defaultThreadCount();
    const QString translated = QCoreApplication::translate("attnscope", source, nullptr, threads);
    if (translated == QString::fromLatin1(source).replace(QLatin1String("%n"), QString::number(threads)))
        return CpuBackend().deviceName();
    return translated.arg(CpuBackend::processorName(), kernels::cpuKernelChoice().variant);
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
