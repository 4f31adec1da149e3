#pragma once

// Does this model have attention sinks? Decided from the numbers a run produced, never from the model's
// name, so that the Streaming tab and the lesson can say "this model is too small to have sinks" only when
// their own figures show it (issue 34, point 5). Two kinds of evidence, each enough on its own:
//
//   StreamingLLM  window-only (0 sinks) against sinks + window (the most sinks run, at least one), over the
//                 predictions made once the cache is full: within kSameCurveTolerance (5%) of each other
//                 means evicting the first tokens costs nothing, so nothing sinks there (Xiao et al. 2024 see
//                 window-only perplexity explode: Llama-2-7B 3359.95 against 9.59 with 4 sinks, table 1).
//   head stats    the explorer's head labels (stats/headstats.h): no head's first-token mass reaches the
//                 threshold that "Find sink / no-op heads" labels a sink with (LabelThresholds::sink).

#include "generation/streamingevaluation.h"
#include "stats/headstats.h"

#include <vector>

namespace attnscope {

enum class SinkVerdict {
    Unknown, // the evidence is missing (no window-only run, no sinks run, the cache never filled)
    NoSinks, // the numbers show no sink
    Sinks    // the numbers show one
};

constexpr double kSameCurveTolerance = 0.05;

struct StreamingSinkEvidence
{
    SinkVerdict verdict = SinkVerdict::Unknown;
    double windowPerplexity = 0; // sinks = 0, once the cache is full
    double sinksPerplexity = 0;  // the most sinks run
    int sinks = 0;               // how many that was
    double ratio() const { return sinksPerplexity > 0 ? windowPerplexity / sinksPerplexity : 0; }
};

// From StreamingLLM runs (any order; full and recompute runs are ignored).
StreamingSinkEvidence streamingSinkVerdict(const std::vector<StreamEvaluation>& runs,
                                           double tolerance = kSameCurveTolerance);

struct HeadSinkEvidence
{
    SinkVerdict verdict = SinkVerdict::Unknown;
    double largestSinkMass = 0; // over every head
    int sinkHeads = 0;          // heads at or above the threshold
};

// From the explorer's head statistics; Unknown for an empty list.
HeadSinkEvidence headSinkVerdict(const std::vector<HeadStats>& stats, const LabelThresholds& thresholds = {});

} // namespace attnscope
