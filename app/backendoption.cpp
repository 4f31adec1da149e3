#include "backendoption.h"

#include "backend/attentionbackend.h"
#include "command.h"

namespace attnscope {

QStringList supportedBackends()
{
    return {QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("vulkan"),
            QStringLiteral("opengl")};
}

QCommandLineOption backendOption()
{
    return QCommandLineOption(
        QStringLiteral("backend"),
        QStringLiteral("Compute backend: %1 (default auto: a hardware GPU when there is one, "
                       "else the CPU).")
            .arg(supportedBackends().join(QStringLiteral(", "))),
        QStringLiteral("name"), QStringLiteral("auto"));
}

QString parseBackend(const QString& value, QString* error)
{
    const QString name = value.trimmed().toLower();
    if (supportedBackends().contains(name)) return name;
    *error = QStringLiteral("--backend %1 is not supported; choose one of %2")
                 .arg(value, supportedBackends().join(QStringLiteral(", ")));
    return QString();
}

std::unique_ptr<AttentionBackend> createCommandBackend(const QString& name, bool verbose)
{
    BackendKind kind = BackendKind::Auto;
    parseBackendKind(name, &kind);
    QString notice;
    std::unique_ptr<AttentionBackend> backend = createBackend(kind, &notice);
    if (!notice.isEmpty() && (verbose || kind != BackendKind::Auto)) printError(notice);
    backend->setNoticeHandler([](const QString& message) { printError(message); });
    if (verbose) printError(QStringLiteral("backend: %1 on %2").arg(backend->name(), backend->deviceName()));
    return backend;
}

} // namespace attnscope
