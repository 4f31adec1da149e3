#include "util/parallel.h"

#include <condition_variable>
#include <deque>
#include <vector>

namespace attnscope::detail {

namespace {

// The process-wide pool behind parallelFor. Threads are started when a call first wants more helpers
// than exist (at most kMaxThreads) and then kept, asleep on `wake` while no job waits. Never destroyed:
// threads blocked in a wait at exit are simply ended with the process.
class ThreadPool
{
public:
    static ThreadPool& instance()
    {
        static ThreadPool* const pool = new ThreadPool;
        return *pool;
    }

    void run(ParallelJob& job, int helpers)
    {
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            helpers = std::min(helpers, kMaxThreads);
            while (int(m_threads.size()) < helpers)
                m_threads.emplace_back([this] { serve(); });
            job.helperSlots = helpers;
            m_queue.push_back(&job);
        }
        if (helpers == 1)
            m_wake.notify_one();
        else
            m_wake.notify_all();
        job.work();
        std::unique_lock<std::mutex> lock(m_mutex);
        // No pool thread joins from now on; wait for those inside to leave.
        if (job.helperSlots > 0) m_queue.erase(std::find(m_queue.begin(), m_queue.end(), &job));
        job.helperSlots = 0;
        m_left.wait(lock, [&] { return job.helpersInside == 0; });
    }

private:
    static constexpr int kMaxThreads = 256;

    void serve()
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [&] { return !m_queue.empty(); });
            ParallelJob* job = m_queue.front();
            if (--job->helperSlots == 0) m_queue.pop_front();
            ++job->helpersInside;
            lock.unlock();
            job->work();
            lock.lock();
            if (--job->helpersInside == 0) m_left.notify_all();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;   // a job was queued
    std::condition_variable m_left;   // a pool thread left a job
    std::deque<ParallelJob*> m_queue; // jobs that still take helpers, oldest first
    std::vector<std::thread> m_threads;
};

} // namespace

void runOnThreadPool(ParallelJob& job, int helpers)
{
    ThreadPool::instance().run(job, helpers);
}

} // namespace attnscope::detail
