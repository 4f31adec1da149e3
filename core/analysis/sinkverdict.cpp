#include "analysis/sinkverdict.h"

#include <algorithm>
#include <cmath>

namespace attnscope {

StreamingSinkEvidence streamingSinkVerdict(const std::vector<StreamEvaluation>& runs, double tolerance)
{
    StreamingSinkEvidence evidence;
    const StreamEvaluation* window = nullptr;
    const StreamEvaluation* sinks = nullptr;
    for (const StreamEvaluation& run : runs) {
        if (run.policy.kind != CachePolicyKind::SinksWindow || run.fullCacheFrom < 0) continue;
        if (run.policy.sinks == 0)
            window = &run;
        else if (!sinks || run.policy.sinks > sinks->policy.sinks)
            sinks = &run;
    }
    if (!window || !sinks) return evidence;
    evidence.windowPerplexity = window->perplexity(window->fullCacheFrom);
    evidence.sinksPerplexity = sinks->perplexity(sinks->fullCacheFrom);
    evidence.sinks = sinks->policy.sinks;
    if (!std::isfinite(evidence.windowPerplexity) || !std::isfinite(evidence.sinksPerplexity) ||
        evidence.sinksPerplexity <= 0)
        return evidence;
    evidence.verdict =
        std::abs(evidence.ratio() - 1.0) <= tolerance ? SinkVerdict::NoSinks : SinkVerdict::Sinks;
    return evidence;
}

HeadSinkEvidence headSinkVerdict(const std::vector<HeadStats>& stats, const LabelThresholds& thresholds)
{
    HeadSinkEvidence evidence;
    if (stats.empty()) return evidence;
    for (const HeadStats& head : stats) {
        evidence.largestSinkMass = std::max(evidence.largestSinkMass, head.sinkMass);
        if (head.sinkMass >= thresholds.sink) ++evidence.sinkHeads;
    }
    evidence.verdict = evidence.sinkHeads > 0 ? SinkVerdict::Sinks : SinkVerdict::NoSinks;
    return evidence;
}

} // namespace attnscope
