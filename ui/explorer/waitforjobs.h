#pragma once

namespace attnscope {

// For tests and shutdown (AnalysisRunner, ModelLoader): runs the GUI thread's events, where the jobs'
// results arrive and `running` is counted down, until `running` is 0 or msecs have passed (-1: no limit).
// True when it reached 0.
bool waitForRunningJobs(const int& running, int msecs);

} // namespace attnscope
