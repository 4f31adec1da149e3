// Gemma 1, 2 and 3 (transformers: modeling_gemma.py, modeling_gemma2.py, modeling_gemma3.py). A Llama-like
// decoder with its own habits:
//   - RMSNorm scales by (1 + w), not w;
//   - embeddings are multiplied by sqrt(hidden) (the normalizer in the model's dtype: float32 here);
//   - GeGLU: down(gelu_tanh(gate(h)) ⊙ up(h)) (hidden_activation; Gemma 1's hidden_act "gelu" is not used);
//   - head_dim is its own setting (256), not hidden / heads.
// Gemma 2 adds: scores scaled by query_pre_attn_scalar^-1/2 and soft-capped (c · tanh(S / c),
// attn_logit_softcapping) before the mask; a norm after attention and around the MLP
// (post_attention_layernorm, pre_ and post_feedforward_layernorm); a sliding window on every other layer
// (layers 0, 2, ...); the LM head's logits soft-capped too (final_logit_softcapping).
// Gemma 3 drops the attention soft cap for QK-norm ((1 + w) RMSNorm of each query and key head vector before
// RoPE), and alternates local layers (sliding window, their own RoPE base rope_local_base_freq, no scaling)
// with global ones (rope_theta and rope_scaling): layer_types, or every sliding_window_pattern-th layer
// global. model_type "gemma3" (the multimodal checkpoints) runs its text model from text_config.

#include "model/architecture.h"
#include "model/familyregistry.h"
#include "model/layerstep.h"
#include "model/ropedecoder.h"

#include <cmath>

namespace attnscope {

namespace {

enum class Generation { Gemma1, Gemma2, Gemma3 };

class GemmaArchitecture final : public Architecture
{
public:
    GemmaArchitecture(const ConfigReader& r, ModelConfig& c, Generation generation, bool multimodal)
        : m_generation(generation), m_multimodal(multimodal)
    {
        RopeDecoderConfig::Defaults defaults;
        defaults.tiedEmbeddings = true;
        defaults.maxPositions = generation == Generation::Gemma3 ? 131072 : 8192;
        defaults.ropeTheta = generation == Generation::Gemma3 ? 1000000.0 : 10000.0;
        m_decoder = RopeDecoderConfig::read(r, c, defaults);
        m_activation = r.activation("hidden_activation", QStringLiteral("gelu_pytorch_tanh"));
        if (r.flag("attention_bias", false))
            r.fail(QStringLiteral("attention_bias is not supported for %1").arg(c.modelType));
        if (r.flag("use_bidirectional_attention", false))
            r.fail(QStringLiteral("use_bidirectional_attention (EmbeddingGemma) is not supported"));
        m_layers = c.layers;
        m_hidden = c.hidden;
        m_heads = c.heads;
        m_kvHeads = c.kvHeads;
        m_headDim = c.headDim;
        m_vocab = c.vocabSize;
        m_embedScale = float(std::sqrt(double(c.hidden)));

        m_scale = 1.0f / std::sqrt(float(c.headDim));
        if (generation != Generation::Gemma1)
            m_scale = float(std::pow(r.positiveNumber("query_pre_attn_scalar", 256.0), -0.5));
        // Absent keys take the config class's default, null switches the cap off.
        auto cap = [&](const char* key, double fallback) {
            return float(r.json().contains(QLatin1String(key)) ? r.optionalNumber(key).value_or(0.0)
                                                               : fallback);
        };
        if (generation == Generation::Gemma2) {
            m_softCap = cap("attn_logit_softcapping", 50.0);
            m_finalSoftCap = cap("final_logit_softcapping", 30.0);
        } else if (generation == Generation::Gemma3) {
            m_softCap = cap("attn_logit_softcapping", 0.0);
            m_finalSoftCap = cap("final_logit_softcapping", 0.0);
        }
        if (m_softCap < 0 || m_finalSoftCap < 0) r.fail(QStringLiteral("soft caps must be positive"));

        // Which layers slide, and (Gemma 3) their RoPE.
        m_windows.assign(size_t(c.layers), 0);
        m_globalRope.assign(size_t(c.layers), true);
        if (generation == Generation::Gemma1) return;
        const int window = r.positive({"sliding_window"}, 4096);
        QStringList types = r.strings("layer_types");
        if (!types.isEmpty() && types.size() != c.layers)
            r.fail(
                QStringLiteral("layer_types has %1 entries for %2 layers").arg(types.size()).arg(c.layers));
        for (int l = 0; l < c.layers; ++l) {
            bool sliding = false;
            if (!types.isEmpty())
                sliding = types[l] == QLatin1String("sliding_attention");
            else if (generation == Generation::Gemma2)
                sliding = l % 2 == 0;
            else
                sliding = (l + 1) % r.positive({"sliding_window_pattern", "_sliding_window_pattern"}, 6) != 0;
            if (sliding) m_windows[size_t(l)] = window;
            m_globalRope[size_t(l)] = generation == Generation::Gemma2 || !sliding;
        }
        if (generation == Generation::Gemma3) {
            // Local layers: their own base, never scaled (5.x: rope_parameters["sliding_attention"]).
            const QJsonObject perType = r.object("rope_parameters");
            const QJsonObject local = perType.value(QLatin1String("sliding_attention")).toObject();
            const QJsonObject global = perType.value(QLatin1String("full_attention")).toObject();
            const int maxPositions = r.positive({"max_position_embeddings"}, defaults.maxPositions);
            if (!global.isEmpty()) {
                m_decoder.rotary = RopeDecoderConfig::readRotary(r, global, defaults.ropeTheta, c.headDim,
                                                                 c.headDim, maxPositions);
                c.ropeTheta = m_decoder.rotary.theta();
            }
            m_localRotary =
                !local.isEmpty()
                    ? RopeDecoderConfig::readRotary(r, local, 10000.0, c.headDim, c.headDim, maxPositions)
                    : r.rotaryEmbedding(r.number("rope_local_base_freq", 10000.0), c.headDim, c.headDim,
                                        RopeScaling{}, maxPositions);
        }
    }

