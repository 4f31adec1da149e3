#pragma once

#include <QString>
#include <QStringList>

namespace attnscope {

struct ModelText;

// The label of a token: the exact text it covers, with the vocabulary's subword marker kept so that
// pieces read as pieces ("ke" "##di", "▁ke" "di", not "ke" "di"). Special tokens and tokens that cover no
// text keep their vocabulary string.
QString subwordLabel(const QString& vocabularyToken, const QString& coveredText);

// Every token's label as the explorer's heatmap shows it: special tokens as ModelText covers them, the others
// by subwordLabel. Views that list a text's tokens (the streaming cache's contents) use it too, so that a
// piece reads the same everywhere, its word-start marker included.
QStringList tokenLabels(const ModelText& text);

} // namespace attnscope
