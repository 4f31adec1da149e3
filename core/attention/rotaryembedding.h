#pragma once

// A model's rotary position embedding: its base theta, how many components of a head it rotates
// (partial_rotary_factor, GPT-NeoX's rotary_pct) and its rope_scaling, as Hugging Face transformers defines
// them (modeling_rope_utils.py):
//
//   default   inv_freq_p = theta^(−2p/r)                                  p in [0, r/2), r = rotary dimension
//   linear    inv_freq_p / factor                                         (position interpolation)
//   dynamic   theta' = theta · (factor·s/max − (factor − 1))^(r/(r−2))    NTK-aware, once the pass is longer
//             than max_position_embeddings (s = the pass's largest position + 1)
//   llama3    wavelength 2π/inv_freq below original/high_freq_factor: kept; above original/low_freq_factor:
//             divided by factor; in between: blended by (original/wavelength − low) / (high − low)
//   yarn      per pair a ramp between the original and the interpolated (÷ factor) frequency over the pairs
//             whose wavelength makes between beta_slow and beta_fast turns in
//             original_max_position_embeddings; cos and sin are multiplied by the attention factor
//             (0.1·ln(factor) + 1 unless given)
//   longrope  inv_freq_p / ext_p with ext = long_factor when the pass is longer than
//             original_max_position_embeddings, else short_factor; attention factor
//             sqrt(1 + ln(factor)/ln(original)) (Phi-3)
//
// Pairs are rotate-half pairs (i, i + r/2) of the first r components (Llama, GPT-NeoX, Gemma, Qwen, Phi);
// components from r on pass through. Angles, cos and sin are float32, as transformers computes them even for
// a float64 model.

#include "attention/headtensor.h"

#include <optional>
#include <vector>

namespace attnscope {

struct RopeScaling
{
    enum class Type { Default, Linear, Dynamic, Llama3, Yarn, LongRope };
    Type type = Type::Default;
    double factor = 1.0;
    int originalMaxPositions = 0;                // llama3, yarn, longrope (0 = max_position_embeddings)
    double lowFreqFactor = 1.0;                  // llama3
    double highFreqFactor = 4.0;                 // llama3
    std::optional<double> attentionFactor;       // yarn, longrope: given, or derived from factor
    double betaFast = 32.0;                      // yarn
    double betaSlow = 1.0;                       // yarn
    std::optional<double> mscale, mscaleAllDim;  // yarn (DeepSeek style attention factor)
    bool truncate = true;                        // yarn: round the correction range outwards
    std::vector<double> shortFactor, longFactor; // longrope, one per pair
};

class RotaryEmbedding
{
public:
    RotaryEmbedding() = default;
    // rotaryDim: even, at most the head dimension. maxPositions: config.json's max_position_embeddings.
    RotaryEmbedding(double theta, int rotaryDim, RopeScaling scaling = {}, int maxPositions = 0);

    double theta() const { return m_theta; }
    int rotaryDim() const { return m_rotaryDim; }
    const RopeScaling& scaling() const { return m_scaling; }

    struct Frequencies
    {
        std::vector<float> inverse;   // [rotaryDim / 2]
        float attentionFactor = 1.0f; // cos and sin are multiplied by it (yarn, longrope)
    };
    // The frequencies of a pass whose largest position is sequenceLength − 1 (only dynamic and longrope
    // depend on it).
    Frequencies frequencies(int sequenceLength) const;

    // Rotates x [n, heads, d] in place: token t at positions[t]. sequenceLength as in frequencies().
    // Throws std::invalid_argument when the positions do not match the tokens or d < rotaryDim.
    void apply(HeadTensor& x, const std::vector<int>& positions, int sequenceLength) const;

private:
    double m_theta = 10000.0;
    int m_rotaryDim = 0;
    RopeScaling m_scaling;
    int m_maxPositions = 0;
};

} // namespace attnscope
