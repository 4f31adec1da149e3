#pragma once

// A BERT-base-sized encoder (12 layers, hidden 768, 12 heads, intermediate 3072, vocab 30522, 512 positions)
// with random F32 weights, written by the benches themselves (bench_model, bench_census).

#include <QString>

namespace attnscope::bench {

// Writes config.json and model.safetensors into folder, tensor by tensor (never holding the 415 MiB);
// returns the bytes of weights, or -1 when it cannot write.
qint64 writeRandomBertBase(const QString& folder);

} // namespace attnscope::bench
