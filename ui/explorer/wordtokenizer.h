#pragma once

#include <QString>
#include <QStringList>

#include <optional>
#include <utility>
#include <vector>

namespace attnscope {

// The synthetic demo's tokenizer (no vocabulary): words (letters, digits, apostrophes inside a word) and
// single punctuation marks, with [CLS] ... [SEP] (... [SEP]) around them, BERT style. Offsets are code
// points into the text each token came from, like core/tokenizer's Encoding.
struct WordTokens
{
    QStringList tokens;
    std::vector<std::pair<int, int>> offsets; // [begin, end) code points; (0,0) for [CLS]/[SEP]
    std::vector<int> sequenceIds;             // 0 = A, 1 = B, -1 = special
    std::vector<bool> special;
};

WordTokens wordTokenize(const QString& textA, const std::optional<QString>& textB, bool bertSpecials);

} // namespace attnscope
