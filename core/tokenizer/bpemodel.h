#pragma once

// Byte-pair encoding as Hugging Face runs it: split a word into characters (or <0xNN> byte tokens with
// byte_fallback, or the unknown token), then apply merges lowest rank first (leftmost on ties) until none
// applies. Used by GPT-2 (byte-level) and SentencePiece-style models (Llama-2, Mistral).

#include "tokenizer/vocabularymodel.h"

#include <list>
#include <mutex>
#include <unordered_map>

namespace attnscope::tok {

struct BpeOptions
{
    std::optional<std::u32string> unkToken;
    std::optional<std::u32string> continuingSubwordPrefix;
    std::optional<std::u32string> endOfWordSuffix;
    bool fuseUnk = false;
    bool byteFallback = false;
    bool ignoreMerges = false;
};

class BpeModel : public VocabularyModel
{
public:
    // Merges as (left, right) token strings in rank order. Throws std::runtime_error naming a merge whose parts
    // or result are missing from the vocabulary.
    BpeModel(Vocabulary vocab, const std::vector<std::pair<std::u32string, std::u32string>>& merges, BpeOptions options);
    std::vector<ModelToken> tokenize(const std::u32string& piece) const override;
    const char* typeName() const override { return "BPE"; }
    std::optional<std::u32string> unkToken() const override { return m_options.unkToken; }
    const BpeOptions& options() const { return m_options; }

private:
    struct Symbol
    {
        int id;
        int begin, end; // code points of the word
        int prev, next;
        bool removed;
    };
    struct MergeValue
    {
        int rank;
        int newId;
    };
    static quint64 pairKey(int a, int b) { return (quint64(quint32(a)) << 32) | quint32(b); }
    std::vector<ModelToken> mergeWord(const std::u32string& word) const;

    std::unordered_map<quint64, MergeValue> m_merges;
    BpeOptions m_options;
    std::vector<int> m_byteTokens; // id of <0xNN>, or -1

    // Words seen before -> their tokens (the same cache HF keeps; bounded).
    mutable std::mutex m_cacheMutex;
    mutable std::unordered_map<std::u32string, std::vector<ModelToken>> m_cache;
};

} // namespace attnscope::tok
