#pragma once

// The pre-tokenizer regular expressions that real tokenizer.json files use, implemented by hand as scanners
// over Unicode categories (so no regex engine is needed and behaviour is fixed): GPT-2's, Llama-3's and Qwen2's
// split patterns and the Whitespace pre-tokenizer's \w+|[^\w\s]+.

#include "tokenizer/normalizedstring.h"

#include <QString>

#include <optional>
#include <string>
#include <vector>

namespace attnscope::tok {

enum class SplitRegex {
    Gpt2,       // 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
    Llama3,     // (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
    Qwen2,      // the same with \p{N} instead of \p{N}{1,3}
    Whitespace, // \w+|[^\w\s]+
};

// Recognises one of the known patterns from its regex source (as written in tokenizer.json).
std::optional<SplitRegex> recogniseSplitRegex(const QString& regex);

// All matches of the pattern in `text`, plus the non-matching gaps, covering the text in order (HF find_matches).
std::vector<PatternMatch> findRegexMatches(SplitRegex pattern, const std::u32string& text);
// The same for a literal string pattern.
std::vector<PatternMatch> findLiteralMatches(const std::u32string& pattern, const std::u32string& text);

} // namespace attnscope::tok
