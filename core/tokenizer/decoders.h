#pragma once

// Hugging Face decoders (ids -> text): WordPiece, ByteLevel, Metaspace, BPEDecoder, Replace, ByteFallback,
// Fuse, Strip and Sequence.

#include "tokenizer/components.h"
#include "tokenizer/pretokenizers.h"

namespace attnscope::tok {

class WordPieceDecoder : public Decoder
{
public:
    WordPieceDecoder(std::u32string prefix, bool cleanup) : m_prefix(std::move(prefix)), m_cleanup(cleanup) {}
    std::vector<std::u32string> decodeChain(std::vector<std::u32string> tokens) const override;

private:
    std::u32string m_prefix;
    bool m_cleanup;
};

class ByteLevelDecoder : public Decoder
{
public:
    std::vector<std::u32string> decodeChain(std::vector<std::u32string> tokens) const override;
};

class MetaspaceDecoder : public Decoder
{
public:
    MetaspaceDecoder(char32_t replacement, PrependScheme scheme) : m_replacement(replacement), m_scheme(scheme) {}
    std::vector<std::u32string> decodeChain(std::vector<std::u32string> tokens) const override;

private:
    char32_t m_replacement;
    PrependScheme m_scheme;
};

class BpeDecoder : public Decoder
{
public:
    explicit BpeDecoder(std::u32string suffix) : m_suffix(std::move(suffix)) {}
    std::vector<std::u32string> decodeChain(std::vector<std::u32string> tokens) const override;

private:
    std::u32string m_suffix;
};

class ReplaceDecoder : public Decoder
{
public:
    ReplaceDecoder(std::u32string pattern, std::u32string content) : m_pattern(std::move(pattern)), m_content(std::move(content)) {}
    std::vector<std::u32string> decodeChain(std::vector<std::u32string> tokens) const override;

private:
    std::u32string m_pattern, m_content;
};

class ByteFallbackDecoder : public Decoder
{
public:
    std::vector<std::u32string> decodeChain(std::vector<std::u32string> tokens) const override;
};

class FuseDecoder : public Decoder
{
public:
    std::vector<std::u32string> decodeChain(std::vector<std::u32string> tokens) const override;
};

class StripDecoder : public Decoder
{
public:
    StripDecoder(char32_t content, int start, int stop) : m_content(content), m_start(start), m_stop(stop) {}
    std::vector<std::u32string> decodeChain(std::vector<std::u32string> tokens) const override;

private:
    char32_t m_content;
    int m_start, m_stop;
};

class SequenceDecoder : public Decoder
{
public:
    explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> parts) : m_parts(std::move(parts)) {}
    std::vector<std::u32string> decodeChain(std::vector<std::u32string> tokens) const override
    {
        for (const auto& p : m_parts)
            tokens = p->decodeChain(std::move(tokens));
        return tokens;
    }

private:
    std::vector<std::unique_ptr<Decoder>> m_parts;
};

} // namespace attnscope::tok
