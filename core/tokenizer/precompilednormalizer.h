#pragma once

// Hugging Face's "Precompiled" normalizer: SentencePiece's own normalisation rules (nmt_nfkc and the like),
// as a SentencePiece model carries them in normalizer_spec.precompiled_charsmap (XLM-RoBERTa, T5, mBART).
//
// The charsmap is a u32 (little-endian) byte size of a darts-clone double-array trie, the trie's u32 units,
// then the replacement strings, each ended by '\0'. The trie maps UTF-8 byte strings to offsets into the
// replacement strings. As tokenizers does it (normalizers/precompiled.rs with spm_precompiled): the text is
// cut into extended grapheme clusters; a cluster shorter than 6 UTF-8 bytes is replaced whole when the trie
// has a prefix of it (the first, i.e. shortest, match); otherwise each character is replaced on its own.
// The alignment bookkeeping reproduces tokenizers' too, quirks included: a replacement of n characters by m
// replaces them one for one, inserts the extra ones after, and when m < n lets the last character written
// so far (which may belong to an earlier replacement, or not exist at the very start) remove the rest.

#include "tokenizer/components.h"

#include <QByteArray>
#include <optional>
#include <string>
#include <vector>

namespace attnscope::tok {

class PrecompiledNormalizer : public Normalizer
{
public:
    // Throws TokenizerError for a charsmap whose sizes disagree with its length.
    explicit PrecompiledNormalizer(const QByteArray& charsmap);
    void normalize(NormalizedString& s) const override;

    // The replacement for the first (shortest) prefix of `utf8` the trie holds; nullopt when none.
    std::optional<std::string> transform(const std::string& utf8) const;

private:
    std::vector<std::uint32_t> m_units;
    std::string m_replacements;
};

} // namespace attnscope::tok
