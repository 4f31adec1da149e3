#include "generation/kvcachesize.h"

#include "model/modelconfig.h"

namespace attnscope {

std::int64_t KvCacheShape::elementsPerTokenPerLayer() const
{
    if (attention == CacheAttention::MLA) return std::int64_t(latentRank) + ropeDim;
    return 2 * std::int64_t(kvHeads) * headDim;
}

std::int64_t KvCacheShape::mhaElementsPerToken() const
{
    // MLA's heads are decompressed to qk_nope + qk_rope for keys and v_head_dim for values; this counts the
    // plain form 2 · heads · headDim with the presets' headDim (128, the value head dimension).
    return 2 * std::int64_t(heads) * headDim * layers;
}

KvCacheShape kvCacheShape(const ModelConfig& config, const QString& name)
{
    KvCacheShape s;
    s.name = name;
    s.layers = config.layers;
    s.heads = config.heads;
    s.kvHeads = config.kvHeads;
    s.headDim = config.headDim;
    s.attention = config.kvHeads == config.heads ? CacheAttention::MHA
                  : config.kvHeads == 1          ? CacheAttention::MQA
                                                 : CacheAttention::GQA;
    return s;
}

// From each model's config.json on the Hugging Face hub:
//   meta-llama/Meta-Llama-3-8B: num_hidden_layers 32, num_attention_heads 32, num_key_value_heads 8,
//     hidden_size 4096 (head_dim 128)
//   mistralai/Mistral-7B-v0.1: num_hidden_layers 32, num_attention_heads 32, num_key_value_heads 8,
//     hidden_size 4096 (head_dim 128)
//   Qwen/Qwen2.5-7B: num_hidden_layers 28, num_attention_heads 28, num_key_value_heads 4, hidden_size 3584
//     (head_dim 128)
//   deepseek-ai/DeepSeek-V2: num_hidden_layers 60, num_attention_heads 128, kv_lora_rank 512,
//     qk_rope_head_dim 64, qk_nope_head_dim 128, v_head_dim 128
//   deepseek-ai/DeepSeek-V3: num_hidden_layers 61, num_attention_heads 128, kv_lora_rank 512,
//     qk_rope_head_dim 64, qk_nope_head_dim 128, v_head_dim 128
std::vector<KvCacheShape> kvCachePresets()
{
    KvCacheShape llama{QStringLiteral("Llama-3-8B"), CacheAttention::GQA, 32, 32, 8, 128, 0, 0};
    KvCacheShape mistral{QStringLiteral("Mistral-7B"), CacheAttention::GQA, 32, 32, 8, 128, 0, 0};
    KvCacheShape qwen{QStringLiteral("Qwen2.5-7B"), CacheAttention::GQA, 28, 28, 4, 128, 0, 0};
    KvCacheShape v2{QStringLiteral("DeepSeek-V2"), CacheAttention::MLA, 60, 128, 0, 128, 512, 64};
    KvCacheShape v3{QStringLiteral("DeepSeek-V3"), CacheAttention::MLA, 61, 128, 0, 128, 512, 64};
    return {llama, mistral, qwen, v2, v3};
}

const char* cacheAttentionName(CacheAttention attention)
{
    switch (attention) {
    case CacheAttention::MHA:
        return "MHA";
    case CacheAttention::GQA:
        return "GQA";
    case CacheAttention::MQA:
        return "MQA";
    case CacheAttention::MLA:
        return "MLA";
    }
    return "";
}

} // namespace attnscope
