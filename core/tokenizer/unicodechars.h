#pragma once

// Code-point level text helpers for the tokenizers. Hugging Face `tokenizers` works on Rust `char`s
// (Unicode scalar values); we work on std::u32string and convert QString (UTF-16) only at the boundary.

#include <QString>

#include <string>

namespace attnscope::tok {

std::u32string toCodePoints(const QString& text);
QString fromCodePoints(const std::u32string& text);
QString fromCodePoints(const char32_t* begin, const char32_t* end);
// UTF-8 bytes of one code point (1–4).
std::string utf8Bytes(char32_t c);
// Decodes UTF-8 the way Rust's String::from_utf8_lossy does (each invalid sequence -> U+FFFD).
QString fromUtf8Lossy(const std::string& bytes);
// Strict UTF-8 decoding (a leading BOM is kept as U+FEFF); *ok is false on any invalid sequence.
std::u32string fromUtf8Strict(const std::string& bytes, bool* ok);
// The UTF-8 sequence at the start of bytes[0, size) (size ≥ 1) as RFC 3629 allows it (no overlong forms,
// surrogates or code points above U+10FFFF): its code point and length (1–4). Where it is invalid: valid
// false, code point U+FFFD and the length of its maximal subpart (at least 1), the bytes one U+FFFD replaces
// (the WHATWG / Rust rule). The one UTF-8 reader: the decoders above and the CLI's check of text files.
struct Utf8Sequence
{
    char32_t codePoint = 0;
    int length = 1;
    bool valid = false;
};
Utf8Sequence readUtf8Sequence(const unsigned char* bytes, size_t size);

// Rust char::is_whitespace (the Unicode White_Space property); also what Oniguruma's \s matches.
bool isWhitespace(char32_t c);
bool isLetter(char32_t c);       // \p{L}: Lu Ll Lt Lm Lo
bool isNumber(char32_t c);       // \p{N}: Nd Nl No (Rust char::is_numeric)
bool isPunctuation(char32_t c);  // ASCII punctuation or \p{P} (BertPreTokenizer, Punctuation)
bool isOtherNotUnassigned(char32_t c); // Cc Cf Co Cs: what BertNormalizer's clean_text removes
bool isMarkNonspacing(char32_t c);     // Mn
bool isCombiningMark(char32_t c);      // Mn Mc Me
bool isWordChar(char32_t c);           // regex \w
bool isChineseChar(char32_t c);        // the CJK ideograph blocks BertNormalizer pads with spaces

// Rust char::to_lowercase: the full (unconditional) mapping, so İ -> i̇ (two code points) and Σ -> σ always.
std::u32string toLowercase(char32_t c);

// Canonical (or compatibility) decomposition of one code point, fully recursive.
std::u32string decompose(char32_t c, bool compatibility);
int combiningClass(char32_t c);
// Canonical composition of a starter and a following character, or 0 when they do not compose.
char32_t compose(char32_t first, char32_t second);

} // namespace attnscope::tok
