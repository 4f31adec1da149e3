#include "tokenizer/tokenizerpipeline.h"

namespace attnscope {

using namespace tok;

RawEncoding TokenizerPipeline::encodeSequence(const std::u32string& text, int typeId) const
{
    std::vector<Split> splits = added.extractAndNormalize(text, normalizer.get());
    if (preTokenizer)
        preTokenizer->preTokenize(splits);
    RawEncoding e;
    for (Split& split : splits) {
        if (!split.tokens)
            split.tokens = model->tokenize(split.normalized.get());
        for (const ModelToken& t : *split.tokens) {
            e.ids.push_back(t.id);
            e.tokens.push_back(t.value);
            e.offsets.push_back(split.normalized.originalSpanOf(t.begin, t.end));
        }
    }
    e.typeIds.assign(e.ids.size(), typeId);
    e.sequenceIds.assign(e.ids.size(), typeId);
    e.special.assign(e.ids.size(), false);
    return e;
}

RawEncoding TokenizerPipeline::postProcess(RawEncoding a, std::optional<RawEncoding> b, bool addSpecialTokens) const
{
    std::vector<RawEncoding> encodings;
    encodings.push_back(std::move(a));
    if (b)
        encodings.push_back(std::move(*b));
    if (postProcessor) {
        // HF PostProcessor::process: sequence and type ids are the sequence index before the processor runs.
        for (size_t i = 0; i < encodings.size(); ++i) {
            encodings[i].setSequenceId(int(i));
            encodings[i].setTypeIds(int(i));
        }
        encodings = postProcessor->process(std::move(encodings), addSpecialTokens);
    } else {
        for (size_t i = 0; i < encodings.size(); ++i)
            encodings[i].setSequenceId(int(i));
    }
    RawEncoding out;
    for (const RawEncoding& e : encodings)
        out.append(e);
    return out;
}

std::optional<int> TokenizerPipeline::tokenToId(const std::u32string& token) const
{
    if (const AddedToken* t = added.byContent(token))
        return t->id;
    return model->tokenToId(token);
}

std::optional<std::u32string> TokenizerPipeline::idToToken(int id) const
{
    if (const AddedToken* t = added.byId(id))
        return t->content;
    return model->idToToken(id);
}

} // namespace attnscope
