#include "census/censusinput.h"

#include "stats/encodingroles.h"

namespace attnscope {

bool truncateLongestFirst(Encoding& encoding, int maxTokens)
{
    const int n = encoding.size();
    if (n <= maxTokens) return true;
    int lengths[2] = {0, 0};
    int fixed = 0;
    for (int i = 0; i < n; ++i) {
        const int sequence = size_t(i) < encoding.sequenceIds.size() ? encoding.sequenceIds[size_t(i)] : 0;
        if (sequence == 0 || sequence == 1)
            ++lengths[sequence];
        else
            ++fixed;
    }
    if (fixed > maxTokens) return false;
    int keep[2] = {lengths[0], lengths[1]};
    while (keep[0] + keep[1] + fixed > maxTokens) {
        if (keep[1] > keep[0])
            --keep[1];
        else
            --keep[0];
    }
    Encoding out;
    int seen[2] = {0, 0};
    for (int i = 0; i < n; ++i) {
        const int sequence = size_t(i) < encoding.sequenceIds.size() ? encoding.sequenceIds[size_t(i)] : 0;
        if ((sequence == 0 || sequence == 1) && seen[sequence]++ >= keep[sequence]) continue;
        out.ids.push_back(encoding.ids[size_t(i)]);
        out.tokens << encoding.tokens.at(i);
        out.offsets.push_back(encoding.offsets[size_t(i)]);
        if (size_t(i) < encoding.typeIds.size()) out.typeIds.push_back(encoding.typeIds[size_t(i)]);
        if (size_t(i) < encoding.sequenceIds.size())
            out.sequenceIds.push_back(encoding.sequenceIds[size_t(i)]);
        if (size_t(i) < encoding.special.size()) out.special.push_back(encoding.special[size_t(i)]);
    }
    encoding = std::move(out);
    return true;
}

CensusInput prepareCensusInput(const Tokenizer& tokenizer, const CorpusInput& input, int maxTokens)
{
    CensusInput prepared;
    prepared.encoding = tokenizer.encode(input.textA, input.textB);
    prepared.originalTokens = prepared.encoding.size();
    if (prepared.originalTokens > maxTokens) {
        prepared.truncated = true;
        if (!truncateLongestFirst(prepared.encoding, maxTokens)) prepared.encoding = Encoding{};
    }
    prepared.roles = tokenRolesFromEncoding(prepared.encoding, tokenizer, input.textA, input.textB);
    return prepared;
}

} // namespace attnscope
