#pragma once

// How much memory a decoder's KV cache takes: per token, elements = layers × (what one layer caches), and
// bytes = elements × the storage type's size.
//   MHA  keys and values of every head:            2 · heads · head_dim
//   GQA  keys and values of each key/value group:  2 · kv_heads · head_dim   (MQA: kv_heads = 1)
//   MLA  DeepSeek-V2/V3's latent c_KV and the decoupled RoPE key, shared by all heads:
//        kv_lora_rank + qk_rope_head_dim          (DeepSeek-V2 paper, section 2.1; 576 for both models)
// What the lesson's calculator shows; the presets are the published configs (kvcachesize.cpp cites them).

#include <QString>
#include <cstdint>
#include <vector>

namespace attnscope {

struct ModelConfig;

enum class CacheAttention { MHA, GQA, MQA, MLA };

struct KvCacheShape
{
    QString name;
    CacheAttention attention = CacheAttention::GQA;
    int layers = 0;
    int heads = 0;      // query heads
    int kvHeads = 0;    // MHA: heads, MQA: 1
    int headDim = 0;    // MHA/GQA/MQA
    int latentRank = 0; // MLA: kv_lora_rank
    int ropeDim = 0;    // MLA: qk_rope_head_dim

    // Elements one token adds to one layer's cache.
    std::int64_t elementsPerTokenPerLayer() const;
    std::int64_t elementsPerToken() const { return elementsPerTokenPerLayer() * layers; }
    std::int64_t bytesPerToken(int bytesPerElement = 2) const { return elementsPerToken() * bytesPerElement; }
    std::int64_t bytes(std::int64_t tokens, int bytesPerElement = 2, int batch = 1) const
    {
        return bytesPerToken(bytesPerElement) * tokens * batch;
    }
    // The same model with every head keeping its own keys and values (MHA): what GQA/MQA/MLA save against.
    std::int64_t mhaElementsPerToken() const;
};

// A loaded model's shape: MHA when kv_heads = heads, MQA when 1, else GQA.
KvCacheShape kvCacheShape(const ModelConfig& config, const QString& name);

// Llama-3-8B, Mistral-7B, Qwen2.5-7B (GQA), DeepSeek-V2 and DeepSeek-V3 (MLA).
std::vector<KvCacheShape> kvCachePresets();

const char* cacheAttentionName(CacheAttention attention); // "MHA", "GQA", "MQA", "MLA"

} // namespace attnscope
