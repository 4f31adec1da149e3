#pragma once

// A file written beside its target and put in place only once every byte of it is on the disk: the
// mechanics under OutputFile (io/outputfile.h), which owns the policy and the messages.
//
// Why not QSaveFile: it buffers writes under 16 KiB in memory and, at commit(), ignores the failure of
// the flush that writes them (and of the sync), then renames the file in place: on a full disk a small
// output became a 0-byte file with exit code 0, a census.json a truncated one. Its error text was
// "Unknown error" where the system said ENOSPC. Here every write, the sync and the close are checked,
// with errno kept, before the file is linked or renamed into place.
//
// The bytes go to an unnamed file (Linux O_TMPFILE) in the target's folder where the file system has it:
// a crash or kill -9 leaves nothing behind. Elsewhere to a hidden ".<name>.<random>.part" beside the
// target, removed on failure. Then:
//   - no overwriting: the file is linked under the target's name, which fails when a file took that name
//     meanwhile (EEXIST), so nothing is ever replaced;
//   - overwriting: linked under a temporary name and renamed over the target, in one step, keeping the
//     old file's permissions.

#include <QByteArray>
#include <QString>

namespace attnscope {

class StagedFile
{
public:
    // target: the final path, symbolic links already resolved.
    StagedFile(const QString& target, bool overwrite);
    ~StagedFile(); // uncommitted: the staged bytes are dropped, no file is left
    StagedFile(const StagedFile&) = delete;
    StagedFile& operator=(const StagedFile&) = delete;

    bool open();                               // false with errorNumber() set
    int handle() const { return m_fd; }        // for DirectWriter and sync_file_range; -1 when closed
    bool write(const char* data, qint64 size); // every byte or false (errno kept)
    // Syncs, closes and puts the file in place; false with errorNumber() set and the target untouched.
    bool commit();
    void discard(); // drops what was written
    int errorNumber() const { return m_errno; }

private:
    bool commitStaged();
    bool fail(int errorNumber);
    QByteArray sibling(const QByteArray& tag) const; // a free-looking hidden name beside the target
    bool linkInPlace();                              // link the unnamed file (under the target or a temp)

    QByteArray m_target;   // local 8-bit path
    QByteArray m_tempPath; // named staging file, or the link made for a rename; empty when none exists
    bool m_overwrite = false;
    bool m_unnamed = false; // O_TMPFILE
    int m_fd = -1;
    int m_errno = 0;
    int m_keepMode = -1; // the replaced file's permission bits, or -1
};

} // namespace attnscope
