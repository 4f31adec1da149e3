#pragma once

// WordPiece (BERT): greedy longest-match-first over each pre-tokenised word, continuation pieces prefixed
// with "##"; a word with no full cover, or longer than max_input_chars_per_word, becomes the unknown token.

#include "tokenizer/vocabularymodel.h"

namespace attnscope::tok {

class WordPieceModel : public VocabularyModel
{
public:
    WordPieceModel(Vocabulary vocab, std::u32string unkToken, std::u32string prefix, int maxInputCharsPerWord)
        : VocabularyModel(std::move(vocab)), m_unk(std::move(unkToken)), m_prefix(std::move(prefix)),
          m_maxChars(maxInputCharsPerWord)
    {
    }
    std::vector<ModelToken> tokenize(const std::u32string& piece) const override;
    const char* typeName() const override { return "WordPiece"; }
    std::optional<std::u32string> unkToken() const override { return m_unk; }
    const std::u32string& continuingPrefix() const { return m_prefix; }

private:
    ModelToken unknown(int length) const;

    std::u32string m_unk;
    std::u32string m_prefix;
    int m_maxChars;
};

} // namespace attnscope::tok
