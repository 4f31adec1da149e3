#include "tokenizer/normalizers.h"

#include "tokenizer/unicodechars.h"

namespace attnscope::tok {

void BertNormalizer::normalize(NormalizedString& s) const
{
    if (m_cleanText) {
        s.filter([](char32_t c) {
            const bool control = c != U'\t' && c != U'\n' && c != U'\r' && isOtherNotUnassigned(c);
            return !(c == 0 || c == 0xFFFD || control);
        });
        s.map([](char32_t c) { return isWhitespace(c) ? char32_t(U' ') : c; });
    }
    if (m_handleChineseChars) {
        bool any = false;
        for (char32_t c : s.get())
            if (isChineseChar(c)) {
                any = true;
                break;
            }
        if (any) {
            std::vector<std::pair<char32_t, int>> dest;
            dest.reserve(size_t(s.size()) + 16);
            for (char32_t c : s.get()) {
                if (isChineseChar(c)) {
                    dest.emplace_back(U' ', 0);
                    dest.emplace_back(c, 1);
                    dest.emplace_back(U' ', 1);
                } else {
                    dest.emplace_back(c, 0);
                }
            }
            s.transform(dest, 0);
        }
    }
    if (m_stripAccents) {
        s.nfd();
        s.filter([](char32_t c) { return !isMarkNonspacing(c); });
    }
    if (m_lowercase)
        s.lowercase();
}

void StripAccentsNormalizer::normalize(NormalizedString& s) const
{
    s.filter([](char32_t c) { return !isCombiningMark(c); });
}

void UnicodeNormalizer::normalize(NormalizedString& s) const
{
    switch (m_form) {
    case NFC: s.nfc(); break;
    case NFD: s.nfd(); break;
    case NFKC: s.nfkc(); break;
    case NFKD: s.nfkd(); break;
    }
}

} // namespace attnscope::tok
