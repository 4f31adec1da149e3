#include "io/directwriter.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#ifdef Q_OS_LINUX
#include <fcntl.h>
#include <unistd.h>
#endif

namespace attnscope {

namespace {

constexpr qint64 kBlock = 4096;                 // O_DIRECT's alignment: the largest logical block in use
constexpr qint64 kStageBytes = qint64(8) << 20; // one device write; a multiple of kBlock

#ifdef Q_OS_LINUX
bool setDirect(int fd, bool on)
{
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return false;
    return fcntl(fd, F_SETFL, on ? (flags | O_DIRECT) : (flags & ~O_DIRECT)) == 0;
}
#endif

} // namespace

DirectWriter::DirectWriter(int fd) : m_fd(fd)
{
#ifdef Q_OS_LINUX
    m_stage = static_cast<char*>(std::aligned_alloc(size_t(kBlock), size_t(kStageBytes)));
    // ramfs and others refuse the flag here (test: tst_cli_attention::largeNpyWhereDirectWritesAreRefused);
    // those that accept it but refuse the write are found at the first one (flushStage).
    m_direct = m_stage && fd >= 0 && setDirect(fd, true);
#endif
}

DirectWriter::~DirectWriter()
{
    std::free(m_stage);
}

bool DirectWriter::fail(int errorNumber)
{
    m_error = std::strerror(errorNumber);
    return false;
}

bool DirectWriter::flushStage(qint64 bytes, bool direct)
{
    return writeAt(m_stage, bytes, direct);
}

bool DirectWriter::writeAt(const char* from, qint64 bytes, bool direct)
{
#ifdef Q_OS_LINUX
    if (m_direct != direct) {
        if (!setDirect(m_fd, direct)) return fail(errno);
        m_direct = direct;
    }
    qint64 done = 0;
    while (done < bytes) {
        const ssize_t n = pwrite(m_fd, from + done, size_t(bytes - done), off_t(m_offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EINVAL && m_direct && done == 0) {
            // The file system took the flag but not the write: the page cache from now on.
            if (!setDirect(m_fd, false)) return fail(errno);
            m_direct = false;
            continue;
        }
        if (n < 0) return fail(errno);
        if (n == 0) return fail(EIO);
        done += n;
        // A short direct write leaves an unaligned rest: it goes through the page cache.
        if (done < bytes && m_direct && done % kBlock != 0) {
            if (!setDirect(m_fd, false)) return fail(errno);
            m_direct = false;
        }
    }
    if (m_direct) m_wroteDirect = true;
    m_offset += bytes;
    return true;
#else
    Q_UNUSED(from);
    Q_UNUSED(bytes);
    Q_UNUSED(direct);
    return fail(ENOSYS);
#endif
}

bool DirectWriter::write(const char* data, qint64 size)
{
    if (m_error) return false;
    if (!m_stage) return fail(ENOMEM);
    // Block-aligned memory that lands on a block boundary of the file (the stage holds whole blocks only)
    // goes out from where it is: copying 150 MB through the stage cost ~5% of a BERT-base CLI run. An npy
    // header padded to 4 KiB and a page-aligned FloatBuffer give exactly this.
    if (m_direct && size >= kBlock && reinterpret_cast<quintptr>(data) % quintptr(kBlock) == 0 &&
        m_staged % kBlock == 0 && m_offset % kBlock == 0) {
        if (m_staged > 0) {
            if (!flushStage(m_staged, true)) return false;
            m_staged = 0;
        }
        const qint64 whole = size / kBlock * kBlock;
        if (!writeAt(data, whole, m_direct)) return false;
        m_writtenInPlace += whole;
        data += whole;
        size -= whole;
    }
    while (size > 0) {
        const qint64 part = std::min(size, kStageBytes - m_staged);
        std::memcpy(m_stage + m_staged, data, size_t(part));
        m_staged += part;
        data += part;
        size -= part;
        if (m_staged == kStageBytes) {
            if (!flushStage(kStageBytes, m_direct)) return false;
            m_staged = 0;
        }
    }
    return true;
}

bool DirectWriter::finish()
{
    if (m_error) return false;
    if (!m_stage) return m_staged == 0 || fail(ENOMEM);
    const qint64 whole = m_staged / kBlock * kBlock;
    if (whole > 0 && !flushStage(whole, m_direct)) return false;
    const qint64 tail = m_staged - whole;
    if (tail > 0) {
        std::memmove(m_stage, m_stage + whole, size_t(tail));
        if (!flushStage(tail, false)) return false;
    }
    m_staged = 0;
    return true;
}

} // namespace attnscope
