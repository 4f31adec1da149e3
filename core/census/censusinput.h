#pragma once

// One corpus input made ready for the model: tokenized with the model's template, cut to a token budget,
// with its token roles.

#include "census/corpusreader.h"
#include "stats/headstats.h"
#include "tokenizer/tokenizer.h"

namespace attnscope {

struct CensusInput
{
    Encoding encoding;
    TokenRoles roles;
    int originalTokens = 0; // before truncation
    bool truncated = false;
};

// Encodes A (and B) with special tokens. Longer than maxTokens: content tokens are dropped from the end of
// the longer segment one at a time (Hugging Face's "longest_first", as BERT's pre-training data and
// tools/train-builtin-models/check_clark.py do); template tokens ([CLS], [SEP], BOS) always stay.
// Throws TokenizerError.
CensusInput prepareCensusInput(const Tokenizer& tokenizer, const CorpusInput& input, int maxTokens);

// Drops content tokens of `encoding` until it has at most maxTokens (longest_first); false when even the
// template alone is longer.
bool truncateLongestFirst(Encoding& encoding, int maxTokens);

} // namespace attnscope
