#pragma once

// The decoder Llama, Mistral, Qwen2/3, Phi-3 and Gemma 1-3 are built as: pre-norm RMSNorm, rotary embedding,
// grouped-query attention, a gated MLP (transformers: modeling_llama.py and the files copied from it):
//   embed:     x = scale · embed_tokens[ids]
//   per layer: x += o_proj(attention(rope(q), rope(k), v) of input_layernorm(x))
//              x += down(act(gate(h)) ⊙ up(h)),  h = post_attention_layernorm(x)
//   norm before the LM head (tied to embed_tokens unless lm_head.weight is there).
// A family derives from it, fills its Layout from its config and keeps only what is its own (its
// constructor, and where it has them its weight prefixes and per-layer rotary embedding). Tensor names are
// transformers' ("layers.L.self_attn.q_proj.weight", ...) under "model." or no prefix.

#include "attention/headtensor.h"
#include "model/architecture.h"
#include "model/ropedecoder.h"

#include <array>
#include <optional>
#include <vector>

namespace attnscope {

class LayerStep;

class PreNormRopeDecoder : public Architecture
{
public:
    // How a family's layer differs from Llama's; the defaults are Llama's.
    struct Layout
    {
        Activation activation = Activation::Silu;
        // Phi-3's fused projections: qkv_proj [(H + 2·H_kv)·d, h], its rows q | k | v; gate_up_proj
        // [2·I, h], its rows gate | up. Else q_proj, k_proj, v_proj; gate_proj, up_proj.
        bool fusedQkv = false, fusedGateUp = false;
        bool qkvBias = false, outputBias = false, mlpBias = false;
        bool qkNorm = false;      // RMSNorm of each query and key head vector before RoPE (Qwen3, Gemma 3)
        bool normPlusOne = false; // every RMSNorm scales by (1 + w) (Gemma)
        // Gemma 2/3: post_attention_layernorm normalises the attention output before it is added, and
        // pre_feedforward_layernorm / post_feedforward_layernorm go around the MLP.
        bool sandwichNorms = false;
        float embedScale = 1.0f;                   // Gemma: sqrt(hidden)
        std::optional<float> attentionScale;       // default 1/sqrt(head dimension)
        float softCap = 0.0f, finalSoftCap = 0.0f; // attention scores, LM-head logits; 0 = none
        std::vector<int> windows;                  // per layer (sized by the constructor); 0 = full attention
    };

    QStringList weightPrefixes() const override;
    QString anchorTensor() const override;
    void declareTensors(TensorChecklist& list) const override;
    void embed(const TokenInput& input, const ModelWeights& w, std::vector<float>& x, int) const override;
    void layer(LayerStep& s) const override;
    void finalNorm(const ModelWeights& w, std::vector<float>& x, int threads) const override;
    OutputHead outputHead(const ModelWeights& w) const override;

protected:
    // Reads the shapes and the rotary embedding (RopeDecoderConfig::read) into m_decoder and c.
    PreNormRopeDecoder(const ConfigReader& r, ModelConfig& c, const RopeDecoderConfig::Defaults& defaults);
    // The rotary embedding of `layer`: m_decoder.rotary (Gemma 3 gives its local layers their own).
    virtual const RotaryEmbedding* rotary(int layer) const;

    RopeDecoderConfig m_decoder;
    Layout m_layout;
    int m_layers = 0, m_hidden = 0, m_heads = 0, m_kvHeads = 0, m_headDim = 0, m_vocab = 0;

private:
    std::array<HeadTensor, 3> projectQkv(LayerStep& s, const LayerNames& n,
                                         const std::vector<float>& h) const;
    std::vector<float> mlp(const LayerStep& s, const LayerNames& n, const std::vector<float>& h) const;
};

} // namespace attnscope
