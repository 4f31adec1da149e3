#pragma once

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace attnscope {

// Number of worker threads the compute code uses when a caller passes 0.
inline int defaultThreadCount()
{
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : int(hw);
}

// Runs body(task) for task in [0, taskCount) on up to `threads` threads (0 = all cores).
// Tasks are handed out one at a time from a shared counter, so uneven tasks (causal attention
// blocks near the diagonal are cheap, far ones expensive) still balance. The first exception
// thrown by a task is rethrown on the calling thread after all workers stop.
template <typename Body>
void parallelFor(int taskCount, int threads, Body&& body)
{
    if (taskCount <= 0)
        return;
    if (threads <= 0)
        threads = defaultThreadCount();
    threads = std::min(threads, taskCount);
    if (threads == 1) {
        for (int task = 0; task < taskCount; ++task)
            body(task);
        return;
    }
    std::atomic<int> next{0};
    std::exception_ptr failure;
    std::mutex failureMutex;
    auto worker = [&] {
        for (;;) {
            const int task = next.fetch_add(1, std::memory_order_relaxed);
            if (task >= taskCount)
                return;
            try {
                body(task);
            } catch (...) {
                std::lock_guard<std::mutex> lock(failureMutex);
                if (!failure)
                    failure = std::current_exception();
                next.store(taskCount);
            }
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(size_t(threads - 1));
    for (int t = 1; t < threads; ++t)
        pool.emplace_back(worker);
    worker();
    for (auto& thread : pool)
        thread.join();
    if (failure)
        std::rethrow_exception(failure);
}

} // namespace attnscope
