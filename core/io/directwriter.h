#pragma once

// A large file written past the page cache (Linux O_DIRECT), for dumps of hundreds of MB.
//
// Why: on the VM AttnScope is measured on, copying a 150 MB npy into the page cache took 0.07–1.4 CPU-s
// of kernel time from one run to the next (fresh page-cache pages are slow to touch there). Written with
// O_DIRECT the same bytes take ~0.03 CPU-s and ~0.13 s of waiting for the device, on a thread that
// computes nothing (docs/benchmarks.md, perf15e).
//
// O_DIRECT wants the memory, the length and the file offset aligned to the device's block: the bytes are
// staged in one aligned buffer (reused, so its pages stay mapped) and go out a full buffer at a time, from
// offset 0; the tail that is not a whole block is written through the page cache at finish(). Whole blocks
// given from block-aligned memory when the file is at a block boundary go out from that memory, uncopied.
// Where the file system refuses O_DIRECT (ramfs, tmpfs before Linux 6.6, some FUSE and network file
// systems) every write goes through the page cache.

#include <QtGlobal>
#include <memory>

namespace attnscope {

class DirectWriter
{
public:
    // fd: a file opened for writing, empty so far; written from offset 0 with pwrite (its offset is unused).
    explicit DirectWriter(int fd);
    ~DirectWriter();
    DirectWriter(const DirectWriter&) = delete;
    DirectWriter& operator=(const DirectWriter&) = delete;

    // false with errno's text in error() once a write failed; later calls then do nothing.
    bool write(const char* data, qint64 size);
    // Writes what is staged; the file then holds every byte given to write().
    bool finish();
    // Whether any part went out past the page cache (false where the file system refused O_DIRECT).
    bool wroteDirect() const { return m_wroteDirect; }
    const char* error() const { return m_error; }
    // Bytes sent from the caller's memory rather than through the stage.
    qint64 writtenInPlace() const { return m_writtenInPlace; }

private:
    bool flushStage(qint64 bytes, bool direct);                // the first `bytes` of the stage, at m_offset
    bool writeAt(const char* from, qint64 bytes, bool direct); // `bytes` from `from`, at m_offset
    bool fail(int errorNumber);

    int m_fd;
    bool m_direct = false;      // O_DIRECT is set on m_fd
    bool m_wroteDirect = false; // some block went out with it
    char* m_stage = nullptr;    // aligned to kBlock, kStageBytes long
    qint64 m_staged = 0;        // bytes in the stage
    qint64 m_offset = 0;        // file offset of the stage's first byte
    qint64 m_writtenInPlace = 0;
    const char* m_error = nullptr;
};

} // namespace attnscope
