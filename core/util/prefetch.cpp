#include "util/prefetch.h"

#include "util/operationcancelled.h"
#include "util/parallel.h"

#include <algorithm>

#ifdef Q_OS_UNIX
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace attnscope {

namespace {

// Makes [begin, end) resident: on Linux 5.14+ the kernel maps the range in one call (MADV_POPULATE_READ)
// instead of one fault per page (or per 16 pages with fault-around); elsewhere, and on older kernels that
// answer EINVAL, one read per page.
void populate(const unsigned char* begin, const unsigned char* end, qint64 page)
{
#ifdef Q_OS_LINUX
    constexpr int kPopulateRead = 22; // MADV_POPULATE_READ, not in every libc's headers yet
    const quintptr start = reinterpret_cast<quintptr>(begin) & ~quintptr(page - 1);
    if (madvise(reinterpret_cast<void*>(start), size_t(reinterpret_cast<quintptr>(end) - start),
                kPopulateRead) == 0)
        return;
#endif
    volatile unsigned char sink = 0;
    unsigned char sum = 0;
    for (const unsigned char* p = begin; p < end; p += page)
        sum = static_cast<unsigned char>(sum + *p);
    sink = static_cast<unsigned char>(sink + sum);
    (void)sink;
}

} // namespace

void adviseLargePages(const unsigned char* begin, qint64 bytes)
{
#if defined(Q_OS_LINUX) && defined(MADV_HUGEPAGE)
    if (!begin || bytes <= 0) return;
    const auto address = reinterpret_cast<quintptr>(begin);
    const quintptr alignedStart = address & ~quintptr(sysconf(_SC_PAGESIZE) - 1);
    madvise(reinterpret_cast<void*>(alignedStart), size_t(bytes + qint64(address - alignedStart)),
            MADV_HUGEPAGE); // EINVAL without THP: the hint is dropped, nothing else changes
#else
    Q_UNUSED(begin);
    Q_UNUSED(bytes);
#endif
}

void prefetchMapping(const unsigned char* begin, qint64 bytes, const std::function<void(qint64)>& progress,
                     const std::atomic<bool>* cancel)
{
    if (!begin || bytes <= 0) return;
    constexpr qint64 kChunk = 64LL * 1024 * 1024;
    qint64 page = 4096;
#ifdef Q_OS_UNIX
    page = std::max<qint64>(page, sysconf(_SC_PAGESIZE));
    // madvise wants a page-aligned start; the mapping itself is page-aligned, tensor offsets need not be.
    const auto address = reinterpret_cast<quintptr>(begin);
    const quintptr alignedStart = address & ~quintptr(page - 1);
    madvise(reinterpret_cast<void*>(alignedStart), size_t(bytes + qint64(address - alignedStart)),
            MADV_WILLNEED);
#endif
    // Mapping a page-cache page is CPU work (page tables, reference counts: ~0.2 CPU-s for the 2.4 GB of a
    // Llama-3.2-1B shape) that ran on one thread before the pass: one chunk per core at a time now (each call
    // takes the mapping's lock for reading only). Progress and cancellation stay on the calling thread.
    const int threads = defaultThreadCount();
    const qint64 round = kChunk * threads;
    for (qint64 first = 0; first < bytes; first += round) {
        throwIfCancelled(cancel);
        const qint64 end = std::min(bytes, first + round);
        parallelFor(int((end - first + kChunk - 1) / kChunk), threads, [&](int i) {
            const qint64 chunk = first + qint64(i) * kChunk;
            populate(begin + chunk, begin + std::min(end, chunk + kChunk), page);
        });
        if (progress) progress(end);
    }
}

} // namespace attnscope
