#pragma once

// Builds a TokenizerPipeline from tokenizer.json, or from legacy vocabulary files. Every problem throws
// TokenizerError "<file>: <problem>".

#include "tokenizer/tokenizerpipeline.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <memory>
#include <optional>

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
// tokenizer_config.json: nullopt when there is none; throws TokenizerError when it is unreadable, not JSON or
// not an object.
std::optional<QJsonObject> readTokenizerConfig(const QString& configPath);
// Reads the named special tokens of tokenizer_config.json (when there is one) into the pipeline, and adds
// them as special tokens when the pipeline came from legacy files (`addMissing`).
void applyTokenizerConfig(TokenizerPipeline& pipeline, const std::optional<QJsonObject>& tokenizerConfig,
                          bool addMissing);

} // namespace attnscope::tok
