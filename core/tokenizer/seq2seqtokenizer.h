#pragma once

// The tokenizer of an encoder-decoder model's folder, whichever kind it ships, behind one face for the
// commands that translate (app/cmd_translate.cpp, attention --part):
//   source.spm (+ target.spm, vocab.json)     MarianTokenizer (opus-mt)
//   tokenizer.json                            Tokenizer (BART, mBART, T5 checkpoints that ship one)
//   spiece.model without tokenizer.json       T5Tokenizer (the slow T5Tokenizer)
// The source is encoded with the special tokens the model's tokenizer adds (</s> last, <s> first for BART);
// the output is decoded with special tokens skipped.

#include "tokenizer/tokenizer.h"

#include <QString>
#include <memory>
#include <vector>

namespace attnscope {

class Seq2SeqTokenizer
{
public:
    virtual ~Seq2SeqTokenizer() = default;

    // The folder's tokenizer, chosen as above. Throws TokenizerError "<file>: <problem>" for a damaged file,
    // and "<folder>: no tokenizer (...)" naming the files looked for when it has none.
    static std::unique_ptr<Seq2SeqTokenizer> fromFolder(const QString& folder);
    // Whether the folder holds one of the files above (fromFolder() may still refuse a damaged one).
    static bool folderHasOne(const QString& folder);

    // The source text's ids and tokens, special tokens added.
    virtual Encoding encodeSource(const QString& text) const = 0;
    // The target text's ids (transformers' text_target: the labels, </s> last), special tokens added.
    virtual Encoding encodeTarget(const QString& text) const = 0;
    // The text of output ids (decoder_start and </s> included or not), special tokens skipped.
    virtual QString decodeTarget(const std::vector<int>& ids) const = 0;
    // The token of one id on the given side ("" where the tokenizer has none for it).
    virtual QString sourceToken(int id) const = 0;
    virtual QString targetToken(int id) const = 0;
};

} // namespace attnscope
