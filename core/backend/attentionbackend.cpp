#include "backend/attentionbackend.h"

#include "backend/cpubackend.h"
#include "backend/rhibackend.h"
#include "gpu/rhidevice.h"

#include <QStringList>
#include <QtGlobal>

namespace attnscope {

QString backendKindName(BackendKind kind)
{
    switch (kind) {
    case BackendKind::Auto:
        return QStringLiteral("auto");
    case BackendKind::Cpu:
        return QStringLiteral("cpu");
    case BackendKind::Vulkan:
        return QStringLiteral("vulkan");
    case BackendKind::OpenGL:
        return QStringLiteral("opengl");
    }
    return QStringLiteral("cpu");
}

bool parseBackendKind(const QString& text, BackendKind* kind)
{
    for (BackendKind k : {BackendKind::Auto, BackendKind::Cpu, BackendKind::Vulkan, BackendKind::OpenGL})
        if (text.compare(backendKindName(k), Qt::CaseInsensitive) == 0) {
            *kind = k;
            return true;
        }
    return false;
}

AttentionBackend::~AttentionBackend() = default;

void AttentionBackend::notice(const QString& message) const
{
    if (m_noticeHandler)
        m_noticeHandler(message);
    else
        qWarning("attnscope: %s", qPrintable(message));
}

std::unique_ptr<AttentionBackend> createBackend(BackendKind kind, QString* notice)
{
    if (notice) notice->clear();
    if (kind == BackendKind::Cpu) return std::make_unique<CpuBackend>();

    QStringList failures;
    auto tryApi = [&](RhiApi api, const QString& name) -> std::unique_ptr<AttentionBackend> {
        QString error;
        std::unique_ptr<RhiBackend> backend = RhiBackend::create(api, &error, kind == BackendKind::Auto);
        if (!backend) failures << QStringLiteral("%1: %2").arg(name, error);
        return backend;
    };
    std::unique_ptr<AttentionBackend> backend;
    if (kind == BackendKind::Vulkan || kind == BackendKind::Auto)
        backend = tryApi(RhiApi::Vulkan, QStringLiteral("vulkan"));
    if (!backend && (kind == BackendKind::OpenGL || kind == BackendKind::Auto))
        backend = tryApi(RhiApi::OpenGL, QStringLiteral("opengl"));
    if (!backend) {
        if (notice)
            *notice = QStringLiteral("GPU backend unavailable (%1); using the CPU")
                          .arg(failures.join(QStringLiteral("; ")));
        return std::make_unique<CpuBackend>();
    }
    // Auto fell through from Vulkan to OpenGL: say so, the user may have expected Vulkan.
    if (notice && !failures.isEmpty())
        *notice = QStringLiteral("%1; using %2").arg(failures.join(QStringLiteral("; ")), backend->name());
    return backend;
}

} // namespace attnscope
