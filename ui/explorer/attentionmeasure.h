#pragma once

// The explorer's "Measure" switch: every view (heatmap, grid, comparison, arcs, statistics, exports) reads
// AttentionRun::maps, so a measure is a run whose maps hold it. The contribution measure is core's
// ContributionMaps (analysis/contributions.h, what `attnscope attention --measure norm` writes) over the
// run's own weights and value norms: each query row scaled to sum 1 for display (contributions are not
// probabilities), the absolute ‖α_ij f(x_j)‖ kept beside it for the read-outs.

#include "explorer/attentionengine.h"

#include <QString>
#include <atomic>
#include <vector>

namespace attnscope {

// "attention weight α" / "contribution ‖αf(x)‖": how titles, legends and exports name the measure.
QString measureName(AttentionMeasure measure);
// The colour scale's caption: what the 0..1 axis means under this measure.
QString measureScaleCaption(AttentionMeasure measure);

// Why the contribution measure cannot be shown for this run (no value vectors: the demos), or "".
QString contributionUnavailableReason(const AttentionRun& run);

// The run as `measure` shows it: Weight gives the weights back; Contribution swaps maps for the row-scaled
// contributions and fills contributionNorms. Throws OperationCancelled (cancel) and std::invalid_argument
// when the contribution measure is unavailable (contributionUnavailableReason).
AttentionRun measuredRun(const AttentionRun& run, AttentionMeasure measure,
                         const std::atomic<bool>* cancel = nullptr);

// Measure Contribution: per query row of one head, Σ_j ‖α_ij f(x_j)‖ (what the row's shares are shares of);
// empty otherwise. Read band by band, never n×n at once.
std::vector<float> contributionRowTotals(const AttentionRun& run, int layer, int head);

} // namespace attnscope
