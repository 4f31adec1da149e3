// Llama and the decoders built like it (transformers: modeling_llama.py, modeling_mistral.py,
// modeling_qwen2.py, modeling_qwen3.py). Pre-norm RMSNorm, rotary embedding, grouped-query attention, SwiGLU:
//   per layer: x += o_proj(attention(rope(q), rope(k), v) of input_layernorm(x))
//              x += down(silu(gate(h)) ⊙ up(h)),  h = post_attention_layernorm(x)
//   norm before the LM head.
// Their differences are settings here: q/k/v biases (Qwen2, attention_bias), an o_proj bias (attention_bias),
// MLP biases (mlp_bias), QK-norm over each head vector before RoPE (Qwen3), sliding windows (Mistral on every
// layer; Qwen2/3 on the layers from max_window_layers on, when use_sliding_window).

#include "model/architecture.h"
#include "model/familyregistry.h"
#include "model/layerstep.h"
#include "model/ropedecoder.h"

namespace attnscope {

namespace {

class LlamaArchitecture final : public Architecture
{
public:
    LlamaArchitecture(const ConfigReader& r, ModelConfig& c)
    {
        const bool qwen2 = c.modelType == QLatin1String("qwen2"),
                   qwen3 = c.modelType == QLatin1String("qwen3");
        m_decoder = RopeDecoderConfig::read(r, c, RopeDecoderConfig::Defaults{});
        m_activation = r.activation("hidden_act", QStringLiteral("silu"));
        const bool attentionBias = r.flag("attention_bias", false);
        m_qkvBias = attentionBias || qwen2;
        m_outputBias = attentionBias && !qwen2;
        m_mlpBias = r.flag("mlp_bias", false);
        m_qkNorm = qwen3;
        m_layers = c.layers;
        m_hidden = c.hidden;
        m_heads = c.heads;
        m_kvHeads = c.kvHeads;
        m_headDim = c.headDim;
        m_vocab = c.vocabSize;

        m_windows.assign(size_t(c.layers), 0);
        const int window = r.has("sliding_window") ? r.positive({"sliding_window"}) : 0;
        const int firstSlidingLayer = r.integer("max_window_layers", c.layers, 0, kMaxLayers);
        if (c.modelType == QLatin1String("mistral")) {
            m_windows.assign(size_t(c.layers), window);
        } else if ((qwen2 || qwen3) && r.flag("use_sliding_window", false) && window > 0) {
            // The layers from max_window_layers on slide (transformers' current Qwen2/Qwen3 layer_types).
            const QStringList types = r.strings("layer_types");
            for (int l = 0; l < c.layers; ++l)
                if (types.isEmpty() ? l >= firstSlidingLayer
                                    : types.value(l) == QLatin1String("sliding_attention"))
                    m_windows[size_t(l)] = window;
        }
    }

    QStringList weightPrefixes() const override { return {QStringLiteral("model."), QString()}; }
    QString anchorTensor() const override { return QStringLiteral("embed_tokens.weight"); }

    void declareTensors(TensorChecklist& list) const override
    {
        const qint64 h = m_hidden, I = m_decoder.intermediate, q = qint64(m_heads) * m_headDim,
                     kv = qint64(m_kvHeads) * m_headDim;
        list.require(QStringLiteral("embed_tokens.weight"), {m_vocab, h});
        for (int l = 0; l < m_layers; ++l) {
            const LayerNames n(QStringLiteral("layers.%1."), l);
            list.require(n("input_layernorm.weight"), {h});
            list.require(n("post_attention_layernorm.weight"), {h});
            list.require(n("self_attn.q_proj.weight"), {q, h});
            list.require(n("self_attn.k_proj.weight"), {kv, h});
            list.require(n("self_attn.v_proj.weight"), {kv, h});
            list.require(n("self_attn.o_proj.weight"), {h, q});
            if (m_qkvBias) {
                list.require(n("self_attn.q_proj.bias"), {q});
                list.require(n("self_attn.k_proj.bias"), {kv});
                list.require(n("self_attn.v_proj.bias"), {kv});
            }
            if (m_outputBias) list.require(n("self_attn.o_proj.bias"), {h});
            if (m_qkNorm) {
                list.require(n("self_attn.q_norm.weight"), {m_headDim});
                list.require(n("self_attn.k_norm.weight"), {m_headDim});
            }
            list.require(n("mlp.gate_proj.weight"), {I, h});
            list.require(n("mlp.up_proj.weight"), {I, h});
            list.require(n("mlp.down_proj.weight"), {h, I});
            if (m_mlpBias) {
                list.require(n("mlp.gate_proj.bias"), {I});
                list.require(n("mlp.up_proj.bias"), {I});
                list.require(n("mlp.down_proj.bias"), {h});
            }
        }
        list.require(QStringLiteral("norm.weight"), {h});
        list.optionalFullName(QStringLiteral("lm_head.weight"), {m_vocab, h});
    }

