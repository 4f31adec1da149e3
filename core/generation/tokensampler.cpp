#include "generation/tokensampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attnscope {

std::vector<double> softmax(const float* logits, int vocab)
{
    std::vector<double> p(static_cast<size_t>(vocab));
    if (vocab <= 0) return p;
    const double largest = *std::max_element(logits, logits + vocab);
    double sum = 0;
    for (int i = 0; i < vocab; ++i)
        sum += (p[size_t(i)] = std::exp(double(logits[i]) - largest));
    for (double& value : p)
        value /= sum;
    return p;
}

int argmax(const float* logits, int vocab)
{
    return int(std::max_element(logits, logits + vocab) - logits); // the first of equal maxima
}

std::vector<double> samplingDistribution(const float* logits, int vocab, const SamplingOptions& options)
{
    std::vector<double> p(static_cast<size_t>(vocab), 0.0);
    if (vocab <= 0) return p;
    if (options.greedy()) {
        p[size_t(argmax(logits, vocab))] = 1.0;
        return p;
    }
    const double largest = *std::max_element(logits, logits + vocab);
    double sum = 0;
    for (int i = 0; i < vocab; ++i)
        sum += (p[size_t(i)] = std::exp((double(logits[i]) - largest) / options.temperature));
    for (double& value : p)
        value /= sum;

    // Most probable first; equal probabilities by id, so the order (and the cut) is reproducible.
    std::vector<int> order(static_cast<size_t>(vocab));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p[size_t(a)] > p[size_t(b)]; });
    size_t kept = order.size();
    if (options.topK > 0 && size_t(options.topK) < kept) {
        const double kth = p[size_t(order[size_t(options.topK) - 1])];
        kept = size_t(options.topK);
        while (kept < order.size() && p[size_t(order[kept])] == kth) // ties with the k-th stay
            ++kept;
    }
    if (options.topP < 1.0) {
        double keptMass = 0;
        for (size_t i = 0; i < kept; ++i)
            keptMass += p[size_t(order[i])];
        // A token stays while the mass before it (of the top-k renormalised) is below p: the fewest tokens
        // that reach p, and always the first.
        double before = 0;
        size_t nucleus = 0;
        while (nucleus < kept && (nucleus == 0 || before < options.topP)) {
            before += p[size_t(order[nucleus])] / keptMass;
            ++nucleus;
        }
        kept = nucleus;
    }
    double keptMass = 0;
    for (size_t i = 0; i < kept; ++i)
        keptMass += p[size_t(order[i])];
    for (size_t i = kept; i < order.size(); ++i)
        p[size_t(order[i])] = 0.0;
    for (double& value : p)
        value /= keptMass;
    return p;
}

TokenSampler::TokenSampler(const SamplingOptions& options) : m_options(options), m_random(options.seed) {}

double TokenSampler::uniform()
{
    return double(m_random() >> 11) * 0x1.0p-53;
}

int TokenSampler::next(const float* logits, int vocab)
{
    if (m_options.greedy()) return argmax(logits, vocab);
    const std::vector<double> p = samplingDistribution(logits, vocab, m_options);
    const double u = uniform();
    double cumulative = 0;
    int last = 0;
    for (int i = 0; i < vocab; ++i) {
        if (p[size_t(i)] <= 0.0) continue;
        cumulative += p[size_t(i)];
        last = i;
        if (u < cumulative) return i;
    }
    return last; // rounding left the sum just under u
}

} // namespace attnscope
