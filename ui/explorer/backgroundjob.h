#pragma once

#include "explorer/jobtracker.h"

#include <QObject>
#include <QThreadPool>
#include <atomic>
#include <functional>
#include <memory>

namespace attnscope {

// One long job at a time on a worker thread (a generation, a streaming evaluation), cancellable, with
// updates handed to the GUI thread as it goes. A job's updates arrive in order and are dropped once a newer
// job started or the job was cancelled, so a view never shows an outdated run.
class BackgroundJob : public QObject
{
    Q_OBJECT
public:
    // Hands a function to the GUI thread (queued); it runs only while the job is still current.
    using Post = std::function<void(std::function<void()>)>;
    using Work = std::function<void(const std::atomic<bool>& cancel, const Post& post)>;

    explicit BackgroundJob(QObject* parent = nullptr);
    ~BackgroundJob() override; // cancels and waits

    // Cancels the running job, then starts work. finished() follows the job's last post.
    quint64 start(Work work);
    void cancel();
    bool isRunning() const { return m_running; }
    bool waitForIdle(int msecs); // tests and shutdown

Q_SIGNALS:
    void finished(quint64 job, bool cancelled);

private:
    JobTracker m_tracker;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    QThreadPool m_pool;
    bool m_running = false;
};

} // namespace attnscope
