#include "tokenizer/normalizedstring.h"

#include "tokenizer/unicodechars.h"

#include <algorithm>

namespace attnscope::tok {

NormalizedString::NormalizedString(std::u32string text, int shift) : m_text(std::move(text)), m_shift(shift)
{
    m_align.reserve(m_text.size());
    for (int i = 0; i < int(m_text.size()); ++i)
        m_align.emplace_back(shift + i, shift + i + 1);
}

Span NormalizedString::originalSpan() const
{
    if (m_align.empty())
        return {m_shift, m_shift};
    return {m_align.front().first, m_align.back().second};
}

void NormalizedString::transform(const std::vector<std::pair<char32_t, int>>& dest, int initialRemoved)
{
    std::u32string text;
    std::vector<Span> align;
    text.reserve(dest.size());
    align.reserve(dest.size());
    int offset = initialRemoved;
    const int n = int(m_text.size());
    for (const auto& [c, change] : dest) {
        Span a;
        if (change > 0) {
            a = offset >= 1 ? m_align[size_t(std::min(offset, n) - 1)] : Span{m_shift, m_shift};
        } else {
            a = offset < n ? m_align[size_t(offset)] : (n > 0 ? m_align.back() : Span{m_shift, m_shift});
            ++offset;
            if (change < 0)
                offset += -change;
        }
        text.push_back(c);
        align.push_back(a);
    }
    m_text = std::move(text);
    m_align = std::move(align);
}

void NormalizedString::filter(const std::function<bool(char32_t)>& keep)
{
    if (std::all_of(m_text.begin(), m_text.end(), keep))
        return; // nothing to remove: alignments unchanged
    std::vector<std::pair<char32_t, int>> dest;
    dest.reserve(m_text.size());
    int removed = 0;
    int removedStart = 0;
    bool haveLast = false;
    char32_t last = 0;
    for (char32_t c : m_text) {
        if (keep(c)) {
            if (haveLast)
                dest.emplace_back(last, -removed);
            else
                removedStart = removed;
            last = c;
            haveLast = true;
            removed = 0;
        } else {
            ++removed;
        }
    }
    if (haveLast)
        dest.emplace_back(last, -removed);
    transform(dest, removedStart);
}

void NormalizedString::map(const std::function<char32_t(char32_t)>& f)
{
    for (char32_t& c : m_text)
        c = f(c);
}

void NormalizedString::lowercase()
{
    bool simple = true;
    for (char32_t c : m_text)
        if (c == 0x0130) {
            simple = false;
            break;
        }
    if (simple) {
        for (char32_t& c : m_text)
            c = toLowercase(c)[0];
        return;
    }
    std::vector<std::pair<char32_t, int>> dest;
    dest.reserve(m_text.size() + 4);
    for (char32_t c : m_text) {
        const std::u32string lower = toLowercase(c);
        for (size_t i = 0; i < lower.size(); ++i)
            dest.emplace_back(lower[i], i > 0 ? 1 : 0);
    }
    transform(dest, 0);
}

void NormalizedString::prepend(const std::u32string& s)
{
    if (m_text.empty() || s.empty())
        return;
    // HF: the first prepended char replaces the first char's slot, the rest and the old first char are
    // insertions, so all share the first char's alignment.
    const Span first = m_align.front();
    m_text.insert(0, s);
    m_align.insert(m_align.begin(), s.size(), first);
}

void NormalizedString::replace(const std::u32string& pattern, const std::u32string& content)
{
    if (pattern.empty() || m_text.empty())
        return;
    std::vector<Span> matches;
    for (size_t pos = m_text.find(pattern); pos != std::u32string::npos;
         pos = m_text.find(pattern, pos + pattern.size()))
        matches.emplace_back(int(pos), int(pos + pattern.size()));
    replaceRanges(matches, content);
}

void NormalizedString::replaceRuns(char32_t c, int minimumRun, const std::u32string& content)
{
    std::vector<Span> matches;
    const int n = size();
    for (int i = 0; i < n;) {
        if (m_text[size_t(i)] != c) {
            ++i;
            continue;
        }
        int j = i;
        while (j < n && m_text[size_t(j)] == c)
            ++j;
        if (j - i >= minimumRun) matches.emplace_back(i, j);
        i = j;
    }
    replaceRanges(matches, content);
}

void NormalizedString::replaceRanges(const std::vector<Span>& matches, const std::u32string& content)
{
    if (matches.empty()) return;
    std::u32string text;
    std::vector<Span> align;
    text.reserve(m_text.size());
    align.reserve(m_text.size());
    size_t last = 0;
    for (const auto& [begin, end] : matches) {
        text.append(m_text, last, size_t(begin) - last);
        align.insert(align.end(), m_align.begin() + long(last), m_align.begin() + begin);
        // Inserted chars share the alignment of the last replaced char (HF replace()).
        const Span a = end >= 1 ? m_align[size_t(end) - 1] : Span{m_shift, m_shift};
        text += content;
        align.insert(align.end(), content.size(), a);
        last = size_t(end);
    }
    text.append(m_text, last, std::u32string::npos);
    align.insert(align.end(), m_align.begin() + long(last), m_align.end());
    m_text = std::move(text);
    m_align = std::move(align);
}

void NormalizedString::strip(bool left, bool right)
{
    const int n = size();
    int lead = 0;
    if (left)
        while (lead < n && isWhitespace(m_text[size_t(lead)]))
            ++lead;
    int trail = 0;
    if (right)
        while (trail < n - lead && isWhitespace(m_text[size_t(n - 1 - trail)]))
            ++trail;
    if (lead == 0 && trail == 0)
        return;
    m_text = m_text.substr(size_t(lead), size_t(n - lead - trail));
    m_align = std::vector<Span>(m_align.begin() + lead, m_align.end() - trail);
}

// Each char's full decomposition, as (char, change) pairs for transform(): the first char of a decomposition
// replaces the original one (0), the others are insertions (+1); then canonical ordering of combining marks.
static std::vector<std::pair<char32_t, int>> decomposedChanges(const std::u32string& text, bool compatibility,
                                                               bool* changed)
{
    std::vector<std::pair<char32_t, int>> dest;
    dest.reserve(text.size());
    for (char32_t c : text) {
        const std::u32string d = decompose(c, compatibility);
        *changed = *changed || d.size() != 1 || d[0] != c;
        for (size_t i = 0; i < d.size(); ++i)
            dest.emplace_back(d[i], i > 0 ? 1 : 0);
    }
    for (size_t i = 0; i < dest.size();) {
        if (combiningClass(dest[i].first) == 0) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < dest.size() && combiningClass(dest[j].first) != 0)
            ++j;
        if (j - i > 1) {
            std::vector<char32_t> chars;
            for (size_t k = i; k < j; ++k)
                chars.push_back(dest[k].first);
            std::stable_sort(chars.begin(), chars.end(),
                             [](char32_t a, char32_t b) { return combiningClass(a) < combiningClass(b); });
            for (size_t k = i; k < j; ++k) {
                *changed = *changed || dest[k].first != chars[k - i];
                dest[k].first = chars[k - i];
            }
        }
        i = j;
    }
    return dest;
}

