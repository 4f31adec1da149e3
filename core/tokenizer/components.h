#pragma once

// The stages of a tokenizer.json pipeline (normalizer, pre-tokenizer, model, post-processor, decoder) as small
// interfaces, and the data that flows between them. Each stage mirrors the Hugging Face `tokenizers` class of
// the same name.

#include "tokenizer/normalizedstring.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnscope::tok {

// A token the model (or the added vocabulary) produced for one split: [begin, end) in normalised code points
// of that split.
struct ModelToken
{
    int id = 0;
    std::u32string value;
    int begin = 0;
    int end = 0;
};

// One piece of the input during pre-tokenisation; `tokens` is set once it is tokenised (added tokens are
// tokenised at extraction and skipped by later stages).
struct Split
{
    NormalizedString normalized;
    std::optional<std::vector<ModelToken>> tokens;
};

// The encoding of one or two sequences while post-processing. Offsets are code points of the sequence's own text.
struct RawEncoding
{
    std::vector<int> ids;
    std::vector<std::u32string> tokens;
    std::vector<Span> offsets;
    std::vector<int> typeIds;
    std::vector<int> sequenceIds;
    std::vector<bool> special;

    int size() const { return int(ids.size()); }
    void append(const RawEncoding& other);
    void setSequenceId(int id) { sequenceIds.assign(ids.size(), id); }
    void setTypeIds(int id) { typeIds.assign(ids.size(), id); }
};

class Normalizer
{
public:
    virtual ~Normalizer() = default;
    virtual void normalize(NormalizedString& s) const = 0;
};

class PreTokenizer
{
public:
    virtual ~PreTokenizer() = default;
    virtual void preTokenize(std::vector<Split>& splits) const = 0;
};

class Model
{
public:
    virtual ~Model() = default;
    virtual std::vector<ModelToken> tokenize(const std::u32string& piece) const = 0;
    virtual std::optional<int> tokenToId(const std::u32string& token) const = 0;
    virtual std::optional<std::u32string> idToToken(int id) const = 0;
    virtual int vocabSize() const = 0;
    virtual const char* typeName() const = 0;
    virtual std::optional<std::u32string> unkToken() const { return std::nullopt; }
};

class PostProcessor
{
public:
    virtual ~PostProcessor() = default;
    // HF process_encodings(): one encoding per input sequence in, the processed list out (to be concatenated).
    virtual std::vector<RawEncoding> process(std::vector<RawEncoding> encodings, bool addSpecialTokens) const = 0;
};

class Decoder
{
public:
    virtual ~Decoder() = default;
    virtual std::vector<std::u32string> decodeChain(std::vector<std::u32string> tokens) const = 0;
};

// Applies `fn` to every split that has no tokens yet, replacing it by the pieces fn returns; empty pieces are
// dropped (HF PreTokenizedString::split).
template <typename Fn>
void splitEach(std::vector<Split>& splits, Fn fn)
{
    std::vector<Split> out;
    out.reserve(splits.size());
    for (Split& s : splits) {
        if (s.tokens) {
            out.push_back(std::move(s));
            continue;
        }
        for (NormalizedString& piece : fn(s.normalized))
            if (!piece.empty())
                out.push_back(Split{std::move(piece), std::nullopt});
    }
    splits = std::move(out);
}

} // namespace attnscope::tok
