#pragma once

// Choosing the next token from a decoder's logits: greedy, or sampling with temperature, top-k and top-p
// (nucleus), in the order Hugging Face's generate() applies them (temperature, then top-k, then top-p).
// Deterministic given the seed: the random numbers come from std::mt19937_64, whose output the C++ standard
// fixes, turned into doubles by hand (std::uniform_real_distribution is left to each library).

#include <cstdint>
#include <random>
#include <vector>

namespace attnscope {

struct SamplingOptions
{
    double temperature = 1.0; // softmax(logits / T); 0 = greedy (the most probable token, lowest id on ties)
    int topK = 0;             // keep the k most probable tokens (ties with the k-th kept too); 0 = all
    double topP = 1.0;        // keep the fewest most probable tokens whose mass reaches p; 1 = all
    std::uint64_t seed = 0;

    bool greedy() const { return temperature <= 0.0 || topK == 1; }
};

// softmax(logits) in double: the model's own distribution (temperature 1), [vocab].
std::vector<double> softmax(const float* logits, int vocab);

// The distribution sampling draws from: softmax(logits / T), zero outside the top-k and then outside the
// nucleus of mass topP, renormalised to sum 1. Greedy options give 1 on the most probable token.
std::vector<double> samplingDistribution(const float* logits, int vocab, const SamplingOptions& options);

// Index of the largest logit (lowest index on ties).
int argmax(const float* logits, int vocab);

class TokenSampler
{
public:
    explicit TokenSampler(const SamplingOptions& options);

    const SamplingOptions& options() const { return m_options; }
    // The next token: argmax when greedy, else one draw from samplingDistribution().
    int next(const float* logits, int vocab);
    // A uniform double in [0, 1) from 53 bits of the generator.
    double uniform();

private:
    SamplingOptions m_options;
    std::mt19937_64 m_random;
};

} // namespace attnscope
