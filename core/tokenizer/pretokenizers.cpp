#include "tokenizer/pretokenizers.h"

#include "tokenizer/unicodechars.h"

namespace attnscope::tok {

const std::array<char32_t, 256>& byteToUnicode()
{
    static const std::array<char32_t, 256> table = [] {
        std::array<char32_t, 256> t{};
        std::array<bool, 256> direct{};
        for (int b = '!'; b <= '~'; ++b)
            direct[size_t(b)] = true;
        for (int b = 0xA1; b <= 0xAC; ++b)
            direct[size_t(b)] = true;
        for (int b = 0xAE; b <= 0xFF; ++b)
            direct[size_t(b)] = true;
        int n = 0;
        for (int b = 0; b < 256; ++b)
            t[size_t(b)] = direct[size_t(b)] ? char32_t(b) : char32_t(256 + n++);
        return t;
    }();
    return table;
}

int unicodeToByte(char32_t c)
{
    static const std::array<int, 512> inverse = [] {
        std::array<int, 512> inv{};
        inv.fill(-1);
        const auto& t = byteToUnicode();
        for (int b = 0; b < 256; ++b)
            inv[size_t(t[size_t(b)])] = b;
        return inv;
    }();
    return c < 512 ? inverse[size_t(c)] : -1;
}

void BertPreTokenizer::preTokenize(std::vector<Split>& splits) const
{
    splitEach(splits, [](const NormalizedString& s) {
        return s.split(NormalizedString::charMatches(s.get(), isWhitespace), SplitBehavior::Removed);
    });
    splitEach(splits, [](const NormalizedString& s) {
        return s.split(NormalizedString::charMatches(s.get(), isPunctuation), SplitBehavior::Isolated);
    });
}

void ByteLevelPreTokenizer::preTokenize(std::vector<Split>& splits) const
{
    splitEach(splits, [this](const NormalizedString& input) {
        NormalizedString s = input;
        if (m_addPrefixSpace && (s.empty() || s.get()[0] != U' '))
            s.prepend(U" ");
        if (m_useRegex)
            return s.split(findRegexMatches(SplitRegex::Gpt2, s.get()), SplitBehavior::Isolated);
        return std::vector<NormalizedString>{s};
    });
    const auto& table = byteToUnicode();
    for (Split& split : splits) {
        if (split.tokens)
            continue;
        const std::u32string& text = split.normalized.get();
        bool ascii = true;
        for (char32_t c : text)
            if (c >= 0x80) {
                ascii = false;
                break;
            }
        if (ascii) { // one byte per char: a plain map keeps the alignments
            split.normalized.map([&table](char32_t c) { return table[size_t(c)]; });
            continue;
        }
        std::vector<std::pair<char32_t, int>> dest;
        dest.reserve(text.size() * 2);
        for (char32_t c : text) {
            const std::string bytes = utf8Bytes(c);
            for (size_t i = 0; i < bytes.size(); ++i)
                dest.emplace_back(table[size_t(static_cast<unsigned char>(bytes[i]))], i > 0 ? 1 : 0);
        }
        split.normalized.transform(dest, 0);
    }
}

void MetaspacePreTokenizer::preTokenize(std::vector<Split>& splits) const
{
    splitEach(splits, [this](const NormalizedString& input) {
        NormalizedString s = input;
        const std::u32string rep(1, m_replacement);
        s.replace(U" ", rep);
        const bool startsWithRep = !s.empty() && s.get()[0] == m_replacement;
        if (m_scheme == PrependScheme::Always && !startsWithRep)
            s.prepend(rep);
        else if (m_scheme == PrependScheme::First && !startsWithRep && s.originalSpan().first == 0)
            s.prepend(rep);
        if (!m_split)
            return std::vector<NormalizedString>{s};
        const char32_t r = m_replacement;
        return s.split(NormalizedString::charMatches(s.get(), [r](char32_t c) { return c == r; }),
                       SplitBehavior::MergedWithNext);
    });
}

void SplitPreTokenizer::preTokenize(std::vector<Split>& splits) const
{
    splitEach(splits, [this](const NormalizedString& s) {
        std::vector<PatternMatch> matches =
            m_regex ? findRegexMatches(*m_regex, s.get()) : findLiteralMatches(m_literal, s.get());
        if (m_invert)
            for (PatternMatch& m : matches)
                m.isMatch = !m.isMatch;
        return s.split(matches, m_behavior);
    });
}

void WhitespacePreTokenizer::preTokenize(std::vector<Split>& splits) const
{
    splitEach(splits, [](const NormalizedString& s) {
        std::vector<PatternMatch> matches = findRegexMatches(SplitRegex::Whitespace, s.get());
        for (PatternMatch& m : matches)
            m.isMatch = !m.isMatch;
        return s.split(matches, SplitBehavior::Removed);
    });
}

void WhitespaceSplitPreTokenizer::preTokenize(std::vector<Split>& splits) const
{
    splitEach(splits, [](const NormalizedString& s) {
        return s.split(NormalizedString::charMatches(s.get(), isWhitespace), SplitBehavior::Removed);
    });
}

void PunctuationPreTokenizer::preTokenize(std::vector<Split>& splits) const
{
    splitEach(splits, [this](const NormalizedString& s) {
        return s.split(NormalizedString::charMatches(s.get(), isPunctuation), m_behavior);
    });
}

void DigitsPreTokenizer::preTokenize(std::vector<Split>& splits) const
{
    splitEach(splits, [this](const NormalizedString& s) {
        return s.split(NormalizedString::charMatches(s.get(), isNumber),
                       m_individual ? SplitBehavior::Isolated : SplitBehavior::Contiguous);
    });
}

} // namespace attnscope::tok
