#pragma once

#include "explorer/attentionengine.h"
#include "stats/attentionanalysis.h"

#include <optional>

namespace attnscope {

// One finished explorer job: the run, its statistics and overviews, and what it cost.
struct ExplorerResult
{
    quint64 job = 0;
    QString textA;
    std::optional<QString> textB;
    QString modelName;
    AttentionRun run;
    AttentionAnalysis analysis;
    double seconds = 0; // wall time of run + analysis
};

} // namespace attnscope
