#pragma once

// A piece of input text as it goes through normalisation and pre-tokenisation, with, for every code point
// of the normalised text, the span [begin, end) of ORIGINAL code points it came from. Mirrors Hugging Face's
// NormalizedString (which aligns UTF-8 bytes) on code points; alignments here are absolute positions in the
// whole input text, so a slice needs no shift.

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace attnscope::tok {

using Span = std::pair<int, int>;

// What split() does with the pieces a pattern matched (HF SplitDelimiterBehavior).
enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

// One piece of a string as found by a pattern: [begin, end) in normalised code points, and whether it matched.
struct PatternMatch
{
    int begin = 0;
    int end = 0;
    bool isMatch = false;
};

class NormalizedString
{
public:
    NormalizedString() = default;
    // The whole text, or a part of it starting at original position `shift`.
    explicit NormalizedString(std::u32string text, int shift = 0);

    const std::u32string& get() const { return m_text; }
    const std::vector<Span>& alignments() const { return m_align; }
    int size() const { return int(m_text.size()); }
    bool empty() const { return m_text.empty(); }
    // Span of the original text this piece covers (HF offsets_original()).
    Span originalSpan() const;
    int originalShift() const { return m_shift; }

    // HF transform(): each output char with change 0 (replaces the next input char), +1 (inserted after the
    // previous one, shares its alignment) or -N (replaces the next input char and removes N more);
    // `initialRemoved` input chars are dropped at the very beginning.
    void transform(const std::vector<std::pair<char32_t, int>>& dest, int initialRemoved);
    void filter(const std::function<bool(char32_t)>& keep);
    void map(const std::function<char32_t(char32_t)>& f);
    void lowercase();
    void prepend(const std::u32string& s);
    // Replaces every (non-overlapping, leftmost) occurrence of `pattern` by `content`.
    void replace(const std::u32string& pattern, const std::u32string& content);
    // Replaces every run of at least `minimumRun` `c`s (the regex "c{minimumRun,}") by `content`.
    void replaceRuns(char32_t c, int minimumRun, const std::u32string& content);
    // Replaces each normalised range [begin, end) (sorted, disjoint) by `content`.
    void replaceRanges(const std::vector<Span>& matches, const std::u32string& content);
    void lstrip() { strip(true, false); }
    void rstrip() { strip(false, true); }
    void strip(bool left, bool right);
    void nfd() { decomposeAll(false); }
    void nfkd() { decomposeAll(true); }
    void nfc();
    void nfkc();

    // Original span of normalised code points [begin, end) (HF convert_offsets(Normalized)).
    Span originalSpanOf(int begin, int end) const;
    NormalizedString slice(int begin, int end) const;
    std::vector<NormalizedString> split(const std::vector<PatternMatch>& matches, SplitBehavior behavior) const;

    // Matches of a per-character predicate: each matching char alone, the runs between them as non-matches.
    static std::vector<PatternMatch> charMatches(const std::u32string& text, const std::function<bool(char32_t)>& pred);

private:
    void decomposeAll(bool compatibility);

    std::u32string m_text;
    std::vector<Span> m_align;
    int m_shift = 0;
};

} // namespace attnscope::tok
