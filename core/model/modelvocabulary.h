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

    static ModelVocabulary fromFolder(const QString& folder);
};

} // namespace attnscope
