#include "io/stagedfile.h"

#include <QFile>
#include <QRandomGenerator>
#include <QThread>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace attnscope {

namespace {

constexpr mode_t kNewFileMode = 0666; // less the umask, as any new file

bool retry(long result)
{
    return result < 0 && errno == EINTR;
}

// A test-only kill point (tests/app/tst_cli_hostile): ATTNSCOPE_TEST_HOLD_COMMIT=N holds the process at its
// N-th commit, before the file gets its name ("N:after": once it has it), says so on stderr and waits to be
// killed. So a test kills a writer at a known point instead of racing the machine's speed.
void holdAtCommit(bool committed, const QByteArray& target)
{
    static const QByteArray hook = qgetenv("ATTNSCOPE_TEST_HOLD_COMMIT");
    if (hook.isEmpty()) return;
    // The count is per process; writers on several threads take their numbers in the order they commit.
    static std::atomic<int> commits{0};
    thread_local int mine = 0;
    if (!committed) mine = ++commits;
    if (hook.endsWith(":after") != committed || mine != hook.split(':').front().toInt()) return;
    const int n = mine;
    std::fprintf(stderr, "holding at commit %d (%s) of %s until killed\n", n, committed ? "after" : "before",
                 target.constData());
    std::fflush(stderr);
    for (;;)
        QThread::msleep(50);
}

} // namespace

StagedFile::StagedFile(const QString& target, bool overwrite)
    : m_target(QFile::encodeName(target)), m_overwrite(overwrite)
{}

StagedFile::~StagedFile()
{
    discard();
}

bool StagedFile::fail(int errorNumber)
{
    m_errno = errorNumber != 0 ? errorNumber : EIO;
    discard();
    return false;
}

void StagedFile::discard()
{
    if (m_fd >= 0) ::close(m_fd); // nothing to report: the bytes are dropped
    m_fd = -1;
    if (!m_tempPath.isEmpty()) ::unlink(m_tempPath.constData());
    m_tempPath.clear();
}

QByteArray StagedFile::sibling(const QByteArray& tag) const
{
    const int slash = m_target.lastIndexOf('/');
    const QByteArray folder = slash >= 0 ? m_target.left(slash + 1) : QByteArray();
    const QByteArray name = m_target.mid(slash + 1);
    return folder + '.' + name + '.' + QByteArray::number(QRandomGenerator::global()->generate64(), 36) + tag;
}

bool StagedFile::open()
{
    struct stat existing;
    if (::stat(m_target.constData(), &existing) == 0) {
        // Replacing a file the user may not write would let a rename do what open() may not.
        if (::access(m_target.constData(), W_OK) != 0) return fail(errno);
        m_keepMode = int(existing.st_mode & 07777);
    }
#ifdef O_TMPFILE
    // Linking an unnamed file needs /proc (linkat through /proc/self/fd): without it, a named file.
    if (::access("/proc/self/fd", X_OK) == 0) {
        const int slash = m_target.lastIndexOf('/');
        const QByteArray folder = slash > 0 ? m_target.left(slash) : slash == 0 ? QByteArray("/") : ".";
        do
            m_fd = ::open(folder.constData(), O_TMPFILE | O_WRONLY | O_CLOEXEC, kNewFileMode);
        while (retry(m_fd));
        if (m_fd >= 0) {
            m_unnamed = true;
        } else if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT) {
            return fail(errno); // EACCES, EROFS, ENOSPC, ...: a named file would fail the same way
        }
    }
#endif
    for (int attempt = 0; m_fd < 0 && attempt < 100; ++attempt) {
        const QByteArray name = sibling(".part");
        do
            m_fd = ::open(name.constData(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, kNewFileMode);
        while (retry(m_fd));
        if (m_fd >= 0) {
            m_tempPath = name;
        } else if (errno != EEXIST) {
            return fail(errno);
        }
    }
    if (m_fd < 0) return fail(EEXIST);
    if (m_keepMode >= 0 && m_overwrite && ::fchmod(m_fd, mode_t(m_keepMode)) != 0) return fail(errno);
    return true;
}

bool StagedFile::write(const char* data, qint64 size)
{
    if (m_fd < 0) return fail(m_errno != 0 ? m_errno : EBADF);
    while (size > 0) {
        const ssize_t n = ::write(m_fd, data, size_t(size));
        if (retry(n)) continue;
        if (n < 0) return fail(errno);
        if (n == 0) return fail(EIO);
        data += n;
        size -= n;
    }
    return true;
}

bool StagedFile::linkInPlace()
{
#ifdef O_TMPFILE
    const QByteArray fdPath = "/proc/self/fd/" + QByteArray::number(m_fd);
    if (!m_overwrite)
        return ::linkat(AT_FDCWD, fdPath.constData(), AT_FDCWD, m_target.constData(), AT_SYMLINK_FOLLOW) == 0;
    for (int attempt = 0; attempt < 100; ++attempt) {
        const QByteArray name = sibling(".new");
        if (::linkat(AT_FDCWD, fdPath.constData(), AT_FDCWD, name.constData(), AT_SYMLINK_FOLLOW) == 0) {
            m_tempPath = name;
            return true;
        }
        if (errno != EEXIST) return false;
    }
    errno = EEXIST;
#else
    errno = ENOSYS;
#endif
    return false;
}

bool StagedFile::commit()
{
    if (m_fd < 0) return fail(m_errno != 0 ? m_errno : EBADF);
    holdAtCommit(false, m_target);
    const bool committed = commitStaged();
    if (committed) holdAtCommit(true, m_target);
    return committed;
}

bool StagedFile::commitStaged()
{
    // The data on the disk before the name points at it: a crash after the rename leaves the new file whole.
    // (EINVAL: a file system without sync, such as some FUSE ones; the write errors were seen already.)
    // fdatasync: the data and the size, what reading the file back needs (as QSaveFile did).
    if (::fdatasync(m_fd) != 0 && errno != EINVAL) return fail(errno);
    if (m_unnamed && !linkInPlace()) return fail(errno);
    const int fd = m_fd;
    m_fd = -1;
    // close() can report a write the file system deferred (NFS, quotas): the file is not committed then.
    if (::close(fd) != 0 && errno != EINTR) return fail(errno);
    if (m_unnamed && !m_overwrite) return true; // linked under the target's own name
    if (!m_overwrite) {
        // A named staging file and no overwriting: link it (EEXIST when the name was taken meanwhile),
        // then drop the staging name.
        if (::link(m_tempPath.constData(), m_target.constData()) != 0) {
            // A file system without hard links (FAT, some FUSE): a rename, if the name is still free.
            if (errno != EPERM && errno != EOPNOTSUPP && errno != ENOSYS) return fail(errno);
            struct stat taken;
            if (::lstat(m_target.constData(), &taken) == 0) return fail(EEXIST);
            if (::rename(m_tempPath.constData(), m_target.constData()) != 0) return fail(errno);
            m_tempPath.clear();
            return true;
        }
        ::unlink(m_tempPath.constData());
        m_tempPath.clear();
        return true;
    }
    if (::rename(m_tempPath.constData(), m_target.constData()) != 0) return fail(errno);
    m_tempPath.clear();
    return true;
}

} // namespace attnscope
