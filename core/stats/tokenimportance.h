#pragma once

// Gu et al. 2025 ("When Attention Sink Emerges in Language Models", ICLR 2025), section 3: the importance
// score of key position k in one head, alpha_k = 1/(n - k) * sum_{i >= k} P[i, k] (0-based: the mean over
// the queries at or after k), and the sink rate: the share of heads with alpha_k > epsilon (they take
// epsilon = 0.3).

#include <vector>

namespace attnscope {

constexpr double kSinkImportanceThreshold = 0.3;

// alpha_k for k < min(queries, keys) of a row-major queries × keys matrix P of one head.
std::vector<double> keyImportance(const float* probabilities, int queries, int keys);

} // namespace attnscope
