#pragma once

// Generating text with a decoder, one token at a time, with a KV cache: what the "Generate" view steps
// through and `attnscope generate` prints. Each step records the token chosen, the model's probability for
// it and its top tokens, and the attention row (every layer and head) of the query that chose it.
//
//   Generation g(model, promptIds, options);          // cheap: nothing runs yet
//   while (g.step()) show(g.steps().back());           // the first step runs the prompt, then one token each
//
// Exact: a step gives the attention row and logits of a fresh pass over the whole sequence (tested for every
// decoder family). Where RoPE frequencies depend on the sequence's length (dynamic NTK, longrope; past
// ModelConfig::ropeCacheLimit) the cached keys and values of shorter passes would differ, so there each step
// runs the whole sequence again.
//
// Off the GUI thread: the model must outlive the Generation, which is used by one thread at a time; options.cancel stops a step between
// layers (step() throws OperationCancelled, the finished steps stay). Steps are plain values to copy out.

#include "generation/keyvaluecache.h"
#include "generation/tokensampler.h"
#include "model/prediction.h"

#include <atomic>
#include <functional>
#include <vector>

namespace attnscope {

class TransformerModel;

struct GenerationOptions
{
    int maxNewTokens = 20;
    SamplingOptions sampling; // temperature 0 = greedy
    int topCount = 5;         // top tokens recorded per step
    bool keepAttention = true;
    bool keepLogits = false; // every step's logits [vocab] (tests, exports)
    // Generation ends once one of these is chosen (it is kept): e.g. the tokenizer's end of text.
    std::vector<int> stopIds;
    int threads = 0;                           // 0 = all cores
    const std::atomic<bool>* cancel = nullptr; // checked between layers
};

struct GenerationStep
{
    int id = 0;            // the token chosen
    float probability = 0; // its probability under the model (softmax of the logits, temperature 1)
    Prediction top;        // the model's top tokens (position = query below)
    int query = 0;         // sequence index of the token whose row chose it (the last one before it)
    // That query's attention over every token before the chosen one: [layers][heads][query + 1] row-major.
    std::vector<float> attention;
    std::vector<float> logits; // [vocab], only with keepLogits

    int keys() const { return query + 1; }
    const float* attentionRow(int layer, int head, int heads) const
    {
        return attention.data() + (size_t(layer) * size_t(heads) + size_t(head)) * size_t(keys());
    }
};

enum class GenerationStop {
    Running,        // step() may still add a token
    MaxTokens,      // maxNewTokens were generated
    StopToken,      // a stop id was chosen
    ModelPositions, // the sequence fills the model's positions
};

class Generation
{
public:
    // Throws ModelError for a model that is not a decoder with an LM head, an empty prompt or one that fills
    // the model's positions, ids outside the vocabulary.
    Generation(const TransformerModel& model, std::vector<int> promptIds, GenerationOptions options);

    // Chooses one more token: the first call runs the prompt, each later one the last chosen token over the
    // cache. Returns false (and runs nothing) once stopped(). Throws OperationCancelled, ModelError.
    bool step();
    GenerationStop stopped() const { return m_stop; }

    const std::vector<int>& promptIds() const { return m_prompt; }
    std::vector<int> generatedIds() const;
    std::vector<int> ids() const; // prompt, then generated
    const std::vector<GenerationStep>& steps() const { return m_steps; }
    int layers() const { return m_layers; }
    int heads() const { return m_heads; }
    const KeyValueCache& cache() const { return m_cache; }

private:
    void updateStop();

    const TransformerModel& m_model;
    std::vector<int> m_prompt;
    GenerationOptions m_options;
    TokenSampler m_sampler;
    KeyValueCache m_cache;
    std::vector<GenerationStep> m_steps;
    GenerationStop m_stop = GenerationStop::Running;
    int m_layers = 0;
    int m_heads = 0;
};

// Runs a Generation to its end; onStep (optional) sees each step as it is made (progress, a growing view).
std::vector<GenerationStep> generate(const TransformerModel& model, const std::vector<int>& promptIds,
                                     const GenerationOptions& options,
                                     const std::function<void(const GenerationStep&, int index)>& onStep = {},
                                     GenerationStop* stop = nullptr);

// "max-tokens", "stop-token", "model-positions" ("running" while it runs).
const char* generationStopName(GenerationStop stop);

} // namespace attnscope
