#pragma once

// The parts of a Hugging Face tokenizer.json, each parsed from its JSON section ("normalizer", "model", ...)
// into the pipeline's component; `where` names the section in messages. Every problem throws TokenizerError
// "<file>: <where>: <problem>" (tokenizerjsonreader.h).

#include "tokenizer/decoders.h"
#include "tokenizer/normalizers.h"
#include "tokenizer/postprocessors.h"
#include "tokenizer/pretokenizers.h"
#include "tokenizer/tokenizerjsonreader.h"
#include "tokenizer/tokenizerpipeline.h"
#include "tokenizer/vocabulary.h"

#include <QJsonValue>
#include <memory>

namespace attnscope::tok {

std::unique_ptr<Normalizer> parseNormalizer(const JsonReader& r, const QJsonValue& v, const QString& where);
std::unique_ptr<PreTokenizer> parsePreTokenizer(const JsonReader& r, const QJsonValue& v,
                                                const QString& where);
// {"token": id, ...}: ids far beyond the entry count are refused (a damaged file).
Vocabulary parseVocab(const JsonReader& r, const QJsonValue& v, const QString& where);
// The "model" section: BPE, WordPiece, WordLevel or Unigram.
std::unique_ptr<Model> parseModel(const JsonReader& r, const QJsonValue& v);
std::unique_ptr<PostProcessor> parsePostProcessor(const JsonReader& r, const QJsonValue& v,
                                                  const QString& where);
std::unique_ptr<Decoder> parseDecoder(const JsonReader& r, const QJsonValue& v, const QString& where);

} // namespace attnscope::tok