    void embed(const TokenInput& input, const ModelWeights& w, std::vector<float>& x, int) const override
    {
        addRows(w, QStringLiteral("embed_tokens.weight"), input.ids, x, m_hidden);
    }

    void layer(LayerStep& s) const override
    {
        const LayerNames n(QStringLiteral("layers.%1."), s.layer());
        const double eps = m_decoder.rmsEps;
        const std::vector<float> h = s.rmsNorm(s.residual(), n("input_layernorm.weight"), eps);
        const auto name = [&](const char* which, const char* part) {
            return n("self_attn.") + QLatin1String(which) + QLatin1String(part);
        };
        const auto bias = [&](const char* which) { return m_qkvBias ? name(which, ".bias") : QString(); };
        auto [q, k, v] =
            s.projectQkv(h, {name("q_proj", ".weight"), name("k_proj", ".weight"), name("v_proj", ".weight"),
                             bias("q_proj"), bias("k_proj"), bias("v_proj"), m_heads, m_kvHeads, m_headDim});
        if (m_qkNorm) {
            s.rmsNormHeads(q, n("self_attn.q_norm.weight"), eps);
            s.rmsNormHeads(k, n("self_attn.k_norm.weight"), eps);
        }
        LayerAttention attention;
        attention.rotary = &m_decoder.rotary;
        attention.slidingWindow = m_windows[size_t(s.layer())];
        const HeadTensor o = s.attend(std::move(q), std::move(k), std::move(v), attention);
        s.addToResidual(s.projectOutput(o, n("self_attn.o_proj.weight"),
                                        m_outputBias ? n("self_attn.o_proj.bias") : QString()));
        if (s.restOfLayerUnused()) return; // RunOptions::attentionOnly, the last layer
        const std::vector<float> h2 = s.rmsNorm(s.residual(), n("post_attention_layernorm.weight"), eps);
        s.addToResidual(s.gatedMlp(h2, n("mlp.gate_proj.weight"), n("mlp.up_proj.weight"),
                                   n("mlp.down_proj.weight"), m_activation, m_mlpBias));
    }

    void finalNorm(const ModelWeights& w, std::vector<float>& x, int threads) const override
    {
        rmsNormRows(w, QStringLiteral("norm.weight"), x, m_hidden, m_decoder.rmsEps, threads);
    }

    OutputHead outputHead(const ModelWeights& w) const override
    {
        return nextTokenHead(w, m_decoder.tiedEmbeddings, QStringLiteral("embed_tokens.weight"));
    }

private:
    RopeDecoderConfig m_decoder;
    Activation m_activation = Activation::Silu;
    bool m_qkvBias = false, m_outputBias = false, m_mlpBias = false, m_qkNorm = false;
    int m_layers = 0, m_hidden = 0, m_heads = 0, m_kvHeads = 0, m_headDim = 0, m_vocab = 0;
    std::vector<int> m_windows; // per layer; 0 = full attention
};

} // namespace

namespace families {

FamilyUnit llamaFamilyUnit()
{
    return {QStringLiteral("llama"),
            {QStringLiteral("llama"), QStringLiteral("mistral"), QStringLiteral("qwen2"),
             QStringLiteral("qwen3")},
            {{QStringLiteral("LlamaFor"), QStringLiteral("llama")},
             {QStringLiteral("MistralFor"), QStringLiteral("mistral")},
             {QStringLiteral("Qwen2For"), QStringLiteral("qwen2")},
             {QStringLiteral("Qwen3For"), QStringLiteral("qwen3")}},
            [](const ConfigReader& r, ModelConfig& c) -> std::shared_ptr<const Architecture> {
                return std::make_shared<LlamaArchitecture>(r, c);
            }};
}

} // namespace families

} // namespace attnscope
