#pragma once

// Bringing a memory-mapped file into memory before it is used: the kernel reads ahead in large requests
// (madvise MADV_WILLNEED) and one read per page makes every page resident, instead of a forward pass
// stalling on one page fault at a time.

#include <QtGlobal>
#include <atomic>
#include <functional>

namespace attnscope {

// Asks the kernel to keep [begin, begin + bytes) of a mapped model file in 2 MiB pages (madvise
// MADV_HUGEPAGE; a hint, without effect where transparent huge pages are off). Why: how a file is first read
// decides the size of its page-cache pages for every later process. Read through a plain mapping (page
// faults, as the load-time checks of biases and norms do), Linux 6.x caches it in 4 KiB pages; each run
// then maps and unmaps ~110,000 of them for BERT-base (populate ~25 ms, unmap ~12 ms, and a TLB miss
// every 4 KiB in the GEMMs' weight packing). With the hint, the first read caches 2 MiB pages, and later
// runs map each with one entry (docs/benchmarks.md, "Page-cache pages").
void adviseLargePages(const unsigned char* begin, qint64 bytes);

// On every core, 64 MiB per call; progress(bytesDone), on the calling thread, after each round of chunks and
// at the end; throws OperationCancelled when *cancel turns true.
void prefetchMapping(const unsigned char* begin, qint64 bytes,
                     const std::function<void(qint64)>& progress = {},
                     const std::atomic<bool>* cancel = nullptr);

} // namespace attnscope
