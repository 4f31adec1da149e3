#include "tokenizer/splitpatterns.h"

#include "tokenizer/unicodechars.h"

namespace attnscope::tok {

namespace {

bool isOther(char32_t c) // [^\s\p{L}\p{N}]
{
    return !isWhitespace(c) && !isLetter(c) && !isNumber(c);
}

bool isNewline(char32_t c)
{
    return c == U'\r' || c == U'\n';
}

char32_t foldAscii(char32_t c)
{
    if (c >= U'A' && c <= U'Z')
        return c + 32;
    if (c == 0x017F) // LATIN SMALL LETTER LONG S folds to s under Unicode case-insensitive matching
        return U's';
    return c;
}

// 's|'t|'re|'ve|'m|'ll|'d at i; returns the match end or -1.
int contraction(const std::u32string& t, int i, bool caseInsensitive)
{
    const int n = int(t.size());
    if (t[size_t(i)] != U'\'' || i + 1 >= n)
        return -1;
    auto at = [&](int k) { return caseInsensitive ? foldAscii(t[size_t(k)]) : t[size_t(k)]; };
    const char32_t a = at(i + 1);
    if (a == U's' || a == U't' || a == U'm' || a == U'd')
        return i + 2;
    if (i + 2 < n) {
        const char32_t b = at(i + 2);
        if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l'))
            return i + 3;
    }
    return -1;
}

int runOf(const std::u32string& t, int i, bool (*pred)(char32_t), int maxLength = -1)
{
    const int n = int(t.size());
    int j = i;
    while (j < n && pred(t[size_t(j)]) && (maxLength < 0 || j - i < maxLength))
        ++j;
    return j;
}

// \s+(?!\S) then \s+ at i (t[i] is whitespace).
int whitespaceTail(const std::u32string& t, int i)
{
    const int n = int(t.size());
    const int j = runOf(t, i, isWhitespace);
    if (j == n)
        return j;
    if (j - 1 > i)
        return j - 1;
    return j;
}

int gpt2Match(const std::u32string& t, int i)
{
    const int n = int(t.size());
    const char32_t c = t[size_t(i)];
    if (int e = contraction(t, i, false); e >= 0)
        return e;
    const bool space = c == U' ' && i + 1 < n;
    const int s = space ? i + 1 : i;
    if (isLetter(c) || (space && isLetter(t[size_t(s)])))
        return runOf(t, isLetter(c) ? i : s, isLetter);
    if (isNumber(c) || (space && isNumber(t[size_t(s)])))
        return runOf(t, isNumber(c) ? i : s, isNumber);
    if (isOther(c) || (space && isOther(t[size_t(s)])))
        return runOf(t, isOther(c) ? i : s, isOther);
    return whitespaceTail(t, i);
}

int llamaMatch(const std::u32string& t, int i, int maxDigits)
{
    const int n = int(t.size());
    const char32_t c = t[size_t(i)];
    if (int e = contraction(t, i, true); e >= 0)
        return e;
    // [^\r\n\p{L}\p{N}]?\p{L}+
    if (isLetter(c))
        return runOf(t, i, isLetter);
    if (!isNewline(c) && !isNumber(c) && i + 1 < n && isLetter(t[size_t(i + 1)]))
        return runOf(t, i + 1, isLetter);
    // \p{N}{1,maxDigits}
    if (isNumber(c))
        return runOf(t, i, isNumber, maxDigits);
    //  ?[^\s\p{L}\p{N}]+[\r\n]*
    if (isOther(c) || (c == U' ' && i + 1 < n && isOther(t[size_t(i + 1)]))) {
        const int j = runOf(t, isOther(c) ? i : i + 1, isOther);
        return runOf(t, j, isNewline);
    }
    // \s*[\r\n]+ : up to the last newline of the whitespace run
    const int j = runOf(t, i, isWhitespace);
    for (int p = j - 1; p >= i; --p)
        if (isNewline(t[size_t(p)]))
            return p + 1;
    return whitespaceTail(t, i);
}

int whitespacePretokMatch(const std::u32string& t, int i) // \w+|[^\w\s]+ ; -1 on whitespace
{
    const char32_t c = t[size_t(i)];
    if (isWordChar(c))
        return runOf(t, i, isWordChar);
    if (!isWhitespace(c))
        return runOf(t, i, [](char32_t x) { return !isWordChar(x) && !isWhitespace(x); });
    return -1;
}

} // namespace

std::optional<SplitRegex> recogniseSplitRegex(const QString& regex)
{
    static const QString gpt2 =
        QStringLiteral(R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)");
    static const QString llama3 = QStringLiteral(
        R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)");
    static const QString qwen2 = QStringLiteral(
        R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)");
    static const QString whitespace = QStringLiteral(R"(\w+|[^\w\s]+)");
    if (regex == gpt2)
        return SplitRegex::Gpt2;
    if (regex == llama3)
        return SplitRegex::Llama3;
    if (regex == qwen2)
        return SplitRegex::Qwen2;
    if (regex == whitespace)
        return SplitRegex::Whitespace;
    return std::nullopt;
}

std::vector<PatternMatch> findRegexMatches(SplitRegex pattern, const std::u32string& text)
{
    std::vector<PatternMatch> out;
    const int n = int(text.size());
    if (n == 0) {
        out.push_back({0, 0, false});
        return out;
    }
    int prev = 0;
    int i = 0;
    while (i < n) {
        int end = -1;
        switch (pattern) {
        case SplitRegex::Gpt2: end = gpt2Match(text, i); break;
        case SplitRegex::Llama3: end = llamaMatch(text, i, 3); break;
        case SplitRegex::Qwen2: end = llamaMatch(text, i, 1); break;
        case SplitRegex::Whitespace: end = whitespacePretokMatch(text, i); break;
        }
        if (end <= i) { // no match starting here
            ++i;
            continue;
        }
        if (prev != i)
            out.push_back({prev, i, false});
        out.push_back({i, end, true});
        prev = i = end;
    }
    if (prev != n)
        out.push_back({prev, n, false});
    return out;
}

std::vector<PatternMatch> findLiteralMatches(const std::u32string& pattern, const std::u32string& text)
{
    std::vector<PatternMatch> out;
    const int n = int(text.size());
    if (pattern.empty()) {
        out.push_back({0, n, false});
        return out;
    }
    if (n == 0) {
        out.push_back({0, 0, false});
        return out;
    }
    int prev = 0;
    size_t pos = text.find(pattern);
    while (pos != std::u32string::npos) {
        if (prev != int(pos))
            out.push_back({prev, int(pos), false});
        out.push_back({int(pos), int(pos + pattern.size()), true});
        prev = int(pos + pattern.size());
        pos = text.find(pattern, size_t(prev));
    }
    if (prev != n)
        out.push_back({prev, n, false});
    return out;
}

} // namespace attnscope::tok
