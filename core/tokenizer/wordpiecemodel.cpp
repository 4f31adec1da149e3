#include "tokenizer/wordpiecemodel.h"

#include "tokenizer/unicodechars.h"
#include "tokenizer/tokenizer.h"

namespace attnscope::tok {

ModelToken WordPieceModel::unknown(int length) const
{
    const std::optional<int> id = m_vocab.find(m_unk);
    if (!id)
        throw TokenizerError(QStringLiteral("WordPiece: the unknown token '%1' is not in the vocabulary")
                                 .arg(fromCodePoints(m_unk))
                                 .toStdString());
    return ModelToken{*id, m_unk, 0, length};
}

std::vector<ModelToken> WordPieceModel::tokenize(const std::u32string& piece) const
{
    const int n = int(piece.size());
    if (n > m_maxChars)
        return {unknown(n)};
    std::vector<ModelToken> out;
    int start = 0;
    std::u32string candidate;
    while (start < n) {
        int end = n;
        bool found = false;
        while (start < end) {
            candidate.clear();
            if (start > 0)
                candidate = m_prefix;
            candidate.append(piece, size_t(start), size_t(end - start));
            if (const std::optional<int> id = m_vocab.find(candidate)) {
                out.push_back(ModelToken{*id, candidate, start, end});
                found = true;
                break;
            }
            --end;
        }
        if (!found)
            return {unknown(n)};
        start = end;
    }
    return out;
}

} // namespace attnscope::tok