    QStringList weightPrefixes() const override
    {
        if (m_multimodal)
            return {QStringLiteral("language_model.model."), QStringLiteral("model.language_model."),
                    QStringLiteral("model.")};
        return {QStringLiteral("model."), QString()};
    }
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
            if (m_generation != Generation::Gemma1) {
                list.require(n("pre_feedforward_layernorm.weight"), {h});
                list.require(n("post_feedforward_layernorm.weight"), {h});
            }
            list.require(n("self_attn.q_proj.weight"), {q, h});
            list.require(n("self_attn.k_proj.weight"), {kv, h});
            list.require(n("self_attn.v_proj.weight"), {kv, h});
            list.require(n("self_attn.o_proj.weight"), {h, q});
            if (m_generation == Generation::Gemma3) {
                list.require(n("self_attn.q_norm.weight"), {m_headDim});
                list.require(n("self_attn.k_norm.weight"), {m_headDim});
            }
            list.require(n("mlp.gate_proj.weight"), {I, h});
            list.require(n("mlp.up_proj.weight"), {I, h});
            list.require(n("mlp.down_proj.weight"), {h, I});
        }
        list.require(QStringLiteral("norm.weight"), {h});
        list.optionalFullName(QStringLiteral("lm_head.weight"), {m_vocab, h});
    }

    void embed(const TokenInput& input, const ModelWeights& w, std::vector<float>& x, int) const override
    {
        addRows(w, QStringLiteral("embed_tokens.weight"), input.ids, x, m_hidden, m_embedScale);
    }

