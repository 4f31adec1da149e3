#pragma once

#include <QStringList>
#include <vector>

namespace attnscope {

// Words made of subword tokens, and attention between words the way Clark et al. 2019 ("What Does BERT
// Look At?", §2) merge it: attention *to* a word is the sum of the attention to its pieces (a query's
// row still sums to 1), attention *from* a word is the mean of its pieces' rows.
struct WordGroups
{
    std::vector<int> wordOfToken; // per token: its word's index, 0..words()-1, non-decreasing
    QStringList words;            // per word: its pieces joined without their markers ("kedi", "[CLS]")
    std::vector<bool> special;    // per word: a special token ([CLS], [SEP], <s>...) is its own word

    int wordCount() const { return int(words.size()); }
    int tokens() const { return int(wordOfToken.size()); }
};

// How a vocabulary marks word boundaries: WordPiece puts "##" on the pieces that continue a word;
// SentencePiece ("▁") and byte-level BPE ("Ġ") put a marker on the piece that starts one.
enum class SubwordScheme { None, ContinuationHashes, WordStartMarker };
SubwordScheme detectSubwordScheme(const QStringList& vocabularyTokens);

// Groups tokens into words from their vocabulary strings (markers included). Special tokens are always
// words of their own; so is a token that follows one.
WordGroups groupWords(const QStringList& vocabularyTokens, const std::vector<bool>& special);

// The token×token matrix P (row-major, queries × keys, both the same token sequence) merged into
// words × words: W[a, b] = mean over query pieces i of a of (sum over key pieces j of b of P[i, j]).
std::vector<float> mergeAttentionToWords(const std::vector<float>& tokenMatrix, const WordGroups& groups);

} // namespace attnscope
