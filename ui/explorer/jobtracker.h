#pragma once

#include <QtGlobal>

namespace attnscope {

// Numbers background jobs so a result can tell whether it is still wanted (after KDAB/hotspot's
// jobtracker.h): every start makes all earlier jobs outdated, and their results are dropped.
// GUI thread only.
class JobTracker
{
public:
    quint64 startJob() { return ++m_current; }
    bool isCurrent(quint64 job) const { return job == m_current; }
    quint64 current() const { return m_current; }

private:
    quint64 m_current = 0;
};

} // namespace attnscope
