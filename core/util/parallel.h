#pragma once

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>

namespace attnscope {

// Number of worker threads the compute code uses when a caller passes 0.
inline int defaultThreadCount()
{
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : int(hw);
}

namespace detail {

// One parallelFor call as the thread pool sees it: tasks are claimed from `next`; up to `helperSlots`
// pool threads join the calling thread. The caller owns it (on its stack) and waits, after its own
// share, until no helper is inside (parallel.cpp).
struct ParallelJob
{
    void (*runTask)(void* body, int task) = nullptr;
    void* body = nullptr;
    int taskCount = 0;
    std::atomic<int> next{0};
    int helperSlots = 0;   // pool threads that may still join (guarded by the pool's mutex)
    int helpersInside = 0; // pool threads working on it now (guarded by the pool's mutex)
    std::exception_ptr failure;
    std::mutex failureMutex;

    // Claims and runs tasks until none is left; the first exception is kept and stops the rest.
    void work()
    {
        for (;;) {
            const int task = next.fetch_add(1, std::memory_order_relaxed);
            if (task >= taskCount) return;
            try {
                runTask(body, task);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(failureMutex);
                if (!failure) failure = std::current_exception();
                next.store(taskCount);
            }
        }
    }
};

// Offers the job to `helpers` threads of the process-wide pool (started once, kept for the process's
// life), works on it on the calling thread too, and returns when every task has finished.
void runOnThreadPool(ParallelJob& job, int helpers);

} // namespace detail

// Runs body(task) for task in [0, taskCount) on up to `threads` threads (0 = all cores): the calling
// thread and up to threads − 1 threads of a persistent pool (no thread is started per call; a product of
// ops::linear calls this hundreds of times per forward pass). Tasks are handed out one at a time from a
// shared counter, so uneven tasks (causal attention blocks near the diagonal are cheap, far ones
// expensive) still balance. The caller can finish every task alone, so nested calls and calls from many
// threads at once cannot deadlock. The first exception thrown by a task is rethrown on the calling thread
// after all workers stop.
template <typename Body> void parallelFor(int taskCount, int threads, Body&& body)
{
    if (taskCount <= 0) return;
    if (threads <= 0) threads = defaultThreadCount();
    threads = std::min(threads, taskCount);
    if (threads == 1) {
        for (int task = 0; task < taskCount; ++task)
            body(task);
        return;
    }
    using BodyType = std::remove_reference_t<Body>;
    detail::ParallelJob job;
    job.runTask = [](void* b, int task) { (*static_cast<BodyType*>(b))(task); };
    job.body = const_cast<void*>(static_cast<const void*>(&body));
    job.taskCount = taskCount;
    detail::runOnThreadPool(job, threads - 1);
    if (job.failure) std::rethrow_exception(job.failure);
}

} // namespace attnscope
