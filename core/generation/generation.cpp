#include "generation/generation.h"

#include "model/modelerror.h"
#include "model/transformermodel.h"
#include "tokenizer/tokenizer.h"

#include <QDir>
#include <algorithm>
#include <numeric>

namespace attnscope {

Generation::Generation(const TransformerModel& model, std::vector<int> promptIds, GenerationOptions options)
    : m_model(model), m_prompt(std::move(promptIds)), m_options(std::move(options)),
      m_sampler(m_options.sampling), m_layers(model.config().layers), m_heads(model.config().heads)
{
    const QString where = QDir::toNativeSeparators(model.folder());
    if (!model.config().isDecoder())
        throw ModelError(where, QStringLiteral("only decoders generate text (this is a %1 encoder)")
                                    .arg(model.config().modelType));
    model.checkInput(m_prompt, {});
    if (int(m_prompt.size()) >= model.config().maxPositions)
        throw ModelError(where, QStringLiteral("the prompt's %1 tokens fill the %2 positions this model "
                                               "takes: nothing can follow them")
                                    .arg(m_prompt.size())
                                    .arg(model.config().maxPositions));
    if (m_options.maxNewTokens <= 0) m_stop = GenerationStop::MaxTokens;
}

std::vector<int> Generation::generatedIds() const
{
    std::vector<int> ids;
    for (const GenerationStep& s : m_steps)
        ids.push_back(s.id);
    return ids;
}

std::vector<int> Generation::ids() const
{
    std::vector<int> all = m_prompt;
    for (const GenerationStep& s : m_steps)
        all.push_back(s.id);
    return all;
}

bool Generation::step()
{
    if (m_stop != GenerationStop::Running) return false;
    // The first step runs the prompt; later ones the last chosen token with the cache as its past. Past
    // ropeCacheLimit the RoPE frequencies change with the length: the whole sequence is run again, exact.
    const int length = int(m_prompt.size() + m_steps.size());
    const int limit = m_model.config().ropeCacheLimit;
    const bool recompute = m_steps.empty() || (limit > 0 && length > limit);
    const std::vector<int> input = recompute ? ids() : std::vector<int>{m_steps.back().id};
    if (recompute) m_cache.clear();
    const int firstIndex = m_cache.size();
    RunOptions run;
    run.threads = m_options.threads;
    run.cancel = m_options.cancel;
    run.keepKeyValues = true;
    run.keepLogits = LogitRows::Last;
    if (!m_cache.empty()) run.past = &m_cache.layers();
    const AttentionCapture capture = m_model.run(input, {}, run);

    const int vocab = m_model.config().vocabSize;
    GenerationStep s;
    s.query = firstIndex + int(input.size()) - 1;
    s.id = m_sampler.next(capture.logits.data(), vocab);
    const std::vector<double> p = softmax(capture.logits.data(), vocab);
    s.probability = float(p[size_t(s.id)]);
    s.top.position = s.query;
    std::vector<int> order(p.size());
    std::iota(order.begin(), order.end(), 0);
    const int count = std::min<int>(std::max(m_options.topCount, 0), vocab);
    std::partial_sort(order.begin(), order.begin() + count, order.end(), [&](int a, int b) {
        return p[size_t(a)] > p[size_t(b)] || (p[size_t(a)] == p[size_t(b)] && a < b);
    });
    const Tokenizer* tokenizer = m_model.tokenizer();
    for (int i = 0; i < count; ++i) {
        const int id = order[size_t(i)];
        s.top.top.push_back({id, m_model.tokenText(id),
                             tokenizer ? tokenizer->decode({id}, false) : QString(), float(p[size_t(id)])});
    }
    if (m_options.keepAttention) {
        const AttentionMaps& maps = *capture.maps;
        const int keys = s.keys(), lastRow = int(input.size()) - 1;
        s.attention.reserve(size_t(m_layers) * size_t(m_heads) * size_t(keys));
        for (int l = 0; l < m_layers; ++l)
            for (int h = 0; h < m_heads; ++h) {
                const std::vector<float> row = maps.tile(l, h, lastRow, lastRow + 1, 0, keys);
                s.attention.insert(s.attention.end(), row.begin(), row.end());
            }
    }
    if (m_options.keepLogits) s.logits = capture.logits;

    m_cache.append(capture.keyValues, firstIndex);
    m_steps.push_back(std::move(s));
    updateStop();
    return true;
}

void Generation::updateStop()
{
    const int chosen = m_steps.back().id;
    if (std::find(m_options.stopIds.begin(), m_options.stopIds.end(), chosen) != m_options.stopIds.end())
        m_stop = GenerationStop::StopToken;
    else if (int(m_steps.size()) >= m_options.maxNewTokens)
        m_stop = GenerationStop::MaxTokens;
    // The chosen token is fed in at the next step, at position prompt + steps − 1.
    else if (int(m_prompt.size() + m_steps.size()) >= m_model.config().maxPositions)
        m_stop = GenerationStop::ModelPositions;
}

std::vector<GenerationStep> generate(const TransformerModel& model, const std::vector<int>& promptIds,
                                     const GenerationOptions& options,
                                     const std::function<void(const GenerationStep&, int index)>& onStep,
                                     GenerationStop* stop)
{
    Generation generation(model, promptIds, options);
    while (generation.step())
        if (onStep) onStep(generation.steps().back(), int(generation.steps().size()) - 1);
    if (stop) *stop = generation.stopped();
    return generation.steps();
}

const char* generationStopName(GenerationStop stop)
{
    switch (stop) {
    case GenerationStop::Running:
        return "running";
    case GenerationStop::MaxTokens:
        return "max-tokens";
    case GenerationStop::StopToken:
        return "stop-token";
    case GenerationStop::ModelPositions:
        return "model-positions";
    }
    return "";
}

} // namespace attnscope
