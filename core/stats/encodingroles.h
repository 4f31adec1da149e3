#pragma once

// TokenRoles for a tokenizer's encoding: which positions are special, [CLS]/BOS, [SEP]/EOS and punctuation.

#include "stats/headstats.h"

#include <QString>
#include <optional>

namespace attnscope {

struct Encoding;
class Tokenizer;

// Special positions are the tokenizer's (Encoding::special). Among them, [CLS] or BOS ids go to
// clsPositions and [SEP] or EOS ids to sepPositions (the explorer's rule). A non-special token is
// punctuation when the text it covers (its offsets into textA or textB), whitespace aside, is one or more
// Unicode punctuation characters (QChar::isPunct): "." "," "?!" "--" — Clark et al.'s "." and ",".
TokenRoles tokenRolesFromEncoding(const Encoding& encoding, const Tokenizer& tokenizer, const QString& textA,
                                  const std::optional<QString>& textB);

// True when `text`, whitespace aside, is non-empty and all Unicode punctuation.
bool isPunctuationText(const QString& text);

} // namespace attnscope