// Canonical composition over (char, change) pairs. A composite's change is the sum of its parts' changes minus
// one per absorbed char, which keeps transform()'s bookkeeping of original chars (and matches HF's alignments:
// "e\u0301" -> "é" aligned with the "e"; "ﬁ\u0300" -> "f" + "ì" with "ì" aligned with the accent).
static void composeChanges(std::vector<std::pair<char32_t, int>>& items, bool* changed)
{
    std::vector<std::pair<char32_t, int>> out;
    out.reserve(items.size());
    int starter = -1;  // index in out of the last starter
    int lastClass = 0; // combining class of the last char put after the starter
    for (const auto& item : items) {
        const char32_t c = item.first;
        const int cc = combiningClass(c);
        if (starter >= 0) {
            const bool adjacent = int(out.size()) - 1 == starter;
            if (adjacent || (lastClass != 0 && lastClass < cc)) {
                const char32_t composed = compose(out[size_t(starter)].first, c);
                if (composed != 0) {
                    out[size_t(starter)].first = composed;
                    out[size_t(starter)].second += item.second - 1;
                    *changed = true;
                    continue;
                }
            }
        }
        if (cc == 0)
            starter = int(out.size());
        lastClass = cc;
        out.push_back(item);
    }
    items = std::move(out);
}

