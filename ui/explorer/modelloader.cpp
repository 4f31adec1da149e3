#include "explorer/modelloader.h"

#include "explorer/modelproblemtext.h"
#include "explorer/transformerengine.h"
#include "explorer/waitforjobs.h"
#include "model/transformermodel.h"
#include "util/operationcancelled.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QMetaObject>
#include <QThread>

namespace attnscope {

ModelLoader::ModelLoader(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<std::shared_ptr<attnscope::TransformerEngine>>();
    qRegisterMetaType<attnscope::ModelLoader::Stage>();
    m_pool.setMaxThreadCount(1); // one disk, one load at a time; a cancelled one ends at its next check
}

ModelLoader::~ModelLoader()
{
    cancel();
    m_pool.waitForDone();
}

void ModelLoader::cancel()
{
    if (m_cancel) m_cancel->store(true);
}

quint64 ModelLoader::load(const QString& folder, int threads, std::shared_ptr<const ExplorerBackend> backend)
{
    cancel();
    const quint64 job = m_tracker.startJob();
    auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancelFlag;
    ++m_running;
    m_pool.start([this, job, folder, threads, backend, cancelFlag, startHook = m_loadStartHook] {
        auto report = [this, job](Stage stage, qint64 done, qint64 total) {
            QMetaObject::invokeMethod(
                this,
                [this, job, stage, done, total] {
                    if (m_tracker.isCurrent(job)) Q_EMIT progress(job, stage, done, total);
                },
                Qt::QueuedConnection);
        };
        std::shared_ptr<TransformerEngine> engine;
        QString message;
        bool wasCancelled = false;
        try {
            report(Stage::Opening, 0, 0);
            if (startHook) {
                startHook();
                throwIfCancelled(cancelFlag.get());
            }
            engine = TransformerEngine::open(folder, threads, backend);
            throwIfCancelled(cancelFlag.get());
            // At most ~20 progress signals a second, whatever the disk's speed.
            QElapsedTimer sinceReport;
            sinceReport.start();
            engine->model().prefetchWeights(
                [&](qint64 done, qint64 total) {
                    if (done == total || sinceReport.elapsed() >= 50) {
                        report(Stage::ReadingWeights, done, total);
                        sinceReport.restart();
                    }
                },
                cancelFlag.get());
        } catch (const OperationCancelled&) {
            wasCancelled = true;
        } catch (const ModelError& e) {
            message = modelProblemText(e.problem()); // in the window's language
        } catch (const std::exception& e) {
            message = QString::fromLocal8Bit(e.what());
        }
        if (cancelFlag->load()) wasCancelled = true;
        if (wasCancelled) engine.reset(); // unmapped here, off the GUI thread
        QMetaObject::invokeMethod(
            this,
            [this, job, folder, engine, message, wasCancelled] {
                --m_running;
                if (!m_tracker.isCurrent(job)) return;
                if (wasCancelled)
                    Q_EMIT cancelled(job, folder);
                else if (!message.isEmpty())
                    Q_EMIT failed(job, folder, message);
                else
                    Q_EMIT loaded(job, folder, engine);
            },
            Qt::QueuedConnection);
    });
    return job;
}

bool ModelLoader::waitForIdle(int msecs)
{
    return waitForRunningJobs(m_running, msecs);
}

} // namespace attnscope
