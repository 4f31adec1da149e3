#include "attention/rotaryembedding.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace attnscope {

namespace {

constexpr double kTwoPi = 6.283185307179586;

// theta^(2p/r) for every pair, in float32 as transformers evaluates base ** (arange(0, r, 2).float() / r).
std::vector<float> basePowers(double theta, int rotaryDim)
{
    std::vector<float> powers(size_t(rotaryDim / 2));
    for (int p = 0; p < rotaryDim / 2; ++p)
        powers[size_t(p)] = std::pow(float(theta), float(2 * p) / float(rotaryDim));
    return powers;
}

double yarnMscale(double scale, double m)
{
    return scale <= 1.0 ? 1.0 : 0.1 * m * std::log(scale) + 1.0;
}

} // namespace

RotaryEmbedding::RotaryEmbedding(double theta, int rotaryDim, RopeScaling scaling, int maxPositions)
    : m_theta(theta), m_rotaryDim(rotaryDim), m_scaling(std::move(scaling)), m_maxPositions(maxPositions)
{
    if (rotaryDim <= 0 || rotaryDim % 2 != 0)
        throw std::invalid_argument("RoPE rotary dimension " + std::to_string(rotaryDim) +
                                    " must be even and positive");
    if (!(theta > 0.0)) throw std::invalid_argument("RoPE theta must be positive");
}

RotaryEmbedding::Frequencies RotaryEmbedding::frequencies(int sequenceLength) const
{
    using Type = RopeScaling::Type;
    const RopeScaling& s = m_scaling;
    const int r = m_rotaryDim, pairs = r / 2;
    Frequencies f;
    f.inverse.resize(size_t(pairs));
    const std::vector<float> powers = basePowers(m_theta, r);
    const int original = s.originalMaxPositions > 0 ? s.originalMaxPositions : m_maxPositions;

    switch (s.type) {
    case Type::Default:
    case Type::Linear:
        for (int p = 0; p < pairs; ++p) {
            const float inverse = 1.0f / powers[size_t(p)];
            f.inverse[size_t(p)] = s.type == Type::Linear ? float(inverse / s.factor) : inverse;
        }
        break;
    case Type::Dynamic: {
        const double length = std::max(sequenceLength, m_maxPositions);
        const double theta =
            m_theta * std::pow(s.factor * length / m_maxPositions - (s.factor - 1.0), double(r) / (r - 2));
        const std::vector<float> scaled = basePowers(theta, r);
        for (int p = 0; p < pairs; ++p)
            f.inverse[size_t(p)] = 1.0f / scaled[size_t(p)];
        break;
    }
    case Type::Llama3: {
        const double lowWavelength = original / s.lowFreqFactor, highWavelength = original / s.highFreqFactor;
        for (int p = 0; p < pairs; ++p) {
            const double inverse = 1.0f / powers[size_t(p)];
            const double wavelength = kTwoPi / inverse;
            double scaled = inverse; // short wavelengths: unchanged
            if (wavelength > lowWavelength) {
                scaled = inverse / s.factor;
            } else if (wavelength >= highWavelength) {
                const double smooth =
                    (original / wavelength - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
                scaled = (1.0 - smooth) * inverse / s.factor + smooth * inverse;
            }
            f.inverse[size_t(p)] = float(scaled);
        }
        break;
    }
    case Type::Yarn: {
        f.attentionFactor =
            float(s.attentionFactor ? *s.attentionFactor
                  : s.mscale && s.mscaleAllDim && *s.mscale != 0.0 && *s.mscaleAllDim != 0.0
                      ? yarnMscale(s.factor, *s.mscale) / yarnMscale(s.factor, *s.mscaleAllDim)
                      : yarnMscale(s.factor, 1.0));
        // The pair whose wavelength makes `turns` rotations over the original context.
        auto correctionPair = [&](double turns) {
            return r * std::log(original / (turns * kTwoPi)) / (2.0 * std::log(m_theta));
        };
        double low = correctionPair(s.betaFast), high = correctionPair(s.betaSlow);
        if (s.truncate) {
            low = std::floor(low);
            high = std::ceil(high);
        }
        low = std::max(low, 0.0);
        high = std::min(high, double(r - 1));
        if (low == high) high += 0.001;
        for (int p = 0; p < pairs; ++p) {
            const double ramp = std::clamp((p - low) / (high - low), 0.0, 1.0);
            const double keep = 1.0 - ramp; // 1: the original frequency, 0: interpolated by factor
            const double power = powers[size_t(p)];
            f.inverse[size_t(p)] = float(1.0 / (s.factor * power) * (1.0 - keep) + 1.0 / power * keep);
        }
        break;
    }
    case Type::LongRope: {
        f.attentionFactor =
            float(s.attentionFactor ? *s.attentionFactor
                  : s.factor <= 1.0 ? 1.0
                                    : std::sqrt(1.0 + std::log(s.factor) / std::log(double(original))));
        const std::vector<double>& ext = sequenceLength > original ? s.longFactor : s.shortFactor;
        for (int p = 0; p < pairs; ++p)
            f.inverse[size_t(p)] = float(1.0 / (double(float(ext[size_t(p)])) * double(powers[size_t(p)])));
        break;
    }
    }
    return f;
}

void RotaryEmbedding::apply(HeadTensor& x, const std::vector<int>& positions, int sequenceLength) const
{
    if (int(positions.size()) != x.tokens)
        throw std::invalid_argument("RoPE: " + std::to_string(positions.size()) + " positions for " +
                                    std::to_string(x.tokens) + " tokens");
    if (x.dim < m_rotaryDim)
        throw std::invalid_argument("RoPE: rotary dimension " + std::to_string(m_rotaryDim) +
                                    " is larger than the head dimension " + std::to_string(x.dim));
    if (x.tokens == 0) return;
    const Frequencies f = frequencies(sequenceLength);
    const int half = m_rotaryDim / 2;
    std::vector<float> cosines(static_cast<size_t>(half)), sines(static_cast<size_t>(half));
    for (int t = 0; t < x.tokens; ++t) {
        const float position = float(positions[size_t(t)]);
        for (int p = 0; p < half; ++p) {
            const float angle = position * f.inverse[size_t(p)];
            cosines[size_t(p)] = std::cos(angle) * f.attentionFactor;
            sines[size_t(p)] = std::sin(angle) * f.attentionFactor;
        }
        for (int h = 0; h < x.heads; ++h) {
            float* v = x.vector(t, h);
            for (int p = 0; p < half; ++p) {
                const float a = v[p], b = v[p + half];
                v[p] = a * cosines[size_t(p)] - b * sines[size_t(p)];
                v[p + half] = b * cosines[size_t(p)] + a * sines[size_t(p)];
            }
        }
    }
}

} // namespace attnscope
