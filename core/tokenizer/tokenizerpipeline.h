#pragma once

// Everything a Tokenizer runs, in order: added tokens, normalizer, pre-tokenizer, model, post-processor;
// and the decoder for the way back.

#include "tokenizer/addedvocabulary.h"
#include "tokenizer/components.h"

#include <QString>

#include <memory>
#include <optional>

namespace attnscope {

struct Encoding;

class TokenizerPipeline
{
public:
    QString path; // the file it was read from, for messages
    std::unique_ptr<tok::Normalizer> normalizer;
    std::unique_ptr<tok::PreTokenizer> preTokenizer;
    std::unique_ptr<tok::Model> model;
    std::unique_ptr<tok::PostProcessor> postProcessor;
    std::unique_ptr<tok::Decoder> decoder;
    tok::AddedVocabulary added;

    // Named special tokens from tokenizer_config.json (bos_token, ...), as token strings.
    std::optional<std::u32string> bosToken, eosToken, unkToken, sepToken, padToken, clsToken, maskToken;

    // One sequence through added tokens, normaliser, pre-tokenizer and model; offsets in code points of `text`.
    tok::RawEncoding encodeSequence(const std::u32string& text, int typeId) const;
    tok::RawEncoding postProcess(tok::RawEncoding a, std::optional<tok::RawEncoding> b, bool addSpecialTokens) const;

    std::optional<int> tokenToId(const std::u32string& token) const;
    std::optional<std::u32string> idToToken(int id) const;
};

} // namespace attnscope
