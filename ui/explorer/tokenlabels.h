#pragma once

#include <QString>

namespace attnscope {

// The label of a token: the exact text it covers, with the vocabulary's subword marker kept so that
// pieces read as pieces ("ke" "##di", "▁ke" "di", not "ke" "di"). Special tokens and tokens that cover no
// text keep their vocabulary string.
QString subwordLabel(const QString& vocabularyToken, const QString& coveredText);

} // namespace attnscope
