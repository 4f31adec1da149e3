#include "tokenizer/bpemodel.h"

#include "tokenizer/tokenizer.h"
#include "tokenizer/unicodechars.h"

#include <queue>

namespace attnscope::tok {

namespace {
constexpr size_t kCacheCapacity = 10000;
constexpr size_t kCacheMaxWordLength = 256;
} // namespace

BpeModel::BpeModel(Vocabulary vocab, const std::vector<std::pair<std::u32string, std::u32string>>& merges,
                   BpeOptions options)
    : VocabularyModel(std::move(vocab)), m_options(std::move(options))
{
    const size_t prefixLength = m_options.continuingSubwordPrefix ? m_options.continuingSubwordPrefix->size() : 0;
    m_merges.reserve(merges.size());
    for (size_t rank = 0; rank < merges.size(); ++rank) {
        const auto& [a, b] = merges[rank];
        const std::optional<int> aId = m_vocab.find(a);
        const std::optional<int> bId = m_vocab.find(b);
        if (!aId || !bId)
            throw TokenizerError(QStringLiteral("merge %1 ('%2 %3') uses a token that is not in the vocabulary")
                                     .arg(rank + 1)
                                     .arg(fromCodePoints(a), fromCodePoints(b))
                                     .toStdString());
        std::u32string merged = a;
        merged.append(b, std::min(prefixLength, b.size()), std::u32string::npos);
        const std::optional<int> newId = m_vocab.find(merged);
        if (!newId)
            throw TokenizerError(QStringLiteral("merge %1 ('%2 %3') gives '%4', which is not in the vocabulary")
                                     .arg(rank + 1)
                                     .arg(fromCodePoints(a), fromCodePoints(b), fromCodePoints(merged))
                                     .toStdString());
        m_merges[pairKey(*aId, *bId)] = MergeValue{int(rank), *newId}; // a later duplicate wins, as in HF
    }
    m_byteTokens.assign(256, -1);
    if (m_options.byteFallback) {
        for (int b = 0; b < 256; ++b) {
            const QString name = QStringLiteral("<0x%1>").arg(b, 2, 16, QLatin1Char('0')).toUpper().replace(
                QStringLiteral("<0X"), QStringLiteral("<0x"));
            if (const std::optional<int> id = m_vocab.find(toCodePoints(name)))
                m_byteTokens[size_t(b)] = *id;
        }
    }
}

std::vector<ModelToken> BpeModel::tokenize(const std::u32string& piece) const
{
    if (piece.empty())
        return {};
    if (m_options.ignoreMerges) {
        if (const std::optional<int> id = m_vocab.find(piece))
            return {ModelToken{*id, piece, 0, int(piece.size())}};
    }
    if (piece.size() < kCacheMaxWordLength) {
        std::lock_guard<std::mutex> lock(m_cacheMutex);
        const auto it = m_cache.find(piece);
        if (it != m_cache.end())
            return it->second;
    }
    std::vector<ModelToken> tokens = mergeWord(piece);
    if (piece.size() < kCacheMaxWordLength) {
        std::lock_guard<std::mutex> lock(m_cacheMutex);
        if (m_cache.size() < kCacheCapacity)
            m_cache.emplace(piece, tokens);
    }
    return tokens;
}

std::vector<ModelToken> BpeModel::mergeWord(const std::u32string& word) const
{
    std::vector<Symbol> symbols;
    symbols.reserve(word.size());
    auto add = [&symbols](int id, int begin, int end) {
        const int index = int(symbols.size());
        if (index > 0)
            symbols.back().next = index;
        symbols.push_back(Symbol{id, begin, end, index - 1, -1, false});
    };

    // Pending unknown token: (id, begin, end), fused with neighbours when fuse_unk.
    bool haveUnk = false;
    int unkId = 0, unkBegin = 0, unkEnd = 0;
    const int n = int(word.size());
    std::u32string s;
    for (int i = 0; i < n; ++i) {
        s.assign(1, word[size_t(i)]);
        if (i > 0 && m_options.continuingSubwordPrefix)
            s.insert(0, *m_options.continuingSubwordPrefix);
        if (i == n - 1 && m_options.endOfWordSuffix)
            s += *m_options.endOfWordSuffix;
        if (const std::optional<int> id = m_vocab.find(s)) {
            if (haveUnk) {
                add(unkId, unkBegin, unkEnd);
                haveUnk = false;
            }
            add(*id, i, i + 1);
            continue;
        }
        if (m_options.byteFallback) {
            // HF falls back on the bytes of the (prefixed/suffixed) string; all of them must exist.
            std::string bytes;
            for (char32_t c : s)
                bytes += utf8Bytes(c);
            bool all = true;
            for (unsigned char b : bytes)
                if (m_byteTokens[b] < 0) {
                    all = false;
                    break;
                }
            if (all) {
                // NB: like HF, a pending unknown token is not flushed here.
                for (unsigned char b : bytes)
                    add(m_byteTokens[b], i, i + 1);
                continue;
            }
        }
        if (m_options.unkToken) {
            const std::optional<int> id = m_vocab.find(*m_options.unkToken);
            if (!id)
                throw TokenizerError(QStringLiteral("BPE: the unknown token '%1' is not in the vocabulary")
                                         .arg(fromCodePoints(*m_options.unkToken))
                                         .toStdString());
            if (haveUnk && m_options.fuseUnk) {
                unkEnd = i + 1;
            } else {
                if (haveUnk)
                    add(unkId, unkBegin, unkEnd);
                haveUnk = true;
                unkId = *id;
                unkBegin = i;
                unkEnd = i + 1;
            }
        }
    }
    if (haveUnk)
        add(unkId, unkBegin, unkEnd);

    // Lowest rank first, then leftmost position (HF's Merge ordering).
    struct Candidate
    {
        int rank, pos, newId;
        bool operator<(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
    };
    std::priority_queue<Candidate> queue;
    auto lookup = [this](int a, int b) -> const MergeValue* {
        const auto it = m_merges.find(pairKey(a, b));
        return it == m_merges.end() ? nullptr : &it->second;
    };
    for (int i = 0; i + 1 < int(symbols.size()); ++i)
        if (const MergeValue* m = lookup(symbols[size_t(i)].id, symbols[size_t(i) + 1].id))
            queue.push(Candidate{m->rank, i, m->newId});
    while (!queue.empty()) {
        const Candidate top = queue.top();
        queue.pop();
        Symbol& left = symbols[size_t(top.pos)];
        if (left.removed || left.next == -1)
            continue;
        const int nextPos = left.next;
        const Symbol right = symbols[size_t(nextPos)];
        const MergeValue* current = lookup(left.id, right.id);
        if (!current || current->newId != top.newId)
            continue; // stale entry
        left.id = top.newId;
        left.end = std::max(left.end, right.end);
        left.next = right.next;
        symbols[size_t(nextPos)].removed = true;
        if (right.next >= 0 && right.next < int(symbols.size()))
            symbols[size_t(right.next)].prev = top.pos;
        if (left.prev >= 0)
            if (const MergeValue* m = lookup(symbols[size_t(left.prev)].id, left.id))
                queue.push(Candidate{m->rank, left.prev, m->newId});
        if (left.next >= 0)
            if (const MergeValue* m = lookup(left.id, symbols[size_t(left.next)].id))
                queue.push(Candidate{m->rank, top.pos, m->newId});
    }

    std::vector<ModelToken> out;
    out.reserve(symbols.size());
    for (const Symbol& sym : symbols) {
        if (sym.removed)
            continue;
        const std::u32string* value = m_vocab.token(sym.id);
        out.push_back(ModelToken{sym.id, value ? *value : std::u32string(), sym.begin, sym.end});
    }
    return out;
}

} // namespace attnscope::tok
