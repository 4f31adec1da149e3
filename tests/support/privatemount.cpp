#include "support/privatemount.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <algorithm>
#include <cerrno>
#include <cstring>

#ifdef Q_OS_LINUX
#include <sched.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#endif

namespace attnscope::testing {

namespace {

QString systemError(const char* what)
{
    return QStringLiteral("%1: %2").arg(QLatin1String(what), QString::fromLocal8Bit(std::strerror(errno)));
}

bool g_inPrivateNamespace = false;

} // namespace

QString enterPrivateMountNamespace()
{
#ifdef Q_OS_LINUX
    if (g_inPrivateNamespace) return {};
    if (unshare(CLONE_NEWNS) != 0)
        return systemError("unshare(CLONE_NEWNS)") + QStringLiteral(" (mounting needs root)");
    // Without this the mounts made here would still propagate to the host's shared mounts (systemd makes
    // "/" shared).
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        return systemError("making / private in the new mount namespace");
    g_inPrivateNamespace = true;
    return {};
#else
    return QStringLiteral("mount namespaces are Linux only");
#endif
}

ScratchMount::ScratchMount(const QString& dir, const QString& type, const QString& options) : m_dir(dir)
{
#ifdef Q_OS_LINUX
    if (!g_inPrivateNamespace) {
        m_error = QStringLiteral("not in a private mount namespace: call enterPrivateMountNamespace() first");
        return;
    }
    if (!QDir().mkpath(dir)) {
        m_error = QStringLiteral("%1: cannot create the mount point").arg(dir);
        return;
    }
    const QByteArray point = QFile::encodeName(dir), kind = type.toLatin1(), data = options.toLatin1();
    if (mount(kind.constData(), point.constData(), kind.constData(), 0, data.constData()) != 0) {
        m_error = systemError("mount") + QStringLiteral(" (%1 on %2)").arg(type, dir);
        return;
    }
    m_mounted = true;
#else
    Q_UNUSED(type);
    Q_UNUSED(options);
    m_error = QStringLiteral("mounting is Linux only here");
#endif
}

ScratchMount::~ScratchMount()
{
#ifdef Q_OS_LINUX
    if (m_mounted) umount2(QFile::encodeName(m_dir).constData(), MNT_DETACH);
#endif
}

QString ScratchMount::filePath(const QString& name) const
{
    return QDir(m_dir).filePath(name);
}

QString ScratchMount::fill(qint64 leaveFree)
{
    const QString fillPath = filePath(QLatin1String(kFillName));
    QProcess dd;
    dd.start(QStringLiteral("dd"),
             {QStringLiteral("if=/dev/zero"), QStringLiteral("of=") + fillPath, QStringLiteral("bs=4096")});
    if (!dd.waitForStarted(10000)) return QStringLiteral("dd cannot be started");
    if (!dd.waitForFinished(60000)) return QStringLiteral("dd did not finish");
    const QByteArray ddError = dd.readAllStandardError();
    // dd ends with "No space left on device" and status 1: that is the point.
    if (!ddError.contains("No space left on device"))
        return QStringLiteral("dd did not fill the file system: %1").arg(QString::fromLocal8Bit(ddError));
    if (leaveFree > 0) {
        QFile file(fillPath);
        if (!file.resize(std::max<qint64>(0, file.size() - leaveFree)))
            return QStringLiteral("%1: cannot shrink (%2)").arg(fillPath, file.errorString());
    }
    return {};
}

qint64 ScratchMount::freeBytes() const
{
#ifdef Q_OS_LINUX
    struct statvfs s;
    if (statvfs(QFile::encodeName(m_dir).constData(), &s) != 0) return -1;
    return qint64(s.f_bavail) * qint64(s.f_frsize);
#else
    return -1;
#endif
}

} // namespace attnscope::testing
