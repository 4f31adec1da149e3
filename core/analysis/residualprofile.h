#pragma once

// The residual stream's size per layer and token, for "why this token?" beside the sink statistics: in real
// LLMs a few activations of the sink token grow to ~10⁴× the median (Sun et al. 2024, "Massive Activations in
// Large Language Models").

#include "model/attentioncapture.h"

#include <vector>

namespace attnscope {

struct ResidualProfile
{
    int boundaries = 0, tokens = 0; // boundary b = the input of layer b; the last = the last layer's output
    std::vector<float> norms;       // ‖x_b,t‖₂, [boundaries][tokens]
    std::vector<float> maxAbs;      // max_c |x_b,t,c|, [boundaries][tokens]
    // Per boundary the median of |x_b,t,c| over every token and channel; empty when the capture did not keep
    // the residual vectors (RunOptions::keepResiduals).
    std::vector<float> medianAbs;

    float norm(int boundary, int token) const
    {
        return norms[size_t(boundary) * size_t(tokens) + size_t(token)];
    }
    float max(int boundary, int token) const
    {
        return maxAbs[size_t(boundary) * size_t(tokens) + size_t(token)];
    }
};

ResidualProfile residualProfile(const AttentionCapture& capture);

} // namespace attnscope
