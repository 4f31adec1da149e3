#include "util/prefetch.h"

#include "util/operationcancelled.h"

#include <algorithm>

#ifdef Q_OS_UNIX
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace attnscope {

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
    volatile unsigned char sink = 0;
    for (qint64 chunk = 0; chunk < bytes; chunk += kChunk) {
        throwIfCancelled(cancel);
        const qint64 end = std::min(bytes, chunk + kChunk);
        unsigned char sum = 0;
        for (qint64 offset = chunk; offset < end; offset += page)
            sum = static_cast<unsigned char>(sum + begin[offset]);
        sink = static_cast<unsigned char>(sink + sum);
        if (progress) progress(end);
    }
    (void)sink;
}

} // namespace attnscope
