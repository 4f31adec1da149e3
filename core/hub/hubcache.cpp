#include "hub/hubcache.h"

#include "hub/hublisting.h"
#include "hub/hubnames.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <cerrno>
#include <cstring>

#ifdef Q_OS_UNIX
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#endif

namespace attnscope::hub {

HubRepoCache::HubRepoCache(const QString& cacheDir, const QString& repoId)
    : m_cacheDir(cacheDir), m_repoFolder(repoFolderName(repoId))
{
    m_repoDir = m_cacheDir + QLatin1Char('/') + m_repoFolder;
}

QString HubRepoCache::blobPath(const QString& blob) const
{
    return m_repoDir + QStringLiteral("/blobs/") + blob;
}

QString HubRepoCache::incompletePath(const QString& blob) const
{
    return blobPath(blob) + QStringLiteral(".incomplete");
}

QString HubRepoCache::lockPath(const QString& blob) const
{
    return m_cacheDir + QStringLiteral("/.locks/") + m_repoFolder + QLatin1Char('/') + blob +
           QStringLiteral(".lock");
}

QString HubRepoCache::snapshotDir(const QString& commit) const
{
    return m_repoDir + QStringLiteral("/snapshots/") + commit;
}

QString HubRepoCache::pointerPath(const QString& commit, const QString& path) const
{
    return snapshotDir(commit) + QLatin1Char('/') + path;
}

QString HubRepoCache::commitOf(const QString& revision) const
{
    if (isCommitHash(revision)) return revision;
    QFile file(m_repoDir + QStringLiteral("/refs/") + revision);
    if (!file.open(QIODevice::ReadOnly)) return {};
    const QString commit = QString::fromLatin1(file.read(64)).trimmed();
    return isCommitHash(commit) ? commit : QString();
}

bool HubRepoCache::writeRef(const QString& revision, const QString& commit, QString* error) const
{
    if (revision == commit) return true;
    const QString path = m_repoDir + QStringLiteral("/refs/") + revision;
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile file(path);
    // The official client writes the bare hash, no newline.
    if (!file.open(QIODevice::WriteOnly) || file.write(commit.toLatin1()) != commit.size() ||
        !file.commit()) {
        if (error) *error = QStringLiteral("%1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

bool HubRepoCache::linkIntoSnapshot(const QString& blob, const QString& commit, const QString& path,
                                    QString* error) const
{
    const QString pointer = pointerPath(commit, path);
    const QString folder = QFileInfo(pointer).absolutePath();
    if (!QDir().mkpath(folder)) {
        if (error) *error = QStringLiteral("%1: cannot create the folder").arg(folder);
        return false;
    }
    const QString target = QDir(folder).relativeFilePath(blobPath(blob));
    QFile::remove(pointer); // a dangling or stale link
    if (!QFile::link(target, pointer)) {
        if (error) *error = QStringLiteral("%1: cannot create the link to %2").arg(pointer, target);
        return false;
    }
    return true;
}

QString HubRepoCache::completeSnapshot(const QString& revision, const QStringList& includeGlobs,
                                       QString* why) const
{
    auto missing = [&](const QString& reason) {
        if (why) *why = reason;
        return QString();
    };
    const QString commit = commitOf(revision);
    if (commit.isEmpty()) return missing(QStringLiteral("no refs/%1 in %2").arg(revision, m_repoDir));
    const QString dir = snapshotDir(commit);
    if (!QFileInfo(dir).isDir()) return missing(QStringLiteral("no snapshot folder %1").arg(dir));
    QStringList files;
    QDirIterator it(dir, QDir::Files | QDir::System | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString file = it.next();
        if (!QFileInfo(file).exists()) return missing(QStringLiteral("%1: link without its blob").arg(file));
        files << QDir(dir).relativeFilePath(file);
    }
    if (!includeGlobs.isEmpty()) {
        for (const QString& glob : includeGlobs)
            if (std::none_of(files.begin(), files.end(),
                             [&](const QString& f) { return matchesGlob(f, glob); }))
                return missing(QStringLiteral("%1 holds no file matching %2").arg(dir, glob));
        return dir;
    }
    if (!files.contains(QStringLiteral("config.json")))
        return missing(QStringLiteral("%1 has no config.json").arg(dir));
    QFile index(dir + QStringLiteral("/model.safetensors.index.json"));
    if (index.open(QIODevice::ReadOnly)) {
        const QJsonObject map =
            QJsonDocument::fromJson(index.readAll()).object().value(QLatin1String("weight_map")).toObject();
        for (auto entry = map.begin(); entry != map.end(); ++entry) {
            const QString shard = entry.value().toString();
            if (!repoPathProblem(shard).isEmpty() || !files.contains(shard))
                return missing(QStringLiteral("%1 lacks the shard %2").arg(dir, shard));
        }
        return dir;
    }
    if (std::none_of(files.begin(), files.end(),
                     [](const QString& f) { return f.endsWith(QLatin1String(".safetensors")); }))
        return missing(QStringLiteral("%1 has no .safetensors file").arg(dir));
    return dir;
}

BlobLock::Result BlobLock::tryLock(QString* error)
{
    if (m_fd >= 0) return Result::Locked;
    QDir().mkpath(QFileInfo(m_path).absolutePath());
#ifdef Q_OS_UNIX
    const QByteArray native = QFile::encodeName(m_path);
    m_fd = ::open(native.constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(m_path, QString::fromLocal8Bit(std::strerror(errno)));
        return Result::Failed;
    }
    if (::flock(m_fd, LOCK_EX | LOCK_NB) == 0) return Result::Locked;
    const int code = errno;
    ::close(m_fd);
    m_fd = -1;
    if (code == EWOULDBLOCK) return Result::Busy;
    if (error) *error = QStringLiteral("%1: %2").arg(m_path, QString::fromLocal8Bit(std::strerror(code)));
    return Result::Failed;
#else
    if (error) *error = QStringLiteral("%1: file locks are only implemented on Unix").arg(m_path);
    return Result::Failed;
#endif
}

void BlobLock::unlock()
{
#ifdef Q_OS_UNIX
    if (m_fd >= 0) ::close(m_fd); // closing releases the flock
#endif
    m_fd = -1;
}

} // namespace attnscope::hub
