#pragma once

// Can the model shown show what a view is for? Each verdict here is computed from the numbers that view
// shows (head statistics, the two measures' maps, the parameter count read from the weight headers), never
// from the model's name, so that a view says "this model is too small for this" only when its own figures
// show it (issue 36, point 1). The StreamingLLM verdict is analysis/sinkverdict.h's.

#include "attention/attentionmaps.h"
#include "stats/headstats.h"

#include <QtGlobal>
#include <optional>
#include <vector>

namespace attnscope {

// The head "Find sink / no-op heads" would show first: the one with the largest first-token (sink) or
// [SEP] (no-op) mass, whichever of the two is larger for it. The first start opens on it.
struct SinkOrSepHead
{
    int layer = 0;
    int head = 0;
    double mass = 0;       // max(sinkMass, sepMass) of that head
    bool onSep = false;    // the mass is the [SEP] mass (else the first token's)
    bool labelled = false; // it reaches its threshold (LabelThresholds::sink or ::noOp)
};

// Over every head; nullopt for an empty list. Ties go to the earlier head (layer, then head).
std::optional<SinkOrSepHead> strongestSinkOrSepHead(const std::vector<HeadStats>& stats,
                                                    const LabelThresholds& thresholds = {});

// No head reaches either threshold: the model has neither a sink nor a [SEP] (no-op) head to show.
// False for an empty list (nothing is known).
bool hasNoSinkOrSepHead(const std::vector<HeadStats>& stats, const LabelThresholds& thresholds = {});

// How far the norm-based measure moves the attention from the weights: the mean over every head and query
// row of the total variation distance ½ Σ_j |a_ij − b_ij| between the two maps' rows (each row a
// distribution summing to 1: the weights, and the contributions as shares). 0: identical; 1: disjoint.
// Throws std::invalid_argument when the maps' shapes differ; 0 for empty maps.
double meanRowShift(const AttentionMaps& a, const AttentionMaps& b);

// The share of the attention that goes to the special positions ([CLS], [SEP], BOS: `positions`), averaged
// over every head and query row. Positions outside the keys are ignored.
double specialTokenShare(const AttentionMaps& maps, const std::vector<int>& positions);

// Kobayashi et al.'s point is that a head's high weight on [SEP] or BOS carries a small contribution: under
// the norm measure the special tokens' share falls. The model cannot show it when the norm measure leaves
// the maps within a few percent of the weights (mean row shift at most 5%), or when the special tokens'
// share does not fall by more than 5% of itself (it stays, or rises).
constexpr double kSameMeasureTolerance = 0.05;
struct MeasureComparison
{
    double rowShift = 0;           // meanRowShift(weights, norm shares)
    double weightSpecialShare = 0; // specialTokenShare under the weights
    double normSpecialShare = 0;   // and under the norm measure (shares)
    bool normShowsNothingNew(double tolerance = kSameMeasureTolerance) const;
};
MeasureComparison compareMeasures(const AttentionMaps& weights, const AttentionMaps& normShares,
                                  const std::vector<int>& specialPositions);

// Below about 10 M parameters a model's own guesses (the next token, a [MASK]) are mostly frequent tokens
// ("the", ".", ","), whatever the sentence says. 0 (unknown) is not small.
constexpr qint64 kSmallModelParameters = 10'000'000;
bool tooSmallToPredict(qint64 parameters);

} // namespace attnscope
