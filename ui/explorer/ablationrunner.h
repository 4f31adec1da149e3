#pragma once

// Head ablation from the explorer (issue 14): one set of heads, or every head one at a time (a scan), run
// by core's AblationStudy on a worker thread, cancellable at any moment (the study polls the flag between
// layers), progress after each batch of heads of a scan. A newer job cancels and outdates the previous one.

#include "analysis/headablation.h"
#include "explorer/backgroundjob.h"

#include <QObject>
#include <QString>
#include <memory>
#include <vector>

namespace attnscope {

class TransformerEngine;

// What one ablation changed, with the unablated top-k it is compared with (both per scored position).
struct AblationOutcome
{
    AblationEffect effect;
    std::vector<Prediction> originalTop;
};

class AblationRunner : public QObject
{
    Q_OBJECT
public:
    explicit AblationRunner(QObject* parent = nullptr);

    // The model's input as it ran (AttentionRun::ids, typeIds); the engine is kept alive by the job.
    void ablate(std::shared_ptr<const TransformerEngine> engine, std::vector<int> ids,
                std::vector<int> typeIds, std::vector<HeadAblation> heads);
    void scan(std::shared_ptr<const TransformerEngine> engine, std::vector<int> ids, std::vector<int> typeIds,
              AblationMode mode);
    void cancel();
    bool isRunning() const { return m_job->isRunning(); }
    bool isScanning() const { return m_job->isRunning() && m_scanning; }

Q_SIGNALS:
    void ablated(const attnscope::AblationOutcome& outcome);
    void scanProgress(int done, int total);
    void scanFinished(const attnscope::AblationScan& scan);
    void failed(const QString& message);
    // After every job, also a cancelled one (then nothing else was emitted for it).
    void finished(bool cancelled);

private:
    BackgroundJob* m_job = nullptr;
    bool m_scanning = false;
};

} // namespace attnscope
