#pragma once

#include "attention/headtensor.h"

#include <vector>

namespace attnscope {

// How the components of a head vector are paired for rotation.
enum class RopePairing {
    RotateHalf,  // Llama, GPT-NeoX, Mistral, Qwen2: pair (i, i + r/2)
    Interleaved, // GPT-J: pair (2i, 2i + 1)
};

// Rotary position embedding (Su et al. 2021). Pair p of a vector at position m is rotated by
// m * theta^(-2p/r), where r is the rotary dimension; components from r on are left untouched
// (partial rotary, as in GPT-J and Phi).
struct RopeConfig
{
    bool enabled = false;
    double theta = 10000.0;
    int rotaryDim = 0; // 0 = the whole head dimension
    RopePairing pairing = RopePairing::RotateHalf;
    int positionOffset = 0; // position of token 0 (e.g. tokens already in a cache)

    int effectiveRotaryDim(int headDim) const { return rotaryDim > 0 ? rotaryDim : headDim; }
};

// theta^(-2p/r) for p in [0, r/2), computed as Hugging Face does (float32 powers of theta).
std::vector<float> ropeInverseFrequencies(const RopeConfig& rope, int headDim);

// Rotates every vector of x in place; token t sits at position rope.positionOffset + firstPosition + t.
// Throws std::invalid_argument when the rotary dimension is odd or larger than the head.
void applyRope(HeadTensor& x, const RopeConfig& rope, int firstPosition = 0);

} // namespace attnscope
