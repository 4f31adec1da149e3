#pragma once

// A BERT-base-sized encoder (12 layers, hidden 768, 12 heads, intermediate 3072, vocab 30522, 512 positions)
// with random F32 weights, written by the benches themselves (bench_model, bench_census).

#include <QString>

namespace attnscope::bench {

constexpr int kBertLayers = 12, kBertHidden = 768, kBertHeads = 12, kBertIntermediate = 3072,
              kBertVocab = 30522, kBertPositions = 512;

// BERT-base's config.json in folder, for `architecture` (BertModel, BertForMaskedLM); false when it cannot
// write the file.
bool writeBertBaseConfig(const QString& folder, const QString& architecture);

// Writes config.json and model.safetensors into folder, tensor by tensor (never holding the 415 MiB);
// returns the bytes of weights, or -1 when it cannot write.
qint64 writeRandomBertBase(const QString& folder);

} // namespace attnscope::bench
