#include "explorer/waitforjobs.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QThread>

namespace attnscope {

bool waitForRunningJobs(const int& running, int msecs)
{
    QDeadlineTimer deadline(msecs);
    while (running > 0 && !deadline.hasExpired()) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(2);
    }
    return running == 0;
}

} // namespace attnscope
