#pragma once

// Builds a TokenizerPipeline from tokenizer.json, or from legacy vocabulary files. Every problem throws
// TokenizerError "<file>: <problem>".

#include "tokenizer/tokenizerpipeline.h"

#include <QString>

#include <memory>

namespace attnscope {
struct GgufVocabulary;
}

namespace attnscope::tok {

std::unique_ptr<TokenizerPipeline> loadTokenizerJson(const QString& path);
// The same from tokenizer.json's text (e.g. carried inside a GGUF file); `path` names it in messages.
std::unique_ptr<TokenizerPipeline> loadTokenizerJsonText(const QByteArray& json, const QString& path);
// vocab.txt: BERT WordPiece; lowercasing follows `lowercase` (tokenizer_config.json do_lower_case).
std::unique_ptr<TokenizerPipeline> loadWordPieceVocab(const QString& vocabPath, bool lowercase);
// vocab.json + merges.txt: GPT-2 byte-level BPE.
std::unique_ptr<TokenizerPipeline> loadByteLevelBpe(const QString& vocabPath, const QString& mergesPath,
                                                    bool addPrefixSpace);
// The tokenizer a GGUF file's metadata describes (ggufvocabloader.cpp); `path` names the file in messages.
std::unique_ptr<TokenizerPipeline> loadGgufVocabulary(const GgufVocabulary& vocabulary, const QString& path);
// Reads the named special tokens of tokenizer_config.json (when it exists) into the pipeline, and adds them as
// special tokens when the pipeline came from legacy files (`addMissing`).
void applyTokenizerConfig(TokenizerPipeline& pipeline, const QString& configPath, bool addMissing);

} // namespace attnscope::tok
