#pragma once

// Real-sized model folders without real-sized files: a Llama config.json and a model.safetensors whose
// header lists every tensor of that shape in BF16 while the data section is left a hole (a sparse file, all
// zeros, no disk used). The header is what the picker's parameter count and memory estimate read.

#include <QString>

namespace attnscope::testing {

struct LlamaShape
{
    int vocab = 0, hidden = 0, intermediate = 0, layers = 0, heads = 0, kvHeads = 0, maxPositions = 0;
    bool tied = false;
    // Llama-3.2-1B (meta-llama/Llama-3.2-1B config.json) and Llama-3.1-70B.
    static LlamaShape llama32_1b() { return {128256, 2048, 8192, 16, 32, 8, 131072, true}; }
    static LlamaShape llama31_70b() { return {128256, 8192, 28672, 80, 64, 8, 131072, false}; }
};

// Writes `folder`/config.json and a sparse BF16 `folder`/model.safetensors. False when a file cannot be
// written (or the file system has no sparse files and refuses the size).
bool writeShapedLlama(const QString& folder, const LlamaShape& shape);

} // namespace attnscope::testing
