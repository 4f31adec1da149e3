#pragma once

// The tokenizer of T5 checkpoints that ship spiece.model without a tokenizer.json, as transformers' slow
// T5Tokenizer in its default (legacy) mode: one SentencePiece model whose own ids are the model's ids
// (<pad> 0, </s> 1, <unk> 2 in T5's files), and extra_ids (100) sentinels "<extra_id_N>" after the pieces,
// <extra_id_0> the last id. Encoding:
//   the special tokens typed in the text (</s>, <unk>, <pad>, the sentinels) are cut out first (the earliest,
//   the longest there); a sentinel takes the whitespace beside it (lstrip, rstrip), and one glued to a word
//   on either side (single_word) is not a sentinel there but joins that word's text, as upstream's
//   added-token pass does; each stretch of text between them goes through spiece.model on its own (so each
//   starts a word);
//   "</s>" ends the sequence unless its last token is already </s>.

#include "tokenizer/sentencepiecemodel.h"
#include "tokenizer/tokenizer.h"

#include <QHash>
#include <QString>
#include <vector>

namespace attnscope {

class T5Tokenizer
{
public:
    // spiece.model and (optional) tokenizer_config.json (extra_ids, eos_token, unk_token, pad_token) in the
    // folder. Throws TokenizerError "<file>: <problem>" naming the file at fault, also for what this reading
    // does not cover: legacy false, additional_special_tokens other than the sentinels.
    static T5Tokenizer fromFolder(const QString& folder);

    // ids and tokens (the pieces; the special tokens as written), "</s>" last.
    Encoding encode(const QString& text) const;

    // The text of ids with the special tokens (</s>, <unk>, <pad>, the sentinels) skipped: the pieces between
    // them through spiece.model's DecodePieces, trimmed, as the slow T5Tokenizer's
    // decode(skip_special_tokens) before its clean_up_tokenization_spaces (which only drops a space before
    // punctuation: not done here).
    QString decode(const std::vector<int>& ids) const;

    QString idToToken(int id) const; // "" for an id outside the vocabulary
    int vocabSize() const { return m_model.pieceCount() + m_extraIds; }
    int eosId() const { return m_eosId; }
    int padId() const { return m_padId; }
    int unkId() const { return m_unkId; }

private:
    struct SpecialToken
    {
        QString text;
        int id = 0;
        bool sentinel = false; // lstrip, rstrip, single_word
    };
    // The text cut at the special tokens: stretches of text and special tokens, in order, none empty.
    struct Part
    {
        QString text;
        const SpecialToken* special = nullptr;
    };
    std::vector<Part> split(const QString& text) const;

    explicit T5Tokenizer(SentencePieceModel model) : m_model(std::move(model)) {}

    SentencePieceModel m_model;
    int m_extraIds = 100;
    std::vector<SpecialToken> m_specials; // </s>, <unk>, <pad>, then <extra_id_0> ...
    QHash<QString, int> m_specialIndex;   // text -> index in m_specials
    int m_eosId = 1, m_unkId = 2, m_padId = 0;
};

} // namespace attnscope