    void layer(LayerStep& s) const override
    {
        const LayerNames n(QStringLiteral("layers.%1."), s.layer());
        const double eps = m_decoder.rmsEps;
        const bool plusOne = true;
        const std::vector<float> h = s.rmsNorm(s.residual(), n("input_layernorm.weight"), eps, plusOne);
        auto [q, k, v] = s.projectQkv(h, {n("self_attn.q_proj.weight"), n("self_attn.k_proj.weight"),
                                          n("self_attn.v_proj.weight"), QString(), QString(), QString(),
                                          m_heads, m_kvHeads, m_headDim});
        if (m_generation == Generation::Gemma3) {
            s.rmsNormHeads(q, n("self_attn.q_norm.weight"), eps, plusOne);
            s.rmsNormHeads(k, n("self_attn.k_norm.weight"), eps, plusOne);
        }
        LayerAttention attention;
        attention.rotary = m_globalRope[size_t(s.layer())] ? &m_decoder.rotary : &m_localRotary;
        attention.scale = m_scale;
        attention.softCap = m_softCap;
        attention.slidingWindow = m_windows[size_t(s.layer())];
        const HeadTensor o = s.attend(std::move(q), std::move(k), std::move(v), attention);
        std::vector<float> a = s.projectOutput(o, n("self_attn.o_proj.weight"));
        if (s.restOfLayerUnused()) return; // RunOptions::attentionOnly, the last layer
        if (m_generation == Generation::Gemma1) {
            s.addToResidual(a);
            const std::vector<float> h2 =
                s.rmsNorm(s.residual(), n("post_attention_layernorm.weight"), eps, plusOne);
            s.addToResidual(mlp(s, n, h2));
            return;
        }
        s.addToResidual(s.rmsNorm(a, n("post_attention_layernorm.weight"), eps, plusOne));
        const std::vector<float> h2 =
            s.rmsNorm(s.residual(), n("pre_feedforward_layernorm.weight"), eps, plusOne);
        s.addToResidual(s.rmsNorm(mlp(s, n, h2), n("post_feedforward_layernorm.weight"), eps, plusOne));
    }

    void finalNorm(const ModelWeights& w, std::vector<float>& x, int threads) const override
    {
        rmsNormRows(w, QStringLiteral("norm.weight"), x, m_hidden, m_decoder.rmsEps, threads, 1.0f);
    }

    OutputHead outputHead(const ModelWeights& w) const override
    {
        OutputHead head = nextTokenHead(w, m_decoder.tiedEmbeddings, QStringLiteral("embed_tokens.weight"));
        head.finalSoftCap = m_finalSoftCap;
        return head;
    }

private:
    std::vector<float> mlp(const LayerStep& s, const LayerNames& n, const std::vector<float>& h) const
    {
        return s.gatedMlp(h, n("mlp.gate_proj.weight"), n("mlp.up_proj.weight"), n("mlp.down_proj.weight"),
                          m_activation);
    }

    Generation m_generation;
    bool m_multimodal;
    RopeDecoderConfig m_decoder;   // its rotary: every layer (Gemma 1, 2), the global layers (Gemma 3)
    RotaryEmbedding m_localRotary; // Gemma 3's local layers
    Activation m_activation = Activation::GeluTanh;
    float m_embedScale = 1.0f, m_scale = 1.0f, m_softCap = 0.0f, m_finalSoftCap = 0.0f;
    int m_layers = 0, m_hidden = 0, m_heads = 0, m_kvHeads = 0, m_headDim = 0, m_vocab = 0;
    std::vector<int> m_windows;     // per layer; 0 = full attention
    std::vector<bool> m_globalRope; // per layer: m_decoder.rotary, else m_localRotary
};

std::shared_ptr<const Architecture> configureGemma(const ConfigReader& r, ModelConfig& c)
{
    if (c.modelType == QLatin1String("gemma"))
        return std::make_shared<GemmaArchitecture>(r, c, Generation::Gemma1, false);
    if (c.modelType == QLatin1String("gemma2"))
        return std::make_shared<GemmaArchitecture>(r, c, Generation::Gemma2, false);
    if (c.modelType == QLatin1String("gemma3_text"))
        return std::make_shared<GemmaArchitecture>(r, c, Generation::Gemma3, false);
    // "gemma3": an image-text checkpoint; AttnScope runs its language model.
    const QJsonObject text = r.object("text_config");
    if (text.isEmpty()) r.fail(QStringLiteral("a gemma3 config needs text_config"));
    return std::make_shared<GemmaArchitecture>(ConfigReader(text, r.file()), c, Generation::Gemma3, true);
}

} // namespace

namespace families {

FamilyUnit gemmaFamilyUnit()
{
    return {QStringLiteral("gemma"),
            {QStringLiteral("gemma"), QStringLiteral("gemma2"), QStringLiteral("gemma3_text"),
             QStringLiteral("gemma3")},
            {{QStringLiteral("GemmaFor"), QStringLiteral("gemma")},
             {QStringLiteral("Gemma2For"), QStringLiteral("gemma2")},
             {QStringLiteral("Gemma3ForCausalLM"), QStringLiteral("gemma3_text")},
             {QStringLiteral("Gemma3ForConditionalGeneration"), QStringLiteral("gemma3")}},
            &configureGemma};
}

} // namespace families

} // namespace attnscope
