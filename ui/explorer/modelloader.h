#pragma once

#include "explorer/jobtracker.h"

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <atomic>
#include <functional>
#include <memory>

namespace attnscope {

class ExplorerBackend;
class TransformerEngine;

// Opens a model off the GUI thread: maps and checks its weights and reads its tokenizer (stage Opening),
// then reads the mapped weights into memory (stage ReadingWeights, in bytes) so the first forward pass
// does not stall on the disk. Cancellable at every stage; a newer load outdates an older one, whose result
// is dropped (JobTracker).
class ModelLoader : public QObject
{
    Q_OBJECT
public:
    enum class Stage { Opening, ReadingWeights };
    Q_ENUM(Stage)

    explicit ModelLoader(QObject* parent = nullptr);
    ~ModelLoader() override; // cancels and waits for the worker

    quint64 load(const QString& folder, int threads, std::shared_ptr<const ExplorerBackend> backend);
    void cancel();
    bool isBusy() const { return m_running > 0; }
    bool waitForIdle(int msecs); // tests and shutdown
    // For tests: called on the loader's thread when a load begins (its Opening progress already sent),
    // before the model is opened. A hook that blocks holds the load there, so a test can see the progress and
    // cancel it at a known point whatever the machine's speed.
    void setLoadStartHook(std::function<void()> hook) { m_loadStartHook = std::move(hook); }

Q_SIGNALS:
    // done/total: bytes in ReadingWeights; 0/0 while Opening (no measure of progress).
    void progress(quint64 job, attnscope::ModelLoader::Stage stage, qint64 done, qint64 total);
    void loaded(quint64 job, const QString& folder, std::shared_ptr<attnscope::TransformerEngine> engine);
    void failed(quint64 job, const QString& folder, const QString& message);
    void cancelled(quint64 job, const QString& folder);

private:
    JobTracker m_tracker;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    QThreadPool m_pool;
    int m_running = 0;
    std::function<void()> m_loadStartHook;
};

} // namespace attnscope
