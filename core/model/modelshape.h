#pragma once

// The part of a model's description (ModelInfo) that its config.json gives once a family unit has read it:
// written once for the catalog (folders, GGUF files), the Hub download's memory check and an opened model.

namespace attnscope {

struct ModelConfig;
struct ModelInfo;

// info's architecture (model_type), kind ("decoder" or "encoder"), layers, heads, kvHeads, hidden,
// vocabSize, maxPositions and headDim, from config.
void describeModelShape(const ModelConfig& config, ModelInfo& info);

} // namespace attnscope
