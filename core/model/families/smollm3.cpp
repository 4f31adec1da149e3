// SmolLM3 (transformers: modeling_smollm3.py, configuration_smollm3.py at commits b0fc62de and 6551e17f):
// Llama's pre-norm RoPE decoder (model/prenormropedecoder.h) whose NoPE layers skip RoPE. no_rope_layers
// holds one flag per layer, 1 = RoPE, 0 = NoPE (SmolLM3-3B: every 4th layer, the default
// (l + 1) % no_rope_layer_interval != 0). attention_bias puts a bias on q, k, v and o; mlp_bias on the MLP;
// with use_sliding_window the layer_types' "sliding_attention" layers slide (by default the NoPE layers).
// The config class does not set tie_word_embeddings, so PretrainedConfig's default (tied) holds.

#include "model/familyregistry.h"
#include "model/prenormropedecoder.h"

#include <QJsonArray>

namespace attnscope {

namespace {

RopeDecoderConfig::Defaults smolLm3Defaults()
{
    RopeDecoderConfig::Defaults defaults;
    defaults.ropeTheta = 2000000.0;
    defaults.tiedEmbeddings = true;
    defaults.maxPositions = 32768;
    return defaults;
}

class SmolLm3Architecture final : public PreNormRopeDecoder
{
public:
    SmolLm3Architecture(const ConfigReader& r, ModelConfig& c) : PreNormRopeDecoder(r, c, smolLm3Defaults())
    {
        m_layout.activation = r.activation("hidden_act", QStringLiteral("silu"));
        const bool attentionBias = r.flag("attention_bias", false);
        m_layout.qkvBias = attentionBias;
        m_layout.outputBias = attentionBias;
        m_layout.mlpBias = r.flag("mlp_bias", false);

        m_rope.assign(size_t(c.layers), true);
        if (r.has("no_rope_layers")) {
            const QJsonValue listValue = r.json().value(QLatin1String("no_rope_layers"));
            if (!listValue.isArray()) r.fail(QStringLiteral("no_rope_layers must be a list of 0 and 1"));
            const QJsonArray list = listValue.toArray();
            if (list.size() < c.layers)
                r.fail(QStringLiteral("no_rope_layers has %1 entries for %2 layers")
                           .arg(list.size())
                           .arg(c.layers));
            for (int l = 0; l < c.layers; ++l) {
                const QJsonValue flag = list.at(l);
                if (!flag.isDouble() || (flag.toDouble() != 0.0 && flag.toDouble() != 1.0))
                    r.fail(QStringLiteral("no_rope_layers[%1] must be 0 (NoPE) or 1 (RoPE)").arg(l));
                m_rope[size_t(l)] = flag.toDouble() == 1.0;
            }
        } else {
            const int interval = r.positive({"no_rope_layer_interval"}, 4);
            for (int l = 0; l < c.layers; ++l)
                m_rope[size_t(l)] = (l + 1) % interval != 0;
        }

        if (r.flag("use_sliding_window", false) && r.has("sliding_window")) {
            const int window = r.positive({"sliding_window"});
            const QStringList types = r.strings("layer_types");
            if (!types.isEmpty() && types.size() != c.layers)
                r.fail(QStringLiteral("layer_types has %1 entries for %2 layers")
                           .arg(types.size())
                           .arg(c.layers));
            for (int l = 0; l < c.layers; ++l)
                if (types.isEmpty() ? !m_rope[size_t(l)] : types[l] == QLatin1String("sliding_attention"))
                    m_layout.windows[size_t(l)] = window;
        }
    }

protected:
    const RotaryEmbedding* rotary(int layer) const override
    {
        return m_rope[size_t(layer)] ? &m_decoder.rotary : nullptr;
    }

private:
    std::vector<bool> m_rope; // per layer: RoPE (true) or NoPE
};

} // namespace

namespace families {

FamilyUnit smollm3FamilyUnit()
{
    return {QStringLiteral("smollm3"),
            {QStringLiteral("smollm3")},
            {{QStringLiteral("SmolLM3For"), QStringLiteral("smollm3")}},
            &configureArchitecture<SmolLm3Architecture>};
}

} // namespace families

} // namespace attnscope
