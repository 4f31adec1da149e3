#pragma once

#include <cstdint>
#include <vector>

namespace attnscope {

// Counts of values in equal bins over [low, high].
struct ScoreHistogram
{
    double low = 0;
    double high = 0;
    std::vector<int> counts;

    double binWidth() const { return counts.empty() ? 0.0 : (high - low) / double(counts.size()); }
    int maxCount() const;
};

// Why 1/√d_k: random q and k with unit-variance components give scores q·k of variance d_k. Unscaled,
// the scores grow with d_k and the softmax collapses onto one key; divided by √d_k they keep variance 1.
struct DkExperimentResult
{
    int dk = 0;
    bool scaled = true;
    int queries = 0;
    int keys = 0;
    double meanMaxWeight = 0;  // mean over queries of the largest softmax weight in the row
    double scoreStdDev = 0;    // standard deviation of the scores the softmax sees
    std::vector<double> scores; // queries × keys, row-major, as the softmax sees them (scaled or not)
    ScoreHistogram histogram;
};

// Draws `queries` query and `keys` key vectors of dimension dk with N(0, 1) components from a generator
// seeded with `seed` (same seed, same numbers). dk must be 1..4096, queries and keys at least 1 and bins 1..1000;
// otherwise std::invalid_argument.
DkExperimentResult runDkExperiment(int dk, bool scaled, std::uint64_t seed = 1, int queries = 200, int keys = 10,
                                   int bins = 24);

// A histogram of values over their own range (a single value gets a bin of width 1 around it).
ScoreHistogram makeHistogram(const std::vector<double>& values, int bins);

} // namespace attnscope
