#pragma once

#include <QString>
#include <vector>

namespace attnscope {

// id -> vocabulary entry of a model folder, enough to label predictions when no tokenizer is loaded:
// tokenizer.json (model.vocab, added_tokens), else vocab.txt (one entry per line), else vocab.json.
// Never throws: an unreadable or absent vocabulary gives an empty one.
struct ModelVocabulary
{
    std::vector<QString> tokens; // null QString for ids with no entry
    int maskId = -1;             // "[MASK]" or "<mask>", -1 when absent

    // Entries with ids from 0 to vocabSize - 1 (the ids the model takes): an added token with id 10^7 once
    // sized the table to 10^7 entries, 490 MB, before the tokenizer refused it.
    static ModelVocabulary fromFolder(const QString& folder, int vocabSize);
};

} // namespace attnscope
