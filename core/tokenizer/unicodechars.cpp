#include "tokenizer/unicodechars.h"

#include <QChar>

namespace attnscope::tok {

std::u32string decodeUtf8(const std::string& bytes, bool* ok);

std::u32string toCodePoints(const QString& text)
{
    std::u32string out;
    out.reserve(size_t(text.size()));
    const qsizetype n = text.size();
    for (qsizetype i = 0; i < n; ++i) {
        const char16_t u = text.at(i).unicode();
        if (QChar::isHighSurrogate(u) && i + 1 < n && QChar::isLowSurrogate(text.at(i + 1).unicode())) {
            out.push_back(QChar::surrogateToUcs4(u, text.at(i + 1).unicode()));
            ++i;
        } else {
            out.push_back(u); // a lone surrogate stays a code point of its own
        }
    }
    return out;
}

QString fromCodePoints(const char32_t* begin, const char32_t* end)
{
    QString out;
    out.reserve(end - begin);
    for (const char32_t* p = begin; p != end; ++p) {
        if (QChar::requiresSurrogates(*p)) {
            out.append(QChar(QChar::highSurrogate(*p)));
            out.append(QChar(QChar::lowSurrogate(*p)));
        } else {
            out.append(QChar(char16_t(*p)));
        }
    }
    return out;
}

QString fromCodePoints(const std::u32string& text)
{
    return fromCodePoints(text.data(), text.data() + text.size());
}

std::string utf8Bytes(char32_t c)
{
    std::string out;
    if (c < 0x80) {
        out.push_back(char(c));
    } else if (c < 0x800) {
        out.push_back(char(0xC0 | (c >> 6)));
        out.push_back(char(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        out.push_back(char(0xE0 | (c >> 12)));
        out.push_back(char(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(char(0x80 | (c & 0x3F)));
    } else {
        out.push_back(char(0xF0 | (c >> 18)));
        out.push_back(char(0x80 | ((c >> 12) & 0x3F)));
        out.push_back(char(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(char(0x80 | (c & 0x3F)));
    }
    return out;
}

QString fromUtf8Lossy(const std::string& bytes)
{
    bool ok = true;
    return fromCodePoints(decodeUtf8(bytes, &ok));
}

std::u32string fromUtf8Strict(const std::string& bytes, bool* ok)
{
    *ok = true;
    return decodeUtf8(bytes, ok);
}

Utf8Sequence readUtf8Sequence(const unsigned char* s, size_t n)
{
    const unsigned char b = s[0];
    if (b < 0x80) return {b, 1, true};
    int need = 0; // continuation bytes
    char32_t cp = 0;
    unsigned char lo = 0x80, hi = 0xBF; // the allowed range of the second byte (RFC 3629's table)
    if (b >= 0xC2 && b <= 0xDF) {
        need = 1;
        cp = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
        need = 2;
        cp = b & 0x0F;
        if (b == 0xE0) lo = 0xA0; // no overlong forms
        if (b == 0xED) hi = 0x9F; // no surrogates
    } else if (b >= 0xF0 && b <= 0xF4) {
        need = 3;
        cp = b & 0x07;
        if (b == 0xF0) lo = 0x90; // no overlong forms
        if (b == 0xF4) hi = 0x8F; // nothing above U+10FFFF
    } else {
        return {0xFFFD, 1, false}; // a continuation byte alone, C0/C1 (overlong), F5..FF
    }
    for (int k = 1; k <= need; ++k) {
        if (size_t(k) >= n || s[k] < lo || s[k] > hi)
            return {0xFFFD, k, false}; // the valid prefix is skipped
        cp = (cp << 6) | (s[k] & 0x3F);
        lo = 0x80;
        hi = 0xBF;
    }
    return {cp, need + 1, true};
}

std::u32string decodeUtf8(const std::string& bytes, bool* ok)
{
    // Follows the WHATWG / Rust "maximal subpart" rule: each maximal invalid prefix becomes one U+FFFD.
    std::u32string out;
    const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
    for (size_t i = 0; i < bytes.size();) {
        const Utf8Sequence sequence = readUtf8Sequence(s + i, bytes.size() - i);
        out.push_back(sequence.codePoint);
        if (!sequence.valid) *ok = false;
        i += size_t(sequence.length);
    }
    return out;
}

bool isWhitespace(char32_t c)
{
    switch (c) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x20: case 0x85: case 0xA0: case 0x1680:
    case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
        return true;
    default:
        return c >= 0x2000 && c <= 0x200A;
    }
}

static QChar::Category category(char32_t c)
{
    return c > 0x10FFFF ? QChar::Other_NotAssigned : QChar::category(uint(c));
}

bool isLetter(char32_t c)
{
    switch (category(c)) {
    case QChar::Letter_Uppercase: case QChar::Letter_Lowercase: case QChar::Letter_Titlecase:
    case QChar::Letter_Modifier: case QChar::Letter_Other:
        return true;
    default:
        return false;
    }
}

bool isNumber(char32_t c)
{
    switch (category(c)) {
    case QChar::Number_DecimalDigit: case QChar::Number_Letter: case QChar::Number_Other:
        return true;
    default:
        return false;
    }
}

bool isPunctuation(char32_t c)
{
    if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126))
        return true;
    switch (category(c)) {
    case QChar::Punctuation_Connector: case QChar::Punctuation_Dash: case QChar::Punctuation_Open:
    case QChar::Punctuation_Close: case QChar::Punctuation_InitialQuote: case QChar::Punctuation_FinalQuote:
    case QChar::Punctuation_Other:
        return true;
    default:
        return false;
    }
}

bool isOtherNotUnassigned(char32_t c)
{
    if (c >= 0xD800 && c <= 0xDFFF)
        return true;
    switch (category(c)) {
    case QChar::Other_Control: case QChar::Other_Format: case QChar::Other_PrivateUse: case QChar::Other_Surrogate:
        return true;
    default:
        return false;
    }
}

bool isMarkNonspacing(char32_t c)
{
    return category(c) == QChar::Mark_NonSpacing;
}

bool isCombiningMark(char32_t c)
{
    const QChar::Category cat = category(c);
    return cat == QChar::Mark_NonSpacing || cat == QChar::Mark_SpacingCombining || cat == QChar::Mark_Enclosing;
}

bool isWordChar(char32_t c)
{
    if (c == 0x200C || c == 0x200D)
        return true;
    const QChar::Category cat = category(c);
    return isLetter(c) || isNumber(c) || isCombiningMark(c) || cat == QChar::Punctuation_Connector;
}

bool isChineseChar(char32_t c)
{
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

std::u32string toLowercase(char32_t c)
{
    if (c < 0x80)
        return std::u32string(1, (c >= U'A' && c <= U'Z') ? c + 32 : c);
    if (c == 0x0130) // LATIN CAPITAL LETTER I WITH DOT ABOVE: SpecialCasing's only unconditional multi-char lowercase
        return std::u32string{U'i', 0x0307};
    if (c > 0x10FFFF)
        return std::u32string(1, c);
    return std::u32string(1, char32_t(QChar::toLower(uint(c))));
}

std::u32string decompose(char32_t c, bool compatibility)
{
    if (c < 0xA0) // nothing below U+00A0 decomposes
        return std::u32string(1, c);
    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return std::u32string(1, c);
    // Hangul syllables decompose algorithmically.
    if (c >= 0xAC00 && c <= 0xD7A3) {
        const char32_t s = c - 0xAC00;
        std::u32string out{char32_t(0x1100 + s / 588), char32_t(0x1161 + (s % 588) / 28)};
        if (s % 28)
            out.push_back(0x11A7 + s % 28);
        return out;
    }
    const QChar::Decomposition tag = QChar::decompositionTag(uint(c));
    if (tag == QChar::NoDecomposition || (!compatibility && tag != QChar::Canonical))
        return std::u32string(1, c);
    const std::u32string direct = toCodePoints(QChar::decomposition(uint(c)));
    std::u32string out;
    for (char32_t d : direct)
        out += decompose(d, compatibility);
    return out;
}

int combiningClass(char32_t c)
{
    if (c < 0x300)
        return 0;
    return c > 0x10FFFF ? 0 : QChar::combiningClass(uint(c));
}

char32_t compose(char32_t first, char32_t second)
{
    // Hangul LV and LVT.
    if (first >= 0x1100 && first < 0x1113 && second >= 0x1161 && second < 0x1176)
        return 0xAC00 + ((first - 0x1100) * 21 + (second - 0x1161)) * 28;
    if (first >= 0xAC00 && first <= 0xD7A3 && (first - 0xAC00) % 28 == 0 && second > 0x11A7 && second < 0x11C3)
        return first + (second - 0x11A7);
    QString pair = fromCodePoints(std::u32string{first, second});
    const std::u32string composed = toCodePoints(pair.normalized(QString::NormalizationForm_C));
    if (composed.size() == 1)
        return composed[0];
    return 0;
}

} // namespace attnscope::tok
