// Llama and the decoders built like it (transformers: modeling_llama.py, modeling_mistral.py,
// modeling_qwen2.py, modeling_qwen3.py): the pre-norm RoPE decoder (model/prenormropedecoder.h) as it is.
// Their differences are settings here: q/k/v biases (Qwen2, attention_bias), an o_proj bias (attention_bias),
// MLP biases (mlp_bias), QK-norm over each head vector before RoPE (Qwen3), sliding windows (Mistral on every
// layer; Qwen2/3 on the layers from max_window_layers on, when use_sliding_window).

#include "model/familyregistry.h"
#include "model/prenormropedecoder.h"

namespace attnscope {

namespace {

class LlamaArchitecture final : public PreNormRopeDecoder
{
public:
    LlamaArchitecture(const ConfigReader& r, ModelConfig& c)
        : PreNormRopeDecoder(r, c, RopeDecoderConfig::Defaults{})
    {
        const bool qwen2 = c.modelType == QLatin1String("qwen2"),
                   qwen3 = c.modelType == QLatin1String("qwen3");
        m_layout.activation = r.activation("hidden_act", QStringLiteral("silu"));
        const bool attentionBias = r.flag("attention_bias", false);
        m_layout.qkvBias = attentionBias || qwen2;
        m_layout.outputBias = attentionBias && !qwen2;
        m_layout.mlpBias = r.flag("mlp_bias", false);
        m_layout.qkNorm = qwen3;

        std::vector<int>& windows = m_layout.windows; // all 0: full attention
        const int window = r.has("sliding_window") ? r.positive({"sliding_window"}) : 0;
        const int firstSlidingLayer = r.integer("max_window_layers", c.layers, 0, kMaxLayers);
        if (c.modelType == QLatin1String("mistral")) {
            windows.assign(size_t(c.layers), window);
        } else if ((qwen2 || qwen3) && r.flag("use_sliding_window", false) && window > 0) {
            // The layers from max_window_layers on slide (transformers' current Qwen2/Qwen3 layer_types).
            const QStringList types = r.strings("layer_types");
            for (int l = 0; l < c.layers; ++l)
                if (types.isEmpty() ? l >= firstSlidingLayer
                                    : types.value(l) == QLatin1String("sliding_attention"))
                    windows[size_t(l)] = window;
        }
    }
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
            &configureArchitecture<LlamaArchitecture>};
}

} // namespace families

} // namespace attnscope
