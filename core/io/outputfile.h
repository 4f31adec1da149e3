#pragma once

// Every file AttnScope writes, and its standard output, go through here, so one policy holds for the
// commands, the exports and the window's saves:
//   - output goes only to a new regular file, or, when overwriting is allowed (--force, or the user
//     confirmed in a file dialog), over an existing regular file; a symbolic link is followed and its
//     target must be one. Devices, FIFOs, sockets, folders and links to them are refused: renaming a
//     finished file over /dev/full would replace the device node itself;
//   - a file is written whole or not at all: into a temporary file that replaces the target only once
//     every byte of it is written and synced (io/stagedfile.h), so an error, a full disk or a kill -9
//     leaves the old file byte for byte, or nothing, and never a partial file;
//   - every write, flush, sync and close is checked, and a failure is reported with the system's reason
//     (strerror of the real errno: "No space left on device"), standard output included (a command whose
//     output went nowhere must not exit 0).
// Messages are one line, "<file>: <problem>", translated (context "attnscope").

#include <QByteArray>
#include <QString>
#include <memory>

namespace attnscope {
class DirectWriter;
class StagedFile;
} // namespace attnscope

namespace attnscope {

// Dumps of attention weights grow as layers × heads × n²: at 8k tokens a full dump is tens of GB. Before
// writing one, its size is estimated and refused above this (commands raise it with --max-output-size).
constexpr qint64 kDefaultMaxOutputBytes = qint64(1) << 30;

// "" when a dump of about `estimate` bytes is within `limit`; else a sentence (no file name) that shows the
// estimate: "the output would be about 4.2 GiB, over the limit of 1.0 GiB (raise it with
// --max-output-size)".
QString outputSizeProblem(qint64 estimate, qint64 limit);

enum class OutputRefusal {
    None,
    Exists,     // an existing file and overwriting was not allowed: nothing was written
    NotRegular, // a device, FIFO, socket, folder, or a dangling link
    NoFolder,   // the folder it would go into does not exist
};

struct OutputCheck
{
    OutputRefusal refusal = OutputRefusal::None;
    QString error; // "<file>: <problem>", empty when refusal is None
};

// Whether the policy lets `path` be written, before anything is computed or written.
OutputCheck checkOutputPath(const QString& path, bool overwrite);

// A file written in pieces (large dumps), or standard output when path is empty. Nothing appears at
// `path` until commit() succeeds; destroying it uncommitted discards what was written.
class OutputFile
{
public:
    OutputFile(const QString& path, bool overwrite);
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    bool open(); // checks the policy, then opens; false with error() set
    // Called after open() and before the first write: the bytes go out past the page cache where the file
    // system allows it (io/directwriter.h), for dumps of hundreds of MB. No effect on standard output.
    void preferDirectWrites();
    bool wroteDirect() const;                  // whether any part did (tests, --verbose)
    qint64 writtenInPlace() const;             // bytes of it sent from the caller's memory, uncopied
    bool write(const char* data, qint64 size); // false once any write has failed
    bool write(const QByteArray& bytes) { return write(bytes.constData(), bytes.size()); }
    bool commit(); // false with error() set; the target is then untouched
    const QString& error() const { return m_error; }
    OutputRefusal refusal() const { return m_refusal; }

private:
    QString m_path;
    bool m_overwrite = false;
    std::unique_ptr<StagedFile> m_file;
    std::unique_ptr<DirectWriter> m_direct; // set by preferDirectWrites(): every write goes through it
    QByteArray m_buffer;                    // small writes, gathered into one system call
    QString m_error;
    OutputRefusal m_refusal = OutputRefusal::None;
    qint64 m_written = 0;     // bytes given to write() so far
    qint64 m_writtenBack = 0; // of which the disk write has been started (startWriteback)

    bool flushBuffer();             // false with m_error set
    bool startWriteback();          // false with m_error set when the buffered data cannot be written
    bool failWith(int errorNumber); // m_error from the system's reason; the staged file dropped
};

// The whole of `bytes` to `path` under the policy; false with *error ("<file>: <problem>") and, when
// given, *refusal set.
bool writeOutputFile(const QString& path, const QByteArray& bytes, bool overwrite, QString* error,
                     OutputRefusal* refusal = nullptr);

// Standard output, checked: false once a write has failed (later writes are dropped).
bool writeStandardOutput(const char* data, qint64 size);
inline bool writeStandardOutput(const QByteArray& bytes)
{
    return writeStandardOutput(bytes.constData(), bytes.size());
}
// Flushes standard output; "" when every write succeeded, else "cannot write to standard output: <reason>".
QString standardOutputError();

} // namespace attnscope