void NormalizedString::decomposeAll(bool compatibility)
{
    bool changed = false;
    const std::vector<std::pair<char32_t, int>> dest = decomposedChanges(m_text, compatibility, &changed);
    if (changed)
        transform(dest, 0);
}

void NormalizedString::nfc()
{
    bool changed = false;
    std::vector<std::pair<char32_t, int>> dest = decomposedChanges(m_text, false, &changed);
    composeChanges(dest, &changed);
    if (changed)
        transform(dest, 0);
}

void NormalizedString::nfkc()
{
    bool changed = false;
    std::vector<std::pair<char32_t, int>> dest = decomposedChanges(m_text, true, &changed);
    composeChanges(dest, &changed);
    if (changed)
        transform(dest, 0);
}

Span NormalizedString::originalSpanOf(int begin, int end) const
{
    if (begin >= end) {
        const Span whole = originalSpan();
        return {whole.first + begin, whole.first + end};
    }
    return {m_align[size_t(begin)].first, m_align[size_t(end - 1)].second};
}

NormalizedString NormalizedString::slice(int begin, int end) const
{
    NormalizedString s;
    s.m_text = m_text.substr(size_t(begin), size_t(end - begin));
    s.m_align.assign(m_align.begin() + begin, m_align.begin() + end);
    s.m_shift = begin < end ? m_align[size_t(begin)].first : m_shift;
    return s;
}

std::vector<NormalizedString> NormalizedString::split(const std::vector<PatternMatch>& matches,
                                                      SplitBehavior behavior) const
{
    struct Piece
    {
        int begin, end;
        bool remove;
    };
    std::vector<Piece> pieces;
    switch (behavior) {
    case SplitBehavior::Isolated:
        for (const PatternMatch& m : matches)
            pieces.push_back({m.begin, m.end, false});
        break;
    case SplitBehavior::Removed:
        for (const PatternMatch& m : matches)
            pieces.push_back({m.begin, m.end, m.isMatch});
        break;
    case SplitBehavior::Contiguous: {
        bool previous = false;
        for (const PatternMatch& m : matches) {
            if (m.isMatch == previous && !pieces.empty())
                pieces.back().end = m.end;
            else
                pieces.push_back({m.begin, m.end, false});
            previous = m.isMatch;
        }
        break;
    }
    case SplitBehavior::MergedWithPrevious: {
        bool previous = false;
        for (const PatternMatch& m : matches) {
            if (m.isMatch && !previous && !pieces.empty())
                pieces.back().end = m.end;
            else
                pieces.push_back({m.begin, m.end, false});
            previous = m.isMatch;
        }
        break;
    }
    case SplitBehavior::MergedWithNext: {
        bool previous = false;
        for (auto it = matches.rbegin(); it != matches.rend(); ++it) {
            if (it->isMatch && !previous && !pieces.empty())
                pieces.back().begin = it->begin;
            else
                pieces.push_back({it->begin, it->end, false});
            previous = it->isMatch;
        }
        std::reverse(pieces.begin(), pieces.end());
        break;
    }
    }
    std::vector<NormalizedString> out;
    out.reserve(pieces.size());
    for (const Piece& p : pieces)
        if (!p.remove)
            out.push_back(slice(p.begin, p.end));
    return out;
}

std::vector<PatternMatch> NormalizedString::charMatches(const std::u32string& text,
                                                        const std::function<bool(char32_t)>& pred)
{
    std::vector<PatternMatch> out;
    if (text.empty()) {
        out.push_back({0, 0, false});
        return out;
    }
    int lastOffset = 0;
    const int n = int(text.size());
    for (int i = 0; i < n; ++i) {
        if (pred(text[size_t(i)])) {
            if (lastOffset < i)
                out.push_back({lastOffset, i, false});
            out.push_back({i, i + 1, true});
            lastOffset = i + 1;
        }
    }
    if (n > lastOffset)
        out.push_back({lastOffset, n, false});
    return out;
}

} // namespace attnscope::tok
