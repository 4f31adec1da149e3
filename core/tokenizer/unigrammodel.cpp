#include "tokenizer/unigrammodel.h"

#include "tokenizer/tokenizer.h"
#include "tokenizer/unicodechars.h"

#include <algorithm>
#include <limits>

namespace attnscope::tok {

namespace {
constexpr double kUnknownPenalty = 10.0; // HF K_UNK_PENALTY: unknown scores min(scores) − 10
} // namespace

UnigramModel::UnigramModel(std::vector<std::pair<std::u32string, double>> pieces, std::optional<int> unkId,
                           bool byteFallback)
    : m_pieces(std::move(pieces)), m_unkId(unkId), m_byteFallback(byteFallback)
{
    if (m_unkId && (*m_unkId < 0 || *m_unkId >= int(m_pieces.size())))
        throw TokenizerError(QStringLiteral("Unigram: unk_id %1 is outside the vocabulary of %2 pieces")
                                 .arg(*m_unkId)
                                 .arg(m_pieces.size())
                                 .toStdString());
    double minScore = std::numeric_limits<double>::infinity();
    m_trie.emplace_back();
    for (int id = 0; id < int(m_pieces.size()); ++id) {
        const auto& [piece, score] = m_pieces[size_t(id)];
        m_ids[piece] = id; // a later duplicate wins, as in HF's token_to_ids
        minScore = std::min(minScore, score);
        int node = 0;
        for (char32_t c : piece) {
            auto& edges = m_trie[size_t(node)].edges;
            auto it = std::lower_bound(
                edges.begin(), edges.end(), c,
                [](const std::pair<char32_t, int>& e, char32_t key) { return e.first < key; });
            if (it != edges.end() && it->first == c) {
                node = it->second;
            } else {
                const int next = int(m_trie.size());
                edges.insert(it, {c, next});
                m_trie.emplace_back();
                node = next;
            }
        }
    }
    // Each piece's node gets the id token_to_ids gives it (the last of duplicates).
    for (const auto& [piece, id] : m_ids) {
        int node = 0;
        for (char32_t c : piece)
            node = child(node, c);
        if (!piece.empty()) m_trie[size_t(node)].pieceId = id;
    }
    m_unkScore = (m_pieces.empty() ? 0.0 : minScore) - kUnknownPenalty;
    m_byteIds.assign(256, -1);
    for (int b = 0; b < 256; ++b) {
        static const char* const hex = "0123456789ABCDEF";
        const std::u32string name = {U'<', U'0', U'x', char32_t(hex[b >> 4]), char32_t(hex[b & 15]), U'>'};
        if (const auto it = m_ids.find(name); it != m_ids.end()) m_byteIds[size_t(b)] = it->second;
    }
}

int UnigramModel::child(int node, char32_t c) const
{
    const auto& edges = m_trie[size_t(node)].edges;
    const auto it =
        std::lower_bound(edges.begin(), edges.end(), c,
                         [](const std::pair<char32_t, int>& e, char32_t key) { return e.first < key; });
    return it != edges.end() && it->first == c ? it->second : -1;
}

std::vector<ModelToken> UnigramModel::tokenize(const std::u32string& text) const
{
    const int n = int(text.size());
    if (n == 0) return {};
    // best[e]: the best segmentation of text[0, e): its score, where its last piece starts, and that piece.
    struct Best
    {
        double score = 0;
        int start = -1;
        int id = 0;
    };
    std::vector<Best> best(size_t(n) + 1);
    auto offer = [&](int end, int start, int id, double score) {
        Best& target = best[size_t(end)];
        if (target.start < 0 || score > target.score) target = {score, start, id};
    };
    for (int start = 0; start < n; ++start) {
        const double base = best[size_t(start)].score;
        bool singleCharacter = false;
        int node = 0;
        for (int end = start; end < n; ++end) {
            node = child(node, text[size_t(end)]);
            if (node < 0) break;
            const int id = m_trie[size_t(node)].pieceId;
            if (id < 0) continue;
            offer(end + 1, start, id, base + m_pieces[size_t(id)].second);
            if (end == start) singleCharacter = true;
        }
        if (!singleCharacter) {
            if (!m_unkId)
                throw TokenizerError(
                    QStringLiteral("Unigram: '%1' is not in the vocabulary and the model has no unk_id")
                        .arg(fromCodePoints(text.substr(size_t(start), 1)))
                        .toStdString());
            offer(start + 1, start, *m_unkId, base + m_unkScore);
        }
    }

    // Back from the end; consecutive unknown characters become one piece.
    struct Span
    {
        int begin, end;
        bool unknown;
    };
    std::vector<Span> spans;
    for (int end = n; end > 0;) {
        const Best& b = best[size_t(end)];
        const bool unknown = m_unkId && b.id == *m_unkId;
        if (unknown && !spans.empty() && spans.back().unknown)
            spans.back().begin = b.start;
        else
            spans.push_back({b.start, end, unknown});
        end = b.start;
    }
    std::reverse(spans.begin(), spans.end());

    std::vector<ModelToken> tokens;
    tokens.reserve(spans.size());
    for (const Span& s : spans) {
        std::u32string value = text.substr(size_t(s.begin), size_t(s.end - s.begin));
        if (const auto it = m_ids.find(value); it != m_ids.end()) {
            tokens.push_back({it->second, std::move(value), s.begin, s.end});
            continue;
        }
        if (m_byteFallback) {
            std::string bytes;
            for (char32_t c : value)
                bytes += utf8Bytes(c);
            const bool all = std::all_of(bytes.begin(), bytes.end(), [&](char b) {
                return m_byteIds[size_t(static_cast<unsigned char>(b))] >= 0;
            });
            if (all) {
                for (char b : bytes) {
                    const int id = m_byteIds[size_t(static_cast<unsigned char>(b))];
                    tokens.push_back({id, m_pieces[size_t(id)].first, s.begin, s.end});
                }
                continue;
            }
        }
        if (!m_unkId)
            throw TokenizerError(
                QStringLiteral("Unigram: '%1' is not in the vocabulary and the model has no unk_id")
                    .arg(fromCodePoints(value))
                    .toStdString());
        tokens.push_back({*m_unkId, std::move(value), s.begin, s.end});
    }
    return tokens;
}

std::optional<int> UnigramModel::tokenToId(const std::u32string& token) const
{
    const auto it = m_ids.find(token);
    if (it == m_ids.end()) return std::nullopt;
    return it->second;
}

std::optional<std::u32string> UnigramModel::idToToken(int id) const
{
    if (id < 0 || id >= int(m_pieces.size())) return std::nullopt;
    return m_pieces[size_t(id)].first;
}

std::optional<std::u32string> UnigramModel::unkToken() const
{
    if (!m_unkId) return std::nullopt;
    return m_pieces[size_t(*m_unkId)].first;
}

} // namespace attnscope::tok
