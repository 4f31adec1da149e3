#pragma once

// Hugging Face pre-tokenizers: BertPreTokenizer, ByteLevel, Metaspace, Split (literal or a known regex),
// Whitespace, WhitespaceSplit, Punctuation, Digits and Sequence.

#include "tokenizer/components.h"
#include "tokenizer/splitpatterns.h"

#include <array>
#include <memory>
#include <optional>
#include <vector>

namespace attnscope::tok {

// GPT-2's reversible byte <-> printable character table.
const std::array<char32_t, 256>& byteToUnicode();
// The byte a byte-level character stands for, or -1.
int unicodeToByte(char32_t c);

class BertPreTokenizer : public PreTokenizer
{
public:
    void preTokenize(std::vector<Split>& splits) const override;
};

class ByteLevelPreTokenizer : public PreTokenizer
{
public:
    ByteLevelPreTokenizer(bool addPrefixSpace, bool useRegex) : m_addPrefixSpace(addPrefixSpace), m_useRegex(useRegex) {}
    void preTokenize(std::vector<Split>& splits) const override;

private:
    bool m_addPrefixSpace, m_useRegex;
};

enum class PrependScheme { Always, First, Never };

class MetaspacePreTokenizer : public PreTokenizer
{
public:
    MetaspacePreTokenizer(char32_t replacement, PrependScheme scheme, bool split)
        : m_replacement(replacement), m_scheme(scheme), m_split(split)
    {
    }
    void preTokenize(std::vector<Split>& splits) const override;

private:
    char32_t m_replacement;
    PrependScheme m_scheme;
    bool m_split;
};

class SplitPreTokenizer : public PreTokenizer
{
public:
    // Either a known regex or a literal string.
    SplitPreTokenizer(std::optional<SplitRegex> regex, std::u32string literal, SplitBehavior behavior, bool invert)
        : m_regex(regex), m_literal(std::move(literal)), m_behavior(behavior), m_invert(invert)
    {
    }
    void preTokenize(std::vector<Split>& splits) const override;

private:
    std::optional<SplitRegex> m_regex;
    std::u32string m_literal;
    SplitBehavior m_behavior;
    bool m_invert;
};

class WhitespacePreTokenizer : public PreTokenizer // \w+|[^\w\s]+
{
public:
    void preTokenize(std::vector<Split>& splits) const override;
};

class WhitespaceSplitPreTokenizer : public PreTokenizer
{
public:
    void preTokenize(std::vector<Split>& splits) const override;
};

class PunctuationPreTokenizer : public PreTokenizer
{
public:
    explicit PunctuationPreTokenizer(SplitBehavior behavior) : m_behavior(behavior) {}
    void preTokenize(std::vector<Split>& splits) const override;

private:
    SplitBehavior m_behavior;
};

class DigitsPreTokenizer : public PreTokenizer
{
public:
    explicit DigitsPreTokenizer(bool individual) : m_individual(individual) {}
    void preTokenize(std::vector<Split>& splits) const override;

private:
    bool m_individual;
};

class SequencePreTokenizer : public PreTokenizer
{
public:
    explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> parts) : m_parts(std::move(parts)) {}
    void preTokenize(std::vector<Split>& splits) const override
    {
        for (const auto& p : m_parts)
            p->preTokenize(splits);
    }

private:
    std::vector<std::unique_ptr<PreTokenizer>> m_parts;
};

} // namespace attnscope::tok
