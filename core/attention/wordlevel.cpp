#include "attention/wordlevel.h"

#include <stdexcept>

namespace attnscope {

namespace {
const QString kHashes = QStringLiteral("##");
const QChar kSentencePieceSpace(0x2581); // ▁
const QChar kByteLevelSpace(0x0120);     // Ġ

bool startsWord(const QString& token, SubwordScheme scheme)
{
    switch (scheme) {
    case SubwordScheme::ContinuationHashes:
        return !token.startsWith(kHashes);
    case SubwordScheme::WordStartMarker:
        return token.startsWith(kSentencePieceSpace) || token.startsWith(kByteLevelSpace);
    case SubwordScheme::None:
        return true;
    }
    return true;
}

QString withoutMarker(const QString& token, SubwordScheme scheme)
{
    if (scheme == SubwordScheme::ContinuationHashes && token.startsWith(kHashes)) return token.mid(2);
    if (scheme == SubwordScheme::WordStartMarker &&
        (token.startsWith(kSentencePieceSpace) || token.startsWith(kByteLevelSpace)))
        return token.mid(1);
    return token;
}
} // namespace

SubwordScheme detectSubwordScheme(const QStringList& tokens)
{
    for (const QString& token : tokens)
        if (token.size() > 2 && token.startsWith(kHashes)) return SubwordScheme::ContinuationHashes;
    for (const QString& token : tokens)
        if (token.startsWith(kSentencePieceSpace) || token.startsWith(kByteLevelSpace))
            return SubwordScheme::WordStartMarker;
    return SubwordScheme::None;
}

WordGroups groupWords(const QStringList& tokens, const std::vector<bool>& special)
{
    const SubwordScheme scheme = detectSubwordScheme(tokens);
    auto isSpecial = [&](int i) { return size_t(i) < special.size() && special[size_t(i)]; };
    WordGroups groups;
    for (int i = 0; i < tokens.size(); ++i) {
        const bool newWord = i == 0 || isSpecial(i) || isSpecial(i - 1) || startsWord(tokens.at(i), scheme);
        if (newWord) {
            groups.words << (isSpecial(i) ? tokens.at(i) : withoutMarker(tokens.at(i), scheme));
            groups.special.push_back(isSpecial(i));
        } else {
            groups.words.last() += withoutMarker(tokens.at(i), scheme);
        }
        groups.wordOfToken.push_back(groups.wordCount() - 1);
    }
    return groups;
}

std::vector<float> mergeAttentionToWords(const std::vector<float>& tokenMatrix, const WordGroups& groups)
{
    const size_t n = size_t(groups.tokens()), m = size_t(groups.wordCount());
    if (tokenMatrix.size() != n * n)
        throw std::invalid_argument("mergeAttentionToWords: the matrix is not tokens × tokens");
    // Sums in double: a word of many pieces adds many small numbers.
    std::vector<double> sums(m * m, 0.0);
    std::vector<int> pieces(m, 0);
    for (size_t i = 0; i < n; ++i) {
        const size_t a = size_t(groups.wordOfToken[i]);
        ++pieces[a];
        for (size_t j = 0; j < n; ++j)
            sums[a * m + size_t(groups.wordOfToken[j])] += tokenMatrix[i * n + j];
    }
    std::vector<float> words(m * m);
    for (size_t a = 0; a < m; ++a)
        for (size_t b = 0; b < m; ++b)
            words[a * m + b] = float(sums[a * m + b] / pieces[a]);
    return words;
}

} // namespace attnscope
