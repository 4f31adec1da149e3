#pragma once

// Unigram (SentencePiece's "unigram" model: XLM-RoBERTa, T5, ALBERT, ...) as Hugging Face runs it: the
// segmentation of each pre-tokenised piece that maximises the sum of the pieces' log-probability scores
// (Viterbi over every vocabulary piece that starts at each position). A character no piece covers scores
// min(scores) − 10 as the unknown token; runs of unknown characters are fused into one unknown token whose
// text is the characters themselves. With byte_fallback, an unknown run becomes the <0xNN> pieces of its
// UTF-8 bytes (each carrying the whole run's offsets) when all of them exist.

#include "tokenizer/components.h"

#include <unordered_map>
#include <vector>

namespace attnscope::tok {

class UnigramModel : public Model
{
public:
    // pieces[id] = (piece, score). Throws TokenizerError for a duplicate piece or an unknown id outside the
    // vocabulary.
    UnigramModel(std::vector<std::pair<std::u32string, double>> pieces, std::optional<int> unkId,
                 bool byteFallback);

    std::vector<ModelToken> tokenize(const std::u32string& piece) const override;
    std::optional<int> tokenToId(const std::u32string& token) const override;
    std::optional<std::u32string> idToToken(int id) const override;
    int vocabSize() const override { return int(m_pieces.size()); }
    const char* typeName() const override { return "Unigram"; }
    std::optional<std::u32string> unkToken() const override;

private:
    // A trie over code points: node 0 is the root; each node's edges are sorted by character.
    struct TrieNode
    {
        std::vector<std::pair<char32_t, int>> edges;
        int pieceId = -1;
    };
    int child(int node, char32_t c) const;

    std::vector<std::pair<std::u32string, double>> m_pieces;
    std::unordered_map<std::u32string, int> m_ids;
    std::vector<TrieNode> m_trie;
    std::optional<int> m_unkId;
    bool m_byteFallback = false;
    double m_unkScore = 0;
    std::vector<int> m_byteIds; // id of <0xNN>, or -1
};

} // namespace attnscope::tok
