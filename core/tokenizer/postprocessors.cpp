#include "tokenizer/postprocessors.h"

#include "tokenizer/unicodechars.h"

#include <algorithm>

namespace attnscope::tok {

void RawEncoding::append(const RawEncoding& o)
{
    ids.insert(ids.end(), o.ids.begin(), o.ids.end());
    tokens.insert(tokens.end(), o.tokens.begin(), o.tokens.end());
    offsets.insert(offsets.end(), o.offsets.begin(), o.offsets.end());
    typeIds.insert(typeIds.end(), o.typeIds.begin(), o.typeIds.end());
    sequenceIds.insert(sequenceIds.end(), o.sequenceIds.begin(), o.sequenceIds.end());
    special.insert(special.end(), o.special.begin(), o.special.end());
}

namespace {

RawEncoding specialEncoding(const std::vector<int>& ids, const std::vector<std::u32string>& tokens, int typeId)
{
    RawEncoding e;
    e.ids = ids;
    e.tokens = tokens;
    e.offsets.assign(ids.size(), Span{0, 0});
    e.typeIds.assign(ids.size(), typeId);
    e.sequenceIds.assign(ids.size(), -1);
    e.special.assign(ids.size(), true);
    return e;
}

RawEncoding wrap(const IdToken* before, const RawEncoding& middle, const IdToken* after, int typeBefore,
                 int typeAfter)
{
    RawEncoding out;
    if (before)
        out.append(specialEncoding({before->id}, {before->token}, typeBefore));
    out.append(middle);
    if (after)
        out.append(specialEncoding({after->id}, {after->token}, typeAfter));
    return out;
}

// The first sequence as cls A sep (type 0), each later one as [pairBefore] B sep with sep's type pairType:
// the special tokens of BERT's and RoBERTa's processors, which differ only in the pair's part.
std::vector<RawEncoding> wrapSequences(std::vector<RawEncoding> encodings, const IdToken& cls,
                                       const IdToken& sep, const IdToken* pairBefore, int pairType)
{
    for (size_t i = 0; i < encodings.size(); ++i) {
        if (i == 0)
            encodings[i] = wrap(&cls, encodings[i], &sep, 0, 0);
        else
            encodings[i] = wrap(pairBefore, encodings[i], &sep, 0, pairType);
    }
    return encodings;
}

} // namespace

std::vector<RawEncoding> TemplateProcessor::process(std::vector<RawEncoding> encodings, bool addSpecialTokens) const
{
    const std::vector<TemplatePiece>& pieces = encodings.size() == 2 ? m_pair : m_single;
    std::vector<RawEncoding> out;
    for (const TemplatePiece& piece : pieces) {
        if (piece.isSequence) {
            const size_t index = size_t(std::min<int>(piece.sequence, int(encodings.size()) - 1));
            RawEncoding& e = encodings[index];
            e.setTypeIds(piece.typeId);
            e.setSequenceId(int(index));
            out.push_back(e);
        } else if (addSpecialTokens) {
            const auto it = m_special.find(piece.specialId);
            if (it != m_special.end())
                out.push_back(specialEncoding(it->second.ids, it->second.tokens, piece.typeId));
        }
    }
    return out;
}

std::vector<RawEncoding> BertProcessor::process(std::vector<RawEncoding> encodings, bool addSpecialTokens) const
{
    if (!addSpecialTokens)
        return encodings;
    return wrapSequences(std::move(encodings), m_cls, m_sep, nullptr, 1); // [CLS] A [SEP] B [SEP]
}

std::vector<RawEncoding> RobertaProcessor::process(std::vector<RawEncoding> encodings, bool addSpecialTokens) const
{
    if (m_trimOffsets)
        for (RawEncoding& e : encodings)
            trimByteLevelOffsets(e, m_addPrefixSpace);
    for (RawEncoding& e : encodings)
        e.setTypeIds(0);
    if (!addSpecialTokens)
        return encodings;
    return wrapSequences(std::move(encodings), m_cls, m_sep, &m_sep, 0); // <s> A </s> </s> B </s>
}

std::vector<RawEncoding> ByteLevelProcessor::process(std::vector<RawEncoding> encodings, bool) const
{
    if (m_trimOffsets)
        for (RawEncoding& e : encodings)
            trimByteLevelOffsets(e, m_addPrefixSpace);
    for (size_t i = 0; i < encodings.size(); ++i)
        encodings[i].setSequenceId(int(i));
    return encodings;
}

void trimByteLevelOffsets(RawEncoding& encoding, bool addPrefixSpace)
{
    const char32_t spaceChar = 0x0120; // 'Ġ', the byte-level form of ' '
    for (int i = 0; i < encoding.size(); ++i) {
        const std::u32string& token = encoding.tokens[size_t(i)];
        Span& offsets = encoding.offsets[size_t(i)];
        auto isSpace = [spaceChar](char32_t c) { return c == spaceChar || isWhitespace(c); };
        int leading = 0;
        while (leading < int(token.size()) && isSpace(token[size_t(leading)]))
            ++leading;
        int trailing = 0;
        while (trailing < int(token.size()) && isSpace(token[token.size() - 1 - size_t(trailing)]))
            ++trailing;
        if (leading == 0 && trailing == 0)
            continue;
        if (leading > 0) {
            const bool isFirst = i == 0 || offsets.first == 0;
            if (isFirst && addPrefixSpace && leading == 1)
                leading = 0;
            offsets.first = std::min(offsets.first + leading, offsets.second);
        }
        if (trailing > 0 && offsets.second >= trailing)
            offsets.second = std::max(offsets.second - trailing, offsets.first);
    }
}

} // namespace attnscope::tok
