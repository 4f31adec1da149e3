#include "explorer/backgroundjob.h"

#include <QMetaObject>
#include <QPointer>

namespace attnscope {

BackgroundJob::BackgroundJob(QObject* parent) : QObject(parent)
{
    m_pool.setMaxThreadCount(1);
}

BackgroundJob::~BackgroundJob()
{
    cancel();
    m_pool.waitForDone();
}

quint64 BackgroundJob::start(Work work)
{
    cancel();
    const quint64 job = m_tracker.startJob();
    auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancelFlag;
    m_running = true;
    QPointer<BackgroundJob> self(this);
    const Post post = [self, job, cancelFlag](std::function<void()> update) {
        if (!self) return;
        QMetaObject::invokeMethod(
            self.data(),
            [self, job, cancelFlag, update = std::move(update)] {
                if (self && self->m_tracker.isCurrent(job) && !*cancelFlag) update();
            },
            Qt::QueuedConnection);
    };
    m_pool.start([self, job, cancelFlag, post, work = std::move(work)] {
        work(*cancelFlag, post);
        if (!self) return;
        QMetaObject::invokeMethod(
            self.data(),
            [self, job, cancelFlag] {
                if (!self || !self->m_tracker.isCurrent(job)) return;
                self->m_running = false;
                Q_EMIT self->finished(job, cancelFlag->load());
            },
            Qt::QueuedConnection);
    });
    return job;
}

void BackgroundJob::cancel()
{
    if (m_cancel) m_cancel->store(true);
}

bool BackgroundJob::waitForIdle(int msecs)
{
    return m_pool.waitForDone(msecs);
}

} // namespace attnscope
