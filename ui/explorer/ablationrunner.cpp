#include "explorer/ablationrunner.h"

#include "explorer/analysisrunner.h"
#include "explorer/transformerengine.h"
#include "model/transformermodel.h"
#include "util/operationcancelled.h"

namespace attnscope {

namespace {
AblationStudyOptions studyOptions(const std::atomic<bool>& cancel)
{
    AblationStudyOptions options;
    options.threads = explorerWorkerThreads();
    options.cancel = &cancel;
    options.topK = TransformerEngine::kPredictionCount;
    return options;
}
} // namespace

AblationRunner::AblationRunner(QObject* parent) : QObject(parent), m_job(new BackgroundJob(this))
{
    connect(m_job, &BackgroundJob::finished, this,
            [this](quint64, bool cancelled) { Q_EMIT finished(cancelled); });
}

void AblationRunner::cancel()
{
    m_job->cancel();
}

void AblationRunner::ablate(std::shared_ptr<const TransformerEngine> engine, std::vector<int> ids,
                            std::vector<int> typeIds, std::vector<HeadAblation> heads)
{
    m_scanning = false;
    m_job->start([this, engine, ids, typeIds, heads](const std::atomic<bool>& cancel,
                                                     const BackgroundJob::Post& post) {
        try {
            const AblationStudy study(engine->model(), ids, typeIds, studyOptions(cancel));
            AblationOutcome outcome{study.ablate(heads), study.originalTop()};
            post([this, outcome] { Q_EMIT ablated(outcome); });
        } catch (const OperationCancelled&) {
        } catch (const std::exception& e) {
            const QString message = QString::fromStdString(e.what());
            post([this, message] { Q_EMIT failed(message); });
        }
    });
}

void AblationRunner::scan(std::shared_ptr<const TransformerEngine> engine, std::vector<int> ids,
                          std::vector<int> typeIds, AblationMode mode)
{
    m_scanning = true;
    m_job->start(
        [this, engine, ids, typeIds, mode](const std::atomic<bool>& cancel, const BackgroundJob::Post& post) {
            try {
                const AblationStudy study(engine->model(), ids, typeIds, studyOptions(cancel));
                const AblationScan result = study.scan(mode, [this, &post](int done, int total) {
                    post([this, done, total] { Q_EMIT scanProgress(done, total); });
                });
                post([this, result] { Q_EMIT scanFinished(result); });
            } catch (const OperationCancelled&) {
            } catch (const std::exception& e) {
                const QString message = QString::fromStdString(e.what());
                post([this, message] { Q_EMIT failed(message); });
            }
        });
}

} // namespace attnscope
