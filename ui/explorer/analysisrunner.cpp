#include "explorer/analysisrunner.h"

#include "attention/attentionmaps.h"
#include "explorer/attentionmeasure.h"
#include "explorer/waitforjobs.h"
#include "util/operationcancelled.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QMetaObject>
#include <QThread>
#include <algorithm>

namespace attnscope {

namespace {

// The statistics of a measured run (both a fresh run and a re-measured one end here); null when cancelled.
std::shared_ptr<ExplorerResult> analyzed(std::shared_ptr<ExplorerResult> result,
                                         const AnalysisOptions& options, const std::atomic<bool>& cancel,
                                         const QElapsedTimer& timer)
{
    AnalysisOptions analysisOptions = options;
    analysisOptions.cancel = &cancel;
    std::optional<AttentionAnalysis> analysis =
        analyzeAttention(*result->run.maps, result->run.roles, analysisOptions);
    if (!analysis) return nullptr;
    result->analysis = std::move(*analysis);
    const AttentionRun& run = result->run;
    result->measureComparison.reset();
    if (run.measure == AttentionMeasure::Contribution && run.weights && run.weights != run.maps) {
        std::vector<int> special = run.roles.clsPositions;
        special.insert(special.end(), run.roles.sepPositions.begin(), run.roles.sepPositions.end());
        result->measureComparison = compareMeasures(*run.weights, *run.maps, special);
    }
    result->seconds = timer.nsecsElapsed() * 1e-9;
    return result;
}

} // namespace

int explorerWorkerThreads()
{
    return std::max(1, QThread::idealThreadCount() - 1);
}

AnalysisRunner::AnalysisRunner(QObject* parent) : QObject(parent)
{
    // Two threads: a cancelled job still winding down never delays the newest one.
    m_pool.setMaxThreadCount(2);
}

AnalysisRunner::~AnalysisRunner()
{
    cancel();
    m_pool.waitForDone();
}

void AnalysisRunner::cancel()
{
    if (m_cancel) m_cancel->store(true);
}

quint64 AnalysisRunner::start(std::shared_ptr<const AttentionEngine> engine, const QString& textA,
                              const std::optional<QString>& textB, const AnalysisOptions& options,
                              const TokenWindow& window, AttentionMeasure measure)
{
    // The job's number is known once startWork returns; progress before that is not shown.
    auto jobNumber = std::make_shared<std::atomic<quint64>>(0);
    auto layerProgress = [this, jobNumber](int done, int total) {
        QMetaObject::invokeMethod(
            this,
            [this, jobNumber, done, total] {
                const quint64 job = jobNumber->load();
                if (m_tracker.isCurrent(job) && !m_currentDelivered) Q_EMIT progress(job, done, total);
            },
            Qt::QueuedConnection);
    };
    const quint64 job = startWork([engine, textA, textB, options, window, measure, layerProgress](
                                      const std::atomic<bool>& cancel) -> std::shared_ptr<ExplorerResult> {
        QElapsedTimer timer;
        timer.start();
        auto result = std::make_shared<ExplorerResult>();
        result->textA = textA;
        result->textB = textB;
        result->modelName = engine->displayName();
        result->run = engine->run(textA, textB, &cancel, window, layerProgress);
        if (!result->run.maps || cancel.load()) return nullptr;
        // A measure the run cannot show (the demos' contributions) falls back to the weights; the window
        // says why beside the switch.
        if (measure == AttentionMeasure::Contribution && contributionUnavailableReason(result->run).isEmpty())
            result->run = measuredRun(result->run, measure, &cancel);
        return analyzed(std::move(result), options, cancel, timer);
    });
    jobNumber->store(job);
    return job;
}

quint64 AnalysisRunner::remeasure(std::shared_ptr<const ExplorerResult> base, AttentionMeasure measure,
                                  const AnalysisOptions& options)
{
    return startWork(
        [base, measure, options](const std::atomic<bool>& cancel) -> std::shared_ptr<ExplorerResult> {
            QElapsedTimer timer;
            timer.start();
            auto result = std::make_shared<ExplorerResult>(*base);
            result->run = measuredRun(base->run, measure, &cancel);
            return analyzed(std::move(result), options, cancel, timer);
        });
}

quint64 AnalysisRunner::startWork(Work work)
{
    cancel();
    const quint64 job = m_tracker.startJob();
    auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancelFlag;
    ++m_running;
    m_currentDelivered = false;
    Q_EMIT started(job);
    m_pool.start([this, job, cancelFlag, work = std::move(work)] {
        std::shared_ptr<ExplorerResult> result;
        Failure failure;
        try {
            result = work(*cancelFlag);
        } catch (const OperationCancelled&) {
            result = nullptr; // cancelled: nothing to show
        } catch (const InputTooLongError& e) {
            failure = Failure{QString::fromStdString(e.what()), e.tokens(), e.limit()};
        } catch (const std::exception& e) {
            failure.message = QString::fromLocal8Bit(e.what());
        }
        if (result) result->job = job;
        // Back to the GUI thread; the runner outlives its pool's jobs (the destructor waits for them).
        QMetaObject::invokeMethod(
            this,
            [this, job, result, failure, cancelFlag] { deliver(job, result, failure, cancelFlag->load()); },
            Qt::QueuedConnection);
    });
    return job;
}

void AnalysisRunner::deliver(quint64 job, std::shared_ptr<ExplorerResult> result, const Failure& failure,
                             bool cancelled)
{
    --m_running;
    if (!m_tracker.isCurrent(job)) {
        ++m_dropped;
        return;
    }
    m_currentDelivered = true;
    if (cancelled) return; // nothing to show, as when the work itself stopped
    if (failure.limit > 0) Q_EMIT inputTooLong(job, failure.message, failure.tokens, failure.limit);
    if (!failure.message.isEmpty())
        Q_EMIT failed(job, failure.message);
    else if (result)
        Q_EMIT resultReady(result);
    // else: cancelled, nothing to show
}

bool AnalysisRunner::waitForIdle(int msecs)
{
    return waitForRunningJobs(m_running, msecs);
}

} // namespace attnscope
