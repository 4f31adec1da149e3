#pragma once

// Hugging Face normalizers: BertNormalizer, Lowercase, Strip, StripAccents, NFC/NFD/NFKC/NFKD, Replace,
// Prepend and Sequence.

#include "tokenizer/components.h"

#include <memory>
#include <optional>
#include <vector>

namespace attnscope::tok {

class BertNormalizer : public Normalizer
{
public:
    BertNormalizer(bool cleanText, bool handleChineseChars, std::optional<bool> stripAccents, bool lowercase)
        : m_cleanText(cleanText), m_handleChineseChars(handleChineseChars),
          m_stripAccents(stripAccents.value_or(lowercase)), // HF: null strip_accents follows lowercase
          m_lowercase(lowercase)
    {
    }
    void normalize(NormalizedString& s) const override;

private:
    bool m_cleanText, m_handleChineseChars, m_stripAccents, m_lowercase;
};

class LowercaseNormalizer : public Normalizer
{
public:
    void normalize(NormalizedString& s) const override { s.lowercase(); }
};

class StripNormalizer : public Normalizer
{
public:
    StripNormalizer(bool left, bool right) : m_left(left), m_right(right) {}
    void normalize(NormalizedString& s) const override { s.strip(m_left, m_right); }

private:
    bool m_left, m_right;
};

class StripAccentsNormalizer : public Normalizer
{
public:
    void normalize(NormalizedString& s) const override;
};

class UnicodeNormalizer : public Normalizer
{
public:
    enum Form { NFC, NFD, NFKC, NFKD };
    explicit UnicodeNormalizer(Form form) : m_form(form) {}
    void normalize(NormalizedString& s) const override;

private:
    Form m_form;
};

class ReplaceNormalizer : public Normalizer
{
public:
    ReplaceNormalizer(std::u32string pattern, std::u32string content)
        : m_pattern(std::move(pattern)), m_content(std::move(content))
    {
    }
    void normalize(NormalizedString& s) const override { s.replace(m_pattern, m_content); }

private:
    std::u32string m_pattern, m_content;
};

// Replace with the regex "c{n,}" (runs of n or more of one character), which SentencePiece converters write
// as Replace(Regex(" {2,}"), " ").
class ReplaceRunsNormalizer : public Normalizer
{
public:
    ReplaceRunsNormalizer(char32_t c, int minimumRun, std::u32string content)
        : m_char(c), m_minimumRun(minimumRun), m_content(std::move(content))
    {}
    void normalize(NormalizedString& s) const override { s.replaceRuns(m_char, m_minimumRun, m_content); }

private:
    char32_t m_char;
    int m_minimumRun;
    std::u32string m_content;
};

class PrependNormalizer : public Normalizer
{
public:
    explicit PrependNormalizer(std::u32string prefix) : m_prefix(std::move(prefix)) {}
    void normalize(NormalizedString& s) const override { s.prepend(m_prefix); }

private:
    std::u32string m_prefix;
};

class SequenceNormalizer : public Normalizer
{
public:
    explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> parts) : m_parts(std::move(parts)) {}
    void normalize(NormalizedString& s) const override
    {
        for (const auto& p : m_parts)
            p->normalize(s);
    }

private:
    std::vector<std::unique_ptr<Normalizer>> m_parts;
};

} // namespace attnscope::tok
