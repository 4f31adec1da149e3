#pragma once

// Added tokens ([CLS], <|endoftext|>, user tokens) found in the text before the model sees it, as HF's
// AddedVocabulary does: tokens with normalized=false are matched in the original text, the others in the
// normalised text; leftmost-longest, honouring single_word, lstrip and rstrip.

#include "tokenizer/components.h"

#include <unordered_map>
#include <unordered_set>

namespace attnscope::tok {

struct AddedToken
{
    int id = 0;
    std::u32string content;
    bool singleWord = false;
    bool lstrip = false;
    bool rstrip = false;
    bool normalized = true;
    bool special = false;
};

class AddedVocabulary
{
public:
    // `normalizer` (may be null) gives the normalised form normalized=true tokens are matched by.
    void setTokens(std::vector<AddedToken> tokens, const Normalizer* normalizer);

    // Splits the text at added tokens and normalises the rest (HF extract_and_normalize).
    std::vector<Split> extractAndNormalize(const std::u32string& text, const Normalizer* normalizer) const;

    const std::vector<AddedToken>& tokens() const { return m_tokens; }
    const AddedToken* byId(int id) const;
    const AddedToken* byContent(const std::u32string& content) const;
    bool isSpecialId(int id) const;

private:
    struct Matcher
    {
        std::vector<std::pair<std::u32string, int>> patterns; // pattern text, index into m_tokens
        std::unordered_map<char32_t, std::vector<int>> byFirstChar; // indices into patterns, longest first
        bool empty() const { return patterns.empty(); }
    };
    void buildMatcher(Matcher& matcher);
    std::vector<Split> splitWith(const NormalizedString& s, const Matcher& matcher) const;

    std::vector<AddedToken> m_tokens;
    std::unordered_map<int, size_t> m_byId;
    std::unordered_map<std::u32string, size_t> m_byContent;
    Matcher m_original;   // normalized == false
    Matcher m_normalized; // normalized == true
};

} // namespace attnscope::tok
