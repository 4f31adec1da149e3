#include "tokenizer/addedvocabulary.h"

#include "tokenizer/unicodechars.h"

#include <algorithm>

namespace attnscope::tok {

void AddedVocabulary::setTokens(std::vector<AddedToken> tokens, const Normalizer* normalizer)
{
    m_tokens.clear();
    m_byId.clear();
    m_byContent.clear();
    m_original = {};
    m_normalized = {};
    for (AddedToken& t : tokens) {
        if (t.content.empty())
            continue;
        const auto existing = m_byContent.find(t.content);
        if (existing != m_byContent.end()) { // the same content again: the later definition wins
            m_tokens[existing->second] = t;
            m_byId[t.id] = existing->second;
            continue;
        }
        m_byContent[t.content] = m_tokens.size();
        m_byId[t.id] = m_tokens.size();
        m_tokens.push_back(t);
    }
    for (size_t i = 0; i < m_tokens.size(); ++i) {
        const AddedToken& t = m_tokens[i];
        if (t.normalized) {
            std::u32string pattern = t.content;
            if (normalizer) {
                NormalizedString s(t.content);
                normalizer->normalize(s);
                pattern = s.get();
            }
            if (!pattern.empty())
                m_normalized.patterns.emplace_back(pattern, int(i));
        } else {
            m_original.patterns.emplace_back(t.content, int(i));
        }
    }
    buildMatcher(m_original);
    buildMatcher(m_normalized);
}

void AddedVocabulary::buildMatcher(Matcher& matcher)
{
    for (int i = 0; i < int(matcher.patterns.size()); ++i)
        matcher.byFirstChar[matcher.patterns[size_t(i)].first[0]].push_back(i);
    for (auto& [c, list] : matcher.byFirstChar) {
        std::stable_sort(list.begin(), list.end(), [&matcher](int a, int b) {
            return matcher.patterns[size_t(a)].first.size() > matcher.patterns[size_t(b)].first.size();
        });
    }
}

const AddedToken* AddedVocabulary::byId(int id) const
{
    const auto it = m_byId.find(id);
    return it == m_byId.end() ? nullptr : &m_tokens[it->second];
}

const AddedToken* AddedVocabulary::byContent(const std::u32string& content) const
{
    const auto it = m_byContent.find(content);
    return it == m_byContent.end() ? nullptr : &m_tokens[it->second];
}

bool AddedVocabulary::isSpecialId(int id) const
{
    const AddedToken* t = byId(id);
    return t && t->special;
}

std::vector<Split> AddedVocabulary::splitWith(const NormalizedString& s, const Matcher& matcher) const
{
    const std::u32string& text = s.get();
    const int n = int(text.size());
    if (matcher.empty() || n == 0)
        return {Split{s, std::nullopt}};

    struct Found
    {
        int begin, end, token;
    };
    std::vector<Found> found;
    int startOffset = 0;
    int i = 0;
    while (i < n) {
        // Leftmost-longest: the first position where any pattern matches, the longest pattern there.
        int matchIndex = -1;
        const auto it = matcher.byFirstChar.find(text[size_t(i)]);
        if (it != matcher.byFirstChar.end()) {
            for (int p : it->second) {
                const std::u32string& pattern = matcher.patterns[size_t(p)].first;
                if (int(pattern.size()) <= n - i && text.compare(size_t(i), pattern.size(), pattern) == 0) {
                    matchIndex = p;
                    break;
                }
            }
        }
        if (matchIndex < 0) {
            ++i;
            continue;
        }
        const int tokenIndex = matcher.patterns[size_t(matchIndex)].second;
        const AddedToken& token = m_tokens[size_t(tokenIndex)];
        int begin = i;
        int end = i + int(matcher.patterns[size_t(matchIndex)].first.size());
        i = end; // the search goes on after this match even when it is discarded below
        if (token.singleWord) {
            const bool startSpace = begin == 0 || !isWordChar(text[size_t(begin - 1)]);
            const bool stopSpace = end == n || !isWordChar(text[size_t(end)]);
            if (!startSpace || !stopSpace)
                continue;
        }
        if (token.lstrip) {
            int newBegin = begin;
            while (newBegin > 0 && isWhitespace(text[size_t(newBegin - 1)]))
                --newBegin;
            begin = std::max(newBegin, startOffset);
        }
        if (token.rstrip) {
            while (end < n && isWhitespace(text[size_t(end)]))
                ++end;
            i = std::max(i, end);
        }
        found.push_back({begin, end, tokenIndex});
        startOffset = end;
    }

    std::vector<Split> out;
    int prev = 0;
    for (const Found& f : found) {
        if (prev < f.begin)
            out.push_back(Split{s.slice(prev, f.begin), std::nullopt});
        NormalizedString piece = s.slice(f.begin, f.end);
        std::vector<ModelToken> tokens{
            ModelToken{m_tokens[size_t(f.token)].id, piece.get(), 0, piece.size()}};
        out.push_back(Split{std::move(piece), std::move(tokens)});
        prev = f.end;
    }
    if (prev < n)
        out.push_back(Split{s.slice(prev, n), std::nullopt});
    return out;
}

std::vector<Split> AddedVocabulary::extractAndNormalize(const std::u32string& text, const Normalizer* normalizer) const
{
    std::vector<Split> splits;
    if (text.empty())
        return splits;
    for (Split& s : splitWith(NormalizedString(text), m_original))
        if (!s.normalized.empty())
            splits.push_back(std::move(s));

    std::vector<Split> out;
    for (Split& s : splits) {
        if (s.tokens) {
            out.push_back(std::move(s));
            continue;
        }
        if (normalizer)
            normalizer->normalize(s.normalized);
        for (Split& piece : splitWith(s.normalized, m_normalized))
            if (!piece.normalized.empty())
                out.push_back(std::move(piece));
    }
    return out;
}

} // namespace attnscope::tok
