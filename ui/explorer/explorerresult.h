#pragma once

#include "analysis/modellimits.h"
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
    // Measure Contribution on a run that kept its weights: how far the norm shares are from them, for the
    // note that the model cannot show Kobayashi's point (analysis/modellimits.h); absent otherwise.
    std::optional<MeasureComparison> measureComparison;
    double seconds = 0; // wall time of run + analysis
};

} // namespace attnscope
