// parallelFor on its persistent thread pool (util/parallel.h): every task runs exactly once, at most
// `threads` threads take part, no thread is started per call once the pool has enough, exceptions reach
// the caller, and nested calls and calls from several threads at once finish (no deadlock).

#include "util/nonfinite.h"
#include "util/operationcancelled.h"
#include "util/parallel.h"
#include "util/prefetch.h"

#include <QtTest>
#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>
#include <set>
#include <stdexcept>
#include <sys/mman.h>
#include <thread>
#include <vector>

using namespace attnscope;

class TestParallel : public QObject
{
    Q_OBJECT

private slots:
    void everyTaskOnce()
    {
        for (const int threads : {0, 1, 2, 3, 8}) {
            for (const int tasks : {1, 2, 7, 1000}) {
                std::vector<std::atomic<int>> runs(static_cast<size_t>(tasks));
                parallelFor(tasks, threads, [&](int task) { runs[size_t(task)].fetch_add(1); });
                for (int task = 0; task < tasks; ++task)
                    QCOMPARE(runs[size_t(task)].load(), 1);
            }
        }
    }

    void atMostThreadsTakePart()
    {
        for (const int threads : {1, 2, 3, 5}) {
            std::mutex mutex;
            std::set<std::thread::id> seen;
            std::atomic<int> inside{0}, mostInside{0};
            parallelFor(64, threads, [&](int) {
                const int now = inside.fetch_add(1) + 1;
                int most = mostInside.load();
                while (now > most && !mostInside.compare_exchange_weak(most, now)) {
                }
                std::this_thread::sleep_for(std::chrono::microseconds(200));
                inside.fetch_sub(1);
                const std::lock_guard<std::mutex> lock(mutex);
                seen.insert(std::this_thread::get_id());
            });
            QVERIFY(int(seen.size()) <= threads);
            QVERIFY(mostInside.load() <= threads);
            if (threads == 1) QVERIFY(seen.count(std::this_thread::get_id()) == 1);
        }
    }

    // The pool keeps its threads: over many calls, few threads run a task for the first time in their life
    // (a thread_local flag is fresh in every new thread, even where the system reuses a finished thread's
    // id; a thread per call would give about one first time per call).
    void threadsAreReused()
    {
        static thread_local bool ranBefore = false;
        std::atomic<int> firstTimes{0};
        for (int call = 0; call < 200; ++call)
            parallelFor(4, 3, [&](int) {
                std::this_thread::sleep_for(std::chrono::microseconds(50));
                if (!ranBefore) {
                    ranBefore = true;
                    firstTimes.fetch_add(1);
                }
            });
        // This thread and at most the pool's threads (other tests may have started them already).
        QVERIFY2(firstTimes.load() <= 8, qPrintable(QString::number(firstTimes.load())));
    }

    void exceptionReachesCaller()
    {
        std::atomic<int> ran{0};
        bool caught = false;
        try {
            parallelFor(100, 3, [&](int task) {
                ran.fetch_add(1);
                if (task == 10) throw std::runtime_error("task 10");
            });
        } catch (const std::runtime_error& error) {
            caught = QString::fromUtf8(error.what()) == QLatin1String("task 10");
        }
        QVERIFY(caught);
        QVERIFY(ran.load() >= 11 && ran.load() <= 100);
        // The pool still works afterwards.
        std::atomic<int> sum{0};
        parallelFor(10, 3, [&](int task) { sum.fetch_add(task); });
        QCOMPARE(sum.load(), 45);
    }

    void nestedCallsFinish()
    {
        std::atomic<int> sum{0};
        parallelFor(8, 4, [&](int outer) {
            parallelFor(8, 4, [&](int inner) {
                parallelFor(4, 2,
                            [&](int innermost) { sum.fetch_add(outer * 100 + inner * 10 + innermost); });
            });
        });
        int expected = 0;
        for (int o = 0; o < 8; ++o)
            for (int i = 0; i < 8; ++i)
                for (int k = 0; k < 4; ++k)
                    expected += o * 100 + i * 10 + k;
        QCOMPARE(sum.load(), expected);
    }

    void callsFromManyThreadsAtOnce()
    {
        std::atomic<long long> total{0};
        std::vector<std::thread> callers;
        for (int c = 0; c < 6; ++c)
            callers.emplace_back([&] {
                for (int round = 0; round < 50; ++round)
                    parallelFor(16, 2, [&](int task) { total.fetch_add(task + 1); });
            });
        for (auto& caller : callers)
            caller.join();
        QCOMPARE(total.load(), 6LL * 50 * (16 * 17 / 2));
    }

    // firstNonFinite scans arrays of 4·65,536 floats and more in parts on the pool (threads > 1): the index
    // is the first non-finite value's in the whole array, wherever the parts split it, and none is found in a
    // finite one.
    void firstNonFiniteOnThreadsFindsTheFirst()
    {
        const size_t count = 1'000'003; // 16 parts, the last one short
        std::vector<float> values(count);
        for (size_t i = 0; i < count; ++i)
            values[i] = float(i % 1000) - 500.0f;
        QVERIFY(!firstNonFinite(values.data(), count, 2));
        QVERIFY(!firstNonFinite(values.data(), count, 5));
        const float nan = std::numeric_limits<float>::quiet_NaN(),
                    inf = std::numeric_limits<float>::infinity();
        for (const size_t at : {size_t(0), size_t(65'535), size_t(65'536), size_t(700'001), count - 1}) {
            for (const float bad : {nan, inf, -inf}) {
                std::vector<float> copy = values;
                copy[at] = bad;
                if (at + 300'000 < count) copy[at + 300'000] = nan; // a later hit, in another part
                for (const int threads : {1, 2, 5}) {
                    const std::optional<size_t> found = firstNonFinite(copy.data(), count, threads);
                    QVERIFY(found);
                    QCOMPARE(*found, at);
                }
            }
        }
    }

    // prefetchMapping populates 64 MiB chunks on the pool's threads: progress still comes on the calling
    // thread, rises to the mapping's size, and a cancel stops it with OperationCancelled. (An anonymous
    // mapping: populating it maps the shared zero page, no memory is used.)
    void prefetchOnThreadsReportsOnTheCaller()
    {
        const qint64 bytes = (qint64(64) << 20) * 5 + 12345; // several rounds and a short last chunk
        void* mapping = mmap(nullptr, size_t(bytes), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        QVERIFY(mapping != MAP_FAILED);
        const auto* begin = static_cast<const unsigned char*>(mapping);
        const std::thread::id caller = std::this_thread::get_id();
        std::vector<qint64> reports;
        bool elsewhere = false;
        prefetchMapping(begin, bytes, [&](qint64 done) {
            elsewhere = elsewhere || std::this_thread::get_id() != caller;
            reports.push_back(done);
        });
        QVERIFY(!elsewhere);
        QVERIFY(!reports.empty());
        QCOMPARE(reports.back(), bytes);
        for (size_t i = 1; i < reports.size(); ++i)
            QVERIFY(reports[i] > reports[i - 1]);

        std::atomic<bool> cancel{false};
        int calls = 0;
        QVERIFY_THROWS_EXCEPTION(OperationCancelled, prefetchMapping(
                                                         begin, bytes,
                                                         [&](qint64) {
                                                             ++calls;
                                                             cancel = true;
                                                         },
                                                         &cancel));
        QCOMPARE(calls, 1);
        munmap(mapping, size_t(bytes));
    }
};

QTEST_GUILESS_MAIN(TestParallel)
#include "tst_parallel.moc"
