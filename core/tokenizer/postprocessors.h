#pragma once

// Hugging Face post-processors: TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel (offset
// trimming) and Sequence.

#include "tokenizer/components.h"

#include <map>

namespace attnscope::tok {

struct TemplatePiece
{
    bool isSequence = false;
    int sequence = 0;          // 0 = A, 1 = B (isSequence)
    std::u32string specialId;  // key into the special tokens map (!isSequence)
    int typeId = 0;
};

struct TemplateSpecialToken
{
    std::vector<int> ids;
    std::vector<std::u32string> tokens;
};

class TemplateProcessor : public PostProcessor
{
public:
    TemplateProcessor(std::vector<TemplatePiece> single, std::vector<TemplatePiece> pair,
                      std::map<std::u32string, TemplateSpecialToken> specialTokens)
        : m_single(std::move(single)), m_pair(std::move(pair)), m_special(std::move(specialTokens))
    {
    }
    std::vector<RawEncoding> process(std::vector<RawEncoding> encodings, bool addSpecialTokens) const override;
    const std::vector<TemplatePiece>& single() const { return m_single; }
    const std::map<std::u32string, TemplateSpecialToken>& specialTokens() const { return m_special; }

private:
    std::vector<TemplatePiece> m_single, m_pair;
    std::map<std::u32string, TemplateSpecialToken> m_special;
};

struct IdToken
{
    std::u32string token;
    int id = 0;
};

class BertProcessor : public PostProcessor
{
public:
    BertProcessor(IdToken sep, IdToken cls) : m_sep(std::move(sep)), m_cls(std::move(cls)) {}
    std::vector<RawEncoding> process(std::vector<RawEncoding> encodings, bool addSpecialTokens) const override;
    const IdToken& cls() const { return m_cls; }
    const IdToken& sep() const { return m_sep; }

private:
    IdToken m_sep, m_cls;
};

class RobertaProcessor : public PostProcessor
{
public:
    RobertaProcessor(IdToken sep, IdToken cls, bool trimOffsets, bool addPrefixSpace)
        : m_sep(std::move(sep)), m_cls(std::move(cls)), m_trimOffsets(trimOffsets), m_addPrefixSpace(addPrefixSpace)
    {
    }
    std::vector<RawEncoding> process(std::vector<RawEncoding> encodings, bool addSpecialTokens) const override;
    const IdToken& cls() const { return m_cls; }
    const IdToken& sep() const { return m_sep; }

private:
    IdToken m_sep, m_cls;
    bool m_trimOffsets, m_addPrefixSpace;
};

class ByteLevelProcessor : public PostProcessor
{
public:
    ByteLevelProcessor(bool trimOffsets, bool addPrefixSpace) : m_trimOffsets(trimOffsets), m_addPrefixSpace(addPrefixSpace) {}
    std::vector<RawEncoding> process(std::vector<RawEncoding> encodings, bool addSpecialTokens) const override;

private:
    bool m_trimOffsets, m_addPrefixSpace;
};

class SequenceProcessor : public PostProcessor
{
public:
    explicit SequenceProcessor(std::vector<std::unique_ptr<PostProcessor>> parts) : m_parts(std::move(parts)) {}
    std::vector<RawEncoding> process(std::vector<RawEncoding> encodings, bool addSpecialTokens) const override
    {
        for (const auto& p : m_parts)
            encodings = p->process(std::move(encodings), addSpecialTokens);
        return encodings;
    }
    const std::vector<std::unique_ptr<PostProcessor>>& parts() const { return m_parts; }

private:
    std::vector<std::unique_ptr<PostProcessor>> m_parts;
};

// HF byte_level::process_offsets: moves offsets past leading/trailing spaces (Ġ or whitespace) of each token.
void trimByteLevelOffsets(RawEncoding& encoding, bool addPrefixSpace);

} // namespace attnscope::tok
