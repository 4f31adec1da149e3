#pragma once

#include "explorer/explorerresult.h"
#include "explorer/jobtracker.h"

#include <QObject>
#include <QThreadPool>
#include <atomic>
#include <functional>
#include <memory>

namespace attnscope {

// Threads the explorer's background work uses: all cores but one, so the GUI thread always finds a
// core and the window stays responsive while a long input is computed.
int explorerWorkerThreads();

// Runs explorer jobs (model run + statistics) on worker threads. Starting a job cancels the previous
// one (its std::atomic<bool> is raised; the runtime and the statistics poll it) and outdates it: a result
// that arrives for an outdated job is dropped, never shown over a newer one.
class AnalysisRunner : public QObject
{
    Q_OBJECT
public:
    using Work = std::function<std::shared_ptr<ExplorerResult>(const std::atomic<bool>& cancel)>;

    explicit AnalysisRunner(QObject* parent = nullptr);
    ~AnalysisRunner() override;

    // The ordinary job: engine->run on the text, then analyzeAttention.
    quint64 start(std::shared_ptr<const AttentionEngine> engine, const QString& textA,
                  const std::optional<QString>& textB, const AnalysisOptions& options = {},
                  const TokenWindow& window = {}, AttentionMeasure measure = AttentionMeasure::Weight);
    // The same run under another measure (explorer/attentionmeasure.h): no new forward pass, only the
    // maps and the statistics and overviews of what they hold. The result keeps base's text and model.
    quint64 remeasure(std::shared_ptr<const ExplorerResult> base, AttentionMeasure measure,
                      const AnalysisOptions& options = {});
    // Any work, for tests (a slow job, a failing job). The result's job id is filled in.
    quint64 startWork(Work work);
    void cancel();

    bool isBusy() const { return m_running > 0 && !m_currentDelivered; }
    quint64 currentJob() const { return m_tracker.current(); }
    int droppedResults() const { return m_dropped; }
    bool waitForIdle(int msecs); // tests and shutdown

Q_SIGNALS:
    void started(quint64 job);
    // The current job's forward pass finished `done` of `total` layers.
    void progress(quint64 job, int done, int total);
    void resultReady(std::shared_ptr<const attnscope::ExplorerResult> result);
    void failed(quint64 job, const QString& message);
    // The input is longer than the engine takes: the explorer offers to run a window of it.
    void inputTooLong(quint64 job, const QString& message, int tokens, int limit);

private:
    struct Failure
    {
        QString message;
        int tokens = 0, limit = 0; // InputTooLongError
    };
    // `cancelled` is read here, on the GUI thread: a Cancel clicked after the work finished but before this
    // delivery still means nothing is shown.
    void deliver(quint64 job, std::shared_ptr<ExplorerResult> result, const Failure& failure, bool cancelled);

    JobTracker m_tracker;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    QThreadPool m_pool;
    int m_running = 0;
    int m_dropped = 0;
    bool m_currentDelivered = true;
};

} // namespace attnscope
