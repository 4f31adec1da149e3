#pragma once

// The tokenizer of Marian checkpoints (Helsinki-NLP/opus-mt-*), as transformers' MarianTokenizer: two
// SentencePiece models, source.spm for the text to translate and target.spm for the translation, and one
// joint vocabulary, vocab.json, mapping each piece to the model's id (not the .spm's own ids). Encoding:
//   a leading language code ">>xx<<" (multilingual targets) is kept as one token and every ">>…<<" span is
//   taken out of the text; the rest goes through the side's .spm; each piece maps through vocab.json, pieces
//   it lacks to <unk>; "</s>" ends the sequence.
// Special tokens typed in the text ("</s>", "<unk>", "<pad>") are cut out first and kept as themselves, as
// the slow tokenizer's added-tokens split does. transformers' slow tokenizer also runs sacremoses'
// punctuation normaliser when sacremoses is installed; it is neither in Debian nor in the oracle kit, and
// without it the normaliser is the identity, as here.

#include "tokenizer/sentencepiecemodel.h"
#include "tokenizer/tokenizer.h"

#include <QHash>
#include <QString>
#include <vector>

namespace attnscope {

class MarianTokenizer
{
public:
    enum class Side { Source, Target };

    // source.spm, target.spm, vocab.json and (optional) tokenizer_config.json in the folder. Throws
    // TokenizerError "<file>: <problem>" naming the file at fault.
    static MarianTokenizer fromFolder(const QString& folder);

    // ids and tokens (vocab.json's strings; "<unk>" for unknown pieces), "</s>" last.
    Encoding encode(const QString& text, Side side = Side::Source) const;
    // The text of ids through the target (or source) .spm; special tokens are skipped when asked, else kept
    // as their strings, as MarianTokenizer.decode.
    QString decode(const std::vector<int>& ids, bool skipSpecialTokens = true,
                   Side side = Side::Target) const;

    QString idToToken(int id) const; // "<unk>" for an id vocab.json lacks, as transformers
    int vocabSize() const { return int(m_tokens.size()); }
    int eosId() const { return m_eosId; }
    int padId() const { return m_padId; }
    int unkId() const { return m_unkId; }

private:
    // The pieces of text between special tokens: its language code, then the side's .spm.
    QStringList chunkPieces(const QString& chunk, Side side) const;

    MarianTokenizer(SentencePieceModel source, SentencePieceModel target)
        : m_source(std::move(source)), m_target(std::move(target))
    {}

    SentencePieceModel m_source, m_target;
    QHash<QString, int> m_ids;
    std::vector<QString> m_tokens; // id -> piece; "" where vocab.json has no piece for an id
    QString m_eos, m_unk, m_pad;
    int m_eosId = 0, m_unkId = 0, m_padId = 0;
};

} // namespace attnscope
