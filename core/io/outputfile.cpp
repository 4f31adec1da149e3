#include "io/outputfile.h"

#include "io/directwriter.h"
#include "io/inputfile.h"
#include "io/stagedfile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <cerrno>
#include <cstdio>
#include <cstring>

#ifdef Q_OS_LINUX
#include <fcntl.h>
#endif

namespace attnscope {

namespace {

QString kindText(SpecialFileKind kind)
{
    switch (kind) {
    case SpecialFileKind::CharacterDevice:
        return QCoreApplication::translate("attnscope", "a character device");
    case SpecialFileKind::BlockDevice:
        return QCoreApplication::translate("attnscope", "a block device");
    case SpecialFileKind::Fifo:
        return QCoreApplication::translate("attnscope", "a FIFO (named pipe)");
    case SpecialFileKind::Socket:
        return QCoreApplication::translate("attnscope", "a socket");
    case SpecialFileKind::Other:
        break;
    }
    return QCoreApplication::translate("attnscope", "a device, FIFO or socket");
}

int g_standardOutputErrno = 0; // the first failed write to stdout; 0 while all succeeded

// "<file>: cannot write the file (<reason>)", the one message of every failed open, write and commit.
QString cannotWrite(const QString& path, const QString& reason)
{
    return QCoreApplication::translate("attnscope", "%1: cannot write the file (%2)")
        .arg(QDir::toNativeSeparators(path), reason);
}

} // namespace

QString outputSizeProblem(qint64 estimate, qint64 limit)
{
    if (estimate <= limit) return {};
    return QCoreApplication::translate("attnscope",
                                       "the output would be about %1, over the limit of %2 (raise it with "
                                       "--max-output-size)")
        .arg(byteSizeText(estimate), byteSizeText(limit));
}

OutputCheck checkOutputPath(const QString& path, bool overwrite)
{
    const QString file = QDir::toNativeSeparators(path);
    const QFileInfo info(path);
    if (path.isEmpty())
        return {OutputRefusal::NotRegular, QCoreApplication::translate("attnscope", "no output file given")};
    if (info.isSymLink() && !info.exists())
        return {OutputRefusal::NotRegular,
                QCoreApplication::translate("attnscope", "%1: a symbolic link to %2, which does not exist")
                    .arg(file, QDir::toNativeSeparators(info.symLinkTarget()))};
    if (info.exists()) {
        if (info.isDir())
            return {OutputRefusal::NotRegular,
                    QCoreApplication::translate("attnscope", "%1: is a folder, not a file").arg(file)};
        if (!info.isFile())
            return {OutputRefusal::NotRegular,
                    QCoreApplication::translate(
                        "attnscope", "%1: not a regular file but %2; AttnScope writes only regular files")
                        .arg(file, kindText(specialFileKind(path)))};
        if (!overwrite)
            return {OutputRefusal::Exists,
                    QCoreApplication::translate("attnscope", "%1: the file exists and was not overwritten")
                        .arg(file)};
    }
    if (!QFileInfo(info.absolutePath()).isDir())
        return {OutputRefusal::NoFolder,
                QCoreApplication::translate("attnscope", "%1: the folder %2 does not exist")
                    .arg(file, QDir::toNativeSeparators(info.absolutePath()))};
    return {};
}

OutputFile::OutputFile(const QString& path, bool overwrite) : m_path(path), m_overwrite(overwrite) {}

OutputFile::~OutputFile() = default; // an uncommitted StagedFile leaves no file

void OutputFile::preferDirectWrites()
{
#ifdef Q_OS_LINUX
    if (m_file && !m_direct && m_written == 0 && m_file->handle() >= 0)
        m_direct = std::make_unique<DirectWriter>(m_file->handle());
#endif
}

bool OutputFile::wroteDirect() const
{
    return m_direct && m_direct->wroteDirect();
}

qint64 OutputFile::writtenInPlace() const
{
    return m_direct ? m_direct->writtenInPlace() : 0;
}

bool OutputFile::failWith(int errorNumber)
{
    m_error = cannotWrite(m_path, QString::fromLocal8Bit(std::strerror(errorNumber)));
    m_direct.reset();
    m_file.reset(); // drops the staged bytes: the target is untouched
    return false;
}

bool OutputFile::open()
{
    if (m_path.isEmpty()) return true; // standard output
    const OutputCheck check = checkOutputPath(m_path, m_overwrite);
    if (check.refusal != OutputRefusal::None) {
        m_refusal = check.refusal;
        m_error = check.error;
        return false;
    }
    // A link is followed (the policy checked its target is a regular file): the target is replaced, the
    // link stays a link.
    QFileInfo target(m_path);
    for (int depth = 0; depth < 40 && target.isSymLink(); ++depth)
        target.setFile(target.symLinkTarget());
    m_file = std::make_unique<StagedFile>(target.filePath(), m_overwrite);
    if (!m_file->open()) {
        const int errorNumber = m_file->errorNumber();
        if (errorNumber == EEXIST) m_refusal = OutputRefusal::Exists;
        return failWith(errorNumber);
    }
    return true;
}

bool OutputFile::flushBuffer()
{
    if (m_buffer.isEmpty()) return true;
    if (!m_file->write(m_buffer.constData(), m_buffer.size())) return failWith(m_file->errorNumber());
    m_buffer.clear();
    return true;
}

bool OutputFile::write(const char* data, qint64 size)
{
    if (!m_error.isEmpty()) return false;
    if (m_path.isEmpty()) {
        if (writeStandardOutput(data, size)) return true;
        m_error = standardOutputError();
        return false;
    }
    if (!m_file) {
        m_error = cannotWrite(m_path, QCoreApplication::translate("attnscope", "not open"));
        return false;
    }
    if (m_direct) {
        if (m_direct->write(data, size)) {
            m_written += size;
            return true;
        }
        m_error = cannotWrite(m_path, QString::fromLocal8Bit(m_direct->error()));
        m_direct.reset();
        m_file.reset();
        return false;
    }
    // Writers hand over a row or a cell at a time: gathered here, they go out 64 KiB at a time.
    constexpr qint64 kBufferBytes = qint64(64) << 10;
    m_written += size;
    if (m_buffer.size() + size <= kBufferBytes) {
        m_buffer.append(data, size);
        return startWriteback();
    }
    if (!flushBuffer()) return false;
    if (size < kBufferBytes) {
        m_buffer.append(data, size);
    } else if (!m_file->write(data, size)) {
        return failWith(m_file->errorNumber());
    }
    return startWriteback();
}

bool OutputFile::startWriteback()
{
#ifdef Q_OS_LINUX
    // commit() syncs the file to disk before it puts it in place. For a dump of hundreds of MB that sync
    // waited for all of it at the end (84 ms for BERT-base's 150 MB at 512 tokens, with nothing else to
    // do); started every 32 MiB, the disk writes while the rest is computed. Only a start: nothing waits.
    constexpr qint64 kWritebackStep = qint64(32) << 20;
    if (m_written - m_writtenBack < kWritebackStep) return true;
    if (!flushBuffer()) return false; // the buffered tail could not be written: the same as a failed write
    const int fd = m_file->handle();
    if (fd >= 0) sync_file_range(fd, m_writtenBack, m_written - m_writtenBack, SYNC_FILE_RANGE_WRITE);
    m_writtenBack = m_written;
#endif
    return true;
}

bool OutputFile::commit()
{
    if (!m_error.isEmpty()) return false;
    if (m_path.isEmpty()) {
        m_error = standardOutputError();
        return m_error.isEmpty();
    }
    if (!m_file) {
        m_error = cannotWrite(m_path, QCoreApplication::translate("attnscope", "not open"));
        return false;
    }
    if (m_direct && !m_direct->finish()) {
        m_error = cannotWrite(m_path, QString::fromLocal8Bit(m_direct->error()));
        m_direct.reset();
        m_file.reset();
        return false;
    }
    // Every byte written, the sync and the close checked before the file takes the target's place.
    if (!flushBuffer()) return false;
    if (!m_file->commit()) {
        const int errorNumber = m_file->errorNumber();
        if (errorNumber == EEXIST && !m_overwrite) { // a file took the name while this one was written
            m_refusal = OutputRefusal::Exists;
            m_error = QCoreApplication::translate("attnscope", "%1: the file exists and was not overwritten")
                          .arg(QDir::toNativeSeparators(m_path));
            m_file.reset();
            return false;
        }
        return failWith(errorNumber);
    }
    m_file.reset();
    return true;
}

bool writeOutputFile(const QString& path, const QByteArray& bytes, bool overwrite, QString* error,
                     OutputRefusal* refusal)
{
    if (path.isEmpty()) { // here not standard output: an empty name is a missing one
        *error = QCoreApplication::translate("attnscope", "no output file given");
        if (refusal) *refusal = OutputRefusal::NotRegular;
        return false;
    }
    OutputFile file(path, overwrite);
    const bool ok = file.open() && file.write(bytes) && file.commit();
    if (!ok) *error = file.error();
    if (refusal) *refusal = file.refusal();
    return ok;
}

bool writeStandardOutput(const char* data, qint64 size)
{
    if (g_standardOutputErrno != 0) return false;
    errno = 0;
    if (size > 0 && std::fwrite(data, 1, size_t(size), stdout) != size_t(size)) {
        g_standardOutputErrno = errno != 0 ? errno : EIO;
        return false;
    }
    if (std::fflush(stdout) != 0) {
        g_standardOutputErrno = errno != 0 ? errno : EIO;
        return false;
    }
    return true;
}

QString standardOutputError()
{
    if (g_standardOutputErrno == 0) {
        errno = 0;
        if (std::fflush(stdout) != 0 || std::ferror(stdout)) g_standardOutputErrno = errno != 0 ? errno : EIO;
    }
    if (g_standardOutputErrno == 0) return {};
    return QCoreApplication::translate("attnscope", "cannot write to standard output: %1")
        .arg(QString::fromLocal8Bit(std::strerror(g_standardOutputErrno)));
}

} // namespace attnscope
