#pragma once

// Test-only: a small file system of a test's own (a 2 MB tmpfs to fill up, a ramfs that refuses O_DIRECT),
// mounted in a mount namespace private to the test process. Nothing outside the process sees the mount,
// and it goes away with the process even when the test crashes; the processes the test starts afterwards
// (the attnscope binary) inherit the namespace and see it. Mounting needs root (CAP_SYS_ADMIN): where it is
// not allowed the caller skips, naming the reason these functions return.
//
//   if (const QString why = enterPrivateMountNamespace(); !why.isEmpty()) QSKIP(qPrintable(why));
//   ScratchMount disk(dir.filePath("disk"), "tmpfs", "size=2m");
//   QVERIFY2(disk.error().isEmpty(), ...);
//   QVERIFY2(disk.fill().isEmpty(), ...); // now full: the next write gets ENOSPC

#include <QString>

namespace attnscope::testing {

// Moves this process into a mount namespace of its own whose mounts propagate nowhere; "" when done (or
// already done), else why not ("unshare(CLONE_NEWNS): Operation not permitted (mounting needs root)").
QString enterPrivateMountNamespace();

class ScratchMount
{
public:
    // Mounts a file system of `type` ("tmpfs", "ramfs") with `options` ("size=2m") on `dir`, created if
    // needed. Call enterPrivateMountNamespace() first.
    ScratchMount(const QString& dir, const QString& type, const QString& options);
    ~ScratchMount(); // unmounts (lazily, should a file still be open)
    ScratchMount(const ScratchMount&) = delete;
    ScratchMount& operator=(const ScratchMount&) = delete;

    const QString& error() const { return m_error; } // "" once mounted
    const QString& path() const { return m_dir; }
    QString filePath(const QString& name) const;

    // Fills the file system with one file, "fill", written by dd until the file system refuses (ENOSPC),
    // then gives `leaveFree` bytes of it back (rounded to pages by tmpfs); "" or why not.
    QString fill(qint64 leaveFree = 0);
    qint64 freeBytes() const; // what statvfs says is left to an unprivileged writer
    static constexpr const char* kFillName = "fill";

private:
    QString m_dir;
    QString m_error;
    bool m_mounted = false;
};

} // namespace attnscope::testing
