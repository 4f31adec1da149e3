#pragma once

// A text of one paragraph per line, turned into the token ids a decoder saw in training. How a model was
// trained on running text is a model-folder setting, attnscope.json "paragraphs":
//
//   "eos"    <s> p1 </s> p2 </s> ...   each paragraph followed by the end-of-text token (the default: the
//                                      2026-11 built-in decoder)
//   "space"  <s> p1 p2 ...             the paragraphs joined by one space and encoded as one text
//
// Empty lines are skipped and each line is trimmed. The StreamingLLM experiment feeds a long held-out text
// this way (attnscope stream --paragraphs), so that the model reads it in its own format.

#include "tokenizer/tokenizer.h"

#include <QString>
#include <vector>

namespace attnscope {

enum class ParagraphJoin { EndOfText, Space };

// attnscope.json's "paragraphs" value: "" (unsaid) and "eos" give EndOfText, "space" Space. Anything else
// throws ModelError naming `settingsFile`.
ParagraphJoin paragraphJoinFromSetting(const QString& value, const QString& settingsFile);
QString paragraphJoinName(ParagraphJoin join); // "eos" or "space"

// The parts paragraphIds puts together in order, for views that label each token by the text it covers: a
// paragraph (or, for Space, the joined text) with its encoding, or a lone special token (<s>, </s>) whose
// `text` is empty. Throws as paragraphIds.
struct ParagraphPiece
{
    QString text;
    Encoding encoding;
};
std::vector<ParagraphPiece> paragraphPieces(const Tokenizer& tokenizer, const QString& text,
                                            ParagraphJoin join);

// The pieces' ids, concatenated. Throws ModelError when EndOfText is asked of a tokenizer without an
// end-of-text token, or when the tokenizer refuses the text.
std::vector<int> paragraphIds(const Tokenizer& tokenizer, const QString& text, ParagraphJoin join);

} // namespace attnscope
