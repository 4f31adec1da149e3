#pragma once

// The base of the models whose tokens are the entries of one Vocabulary (WordPiece, BPE): the id look-ups
// are answered from it; each model adds its own tokenize().

#include "tokenizer/components.h"
#include "tokenizer/vocabulary.h"

#include <utility>

namespace attnscope::tok {

class VocabularyModel : public Model
{
public:
    explicit VocabularyModel(Vocabulary vocab) : m_vocab(std::move(vocab)) {}
    std::optional<int> tokenToId(const std::u32string& token) const override { return m_vocab.find(token); }
    std::optional<std::u32string> idToToken(int id) const override
    {
        if (const std::u32string* t = m_vocab.token(id))
            return *t;
        return std::nullopt;
    }
    int vocabSize() const override { return m_vocab.size(); }

protected:
    Vocabulary m_vocab;
};

} // namespace attnscope::tok
