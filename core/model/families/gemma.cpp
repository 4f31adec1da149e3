// Gemma 1, 2 and 3 (transformers: modeling_gemma.py, modeling_gemma2.py, modeling_gemma3.py): the pre-norm
// RoPE decoder (model/prenormropedecoder.h) with its own habits:
//   - RMSNorm scales by (1 + w), not w;
//   - embeddings are multiplied by sqrt(hidden) (the normalizer in the model's dtype: float32 here);
//   - GeGLU: down(gelu_tanh(gate(h)) ⊙ up(h)) (hidden_activation; Gemma 1's hidden_act "gelu" is not used);
//   - head_dim is its own setting (256), not hidden / heads; embeddings tied by default.
// Gemma 2 adds: scores scaled by query_pre_attn_scalar^-1/2 and soft-capped (c · tanh(S / c),
// attn_logit_softcapping) before the mask; a norm after attention and around the MLP
// (post_attention_layernorm, pre_ and post_feedforward_layernorm); a sliding window on every other layer
// (layers 0, 2, ...); the LM head's logits soft-capped too (final_logit_softcapping).
// Gemma 3 drops the attention soft cap for QK-norm ((1 + w) RMSNorm of each query and key head vector before
// RoPE), and alternates local layers (sliding window, their own RoPE base rope_local_base_freq, no scaling)
// with global ones (rope_theta and rope_scaling): layer_types, or every sliding_window_pattern-th layer
// global. model_type "gemma3" (the multimodal checkpoints) runs its text model from text_config, whose
// tensors are under language_model.

#include "model/familyregistry.h"
#include "model/prenormropedecoder.h"

#include <cmath>

namespace attnscope {

namespace {

enum class Generation { Gemma1, Gemma2, Gemma3 };

RopeDecoderConfig::Defaults gemmaDefaults(Generation generation)
{
    RopeDecoderConfig::Defaults defaults;
    defaults.tiedEmbeddings = true;
    defaults.maxPositions = generation == Generation::Gemma3 ? 131072 : 8192;
    defaults.ropeTheta = generation == Generation::Gemma3 ? 1000000.0 : 10000.0;
    return defaults;
}

class GemmaArchitecture final : public PreNormRopeDecoder
{
public:
    GemmaArchitecture(const ConfigReader& r, ModelConfig& c, Generation generation, bool multimodal)
        : PreNormRopeDecoder(r, c, gemmaDefaults(generation)), m_multimodal(multimodal)
    {
        m_layout.activation = r.activation("hidden_activation", QStringLiteral("gelu_pytorch_tanh"));
        if (r.flag("attention_bias", false))
            r.fail(QStringLiteral("attention_bias is not supported for %1").arg(c.modelType));
        if (r.flag("use_bidirectional_attention", false))
            r.fail(QStringLiteral("use_bidirectional_attention (EmbeddingGemma) is not supported"));
        m_layout.normPlusOne = true;
        m_layout.sandwichNorms = generation != Generation::Gemma1;
        m_layout.qkNorm = generation == Generation::Gemma3;
        m_layout.embedScale = float(std::sqrt(double(c.hidden)));

        m_layout.attentionScale =
            generation == Generation::Gemma1
                ? 1.0f / std::sqrt(float(c.headDim))
                : float(std::pow(r.positiveNumber("query_pre_attn_scalar", 256.0), -0.5));
        // Absent keys take the config class's default, null switches the cap off.
        auto cap = [&](const char* key, double fallback) {
            return float(r.json().contains(QLatin1String(key)) ? r.optionalNumber(key).value_or(0.0)
                                                               : fallback);
        };
        float& softCap = m_layout.softCap;
        float& finalSoftCap = m_layout.finalSoftCap;
        if (generation == Generation::Gemma2) {
            softCap = cap("attn_logit_softcapping", 50.0);
            finalSoftCap = cap("final_logit_softcapping", 30.0);
        } else if (generation == Generation::Gemma3) {
            softCap = cap("attn_logit_softcapping", 0.0);
            finalSoftCap = cap("final_logit_softcapping", 0.0);
        }
        if (softCap < 0 || finalSoftCap < 0) r.fail(QStringLiteral("soft caps must be positive"));

        // Which layers slide, and (Gemma 3) their RoPE.
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
            if (sliding) m_layout.windows[size_t(l)] = window;
            m_globalRope[size_t(l)] = generation == Generation::Gemma2 || !sliding;
        }
        if (generation == Generation::Gemma3) {
            // Local layers: their own base, never scaled (5.x: rope_parameters["sliding_attention"]).
            const RopeDecoderConfig::Defaults defaults = gemmaDefaults(generation);
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
        return PreNormRopeDecoder::weightPrefixes();
    }

protected:
    const RotaryEmbedding* rotary(int layer) const override
    {
        return m_globalRope[size_t(layer)] ? &m_decoder.rotary : &m_localRotary;
    }

private:
    bool m_multimodal;
    RotaryEmbedding m_localRotary;  // Gemma 3's local layers; m_decoder.rotary: every other layer
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
