#include "stats/encodingroles.h"

#include "tokenizer/tokenizer.h"

namespace attnscope {

bool isPunctuationText(const QString& text)
{
    bool any = false;
    for (const QChar c : text) {
        if (c.isSpace()) continue;
        if (!c.isPunct()) return false;
        any = true;
    }
    return any;
}

TokenRoles tokenRolesFromEncoding(const Encoding& encoding, const Tokenizer& tokenizer, const QString& textA,
                                  const std::optional<QString>& textB)
{
    TokenRoles roles;
    // Each token's text from an index built once (linear; a scan per token was quadratic).
    const CodePointIndex indexA(textA);
    const std::optional<CodePointIndex> indexB = textB ? std::optional<CodePointIndex>(*textB) : std::nullopt;
    const std::optional<int> cls = tokenizer.clsId(), bos = tokenizer.bosId();
    const std::optional<int> sep = tokenizer.sepId(), eos = tokenizer.eosId();
    for (int i = 0; i < encoding.size(); ++i) {
        const int id = encoding.ids[size_t(i)];
        const bool special = size_t(i) < encoding.special.size() && encoding.special[size_t(i)];
        roles.special.push_back(special);
        if (special) {
            if ((cls && id == *cls) || (bos && id == *bos))
                roles.clsPositions.push_back(i);
            else if ((sep && id == *sep) || (eos && id == *eos))
                roles.sepPositions.push_back(i);
            continue;
        }
        const int sequence = size_t(i) < encoding.sequenceIds.size() ? encoding.sequenceIds[size_t(i)] : 0;
        const auto [begin, end] = encoding.offsets[size_t(i)];
        if (sequence < 0 || end <= begin) continue;
        const CodePointIndex& own = sequence == 1 && indexB ? *indexB : indexA;
        if (isPunctuationText(own.substring(begin, end))) roles.punctuationPositions.push_back(i);
    }
    return roles;
}

} // namespace attnscope
