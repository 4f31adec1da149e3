#include "backendoption.h"

namespace attnscope {

QStringList supportedBackends()
{
    return {QStringLiteral("auto"), QStringLiteral("cpu")};
}

QCommandLineOption backendOption()
{
    return QCommandLineOption(QStringLiteral("backend"),
                              QStringLiteral("Compute backend: %1 (default auto).")
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

} // namespace attnscope
