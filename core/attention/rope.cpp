#include "attention/rope.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace attnscope {

std::vector<float> ropeInverseFrequencies(const RopeConfig& rope, int headDim)
{
    const int r = rope.effectiveRotaryDim(headDim);
    if (r % 2 != 0 || r > headDim || r <= 0)
        throw std::invalid_argument("RoPE rotary dimension " + std::to_string(r) +
                                    " must be even and at most the head dimension " + std::to_string(headDim));
    std::vector<float> inv(size_t(r / 2));
    // HF: 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim)), evaluated in float32.
    for (int p = 0; p < r / 2; ++p) {
        const float exponent = float(2 * p) / float(r);
        inv[size_t(p)] = 1.0f / std::pow(float(rope.theta), exponent);
    }
    return inv;
}

void applyRope(HeadTensor& x, const RopeConfig& rope, int firstPosition)
{
    if (!rope.enabled || x.tokens == 0)
        return;
    const std::vector<float> inv = ropeInverseFrequencies(rope, x.dim);
    const int half = int(inv.size());
    std::vector<float> cosines(static_cast<size_t>(half)), sines(static_cast<size_t>(half));
    for (int t = 0; t < x.tokens; ++t) {
        const float position = float(rope.positionOffset + firstPosition + t);
        for (int p = 0; p < half; ++p) {
            // HF computes the angle in float32 (position * inv_freq), then cos/sin of it.
            const float angle = position * inv[size_t(p)];
            cosines[size_t(p)] = std::cos(angle);
            sines[size_t(p)] = std::sin(angle);
        }
        for (int h = 0; h < x.heads; ++h) {
            float* v = x.vector(t, h);
            for (int p = 0; p < half; ++p) {
                const int a = rope.pairing == RopePairing::RotateHalf ? p : 2 * p;
                const int b = rope.pairing == RopePairing::RotateHalf ? p + half : 2 * p + 1;
                const float va = v[a], vb = v[b];
                v[a] = va * cosines[size_t(p)] - vb * sines[size_t(p)];
                v[b] = vb * cosines[size_t(p)] + va * sines[size_t(p)];
            }
        }
    }
}

} // namespace attnscope
