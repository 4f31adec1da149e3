#pragma once

// Bringing a memory-mapped file into memory before it is used: the kernel reads ahead in large requests
// (madvise MADV_WILLNEED) and one read per page makes every page resident, instead of a forward pass
// stalling on one page fault at a time.

#include <QtGlobal>
#include <atomic>
#include <functional>

namespace attnscope {

// On every core, 64 MiB per call; progress(bytesDone), on the calling thread, after each round of chunks and
// at the end; throws OperationCancelled when *cancel turns true.
void prefetchMapping(const unsigned char* begin, qint64 bytes,
                     const std::function<void(qint64)>& progress = {},
                     const std::atomic<bool>* cancel = nullptr);

} // namespace attnscope
