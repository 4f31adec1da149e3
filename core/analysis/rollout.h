#pragma once

// Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers"): what each token
// finally draws on, through every layer. Each layer's head-averaged attention with the residual path,
// Â_l = 0.5·mean_h A_l + 0.5·I, rows renormalised to sum 1; the rollout of layers 0..l is
// R_l = Â_l · R_{l−1}, R_0 = Â_0. Row i of R_last: how much of token i's last representation comes
// from each input token.
//
// "Raw" rollout feeds the attention weights α; "value-norm-weighted" rollout feeds the contribution shares
// (ContributionMaps, ContributionScale::Share), whose rows also sum to 1.

#include "attention/attentionmaps.h"

#include <atomic>
#include <vector>

namespace attnscope {

// R after each layer, [layers][n][n] row-major: R[l] = Â_l ⋯ Â_0. Needs square maps (no KV-cache past):
// throws std::invalid_argument otherwise; OperationCancelled when cancel turns true (between layers).
std::vector<std::vector<double>> attentionRollout(const AttentionMaps& maps,
                                                  const std::atomic<bool>* cancel = nullptr);

// Â_l of one layer, [n][n] row-major: 0.5·mean_h A + 0.5·I, rows renormalised.
std::vector<double> rolloutLayerMatrix(const AttentionMaps& maps, int layer);

} // namespace attnscope
