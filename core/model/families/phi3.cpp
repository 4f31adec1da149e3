// Phi-3, Phi-3.5 and Phi-4-mini (transformers: modeling_phi3.py): the pre-norm RoPE decoder
// (model/prenormropedecoder.h) with its differences:
//   - fused projections: qkv_proj is [(H + 2·H_kv)·d, h], its rows q | k | v; gate_up_proj is [2·I, h],
//     its rows gate | up, and the MLP is down(up ⊙ silu(gate));
//   - rms_norm_eps 1e-5 and max_position_embeddings 4096 by default;
//   - sliding_window applies to every layer.
// partial_rotary_factor (Phi-4-mini) and rope_scaling "longrope" (formerly "su": Phi-3-*-128k, Phi-3.5,
// short_factor or long_factor by the pass's length against original_max_position_embeddings) are read with
// every RoPE decoder's rotary embedding (model/ropedecoder.h).

#include "model/familyregistry.h"
#include "model/prenormropedecoder.h"

namespace attnscope {

namespace {

RopeDecoderConfig::Defaults phi3Defaults()
{
    RopeDecoderConfig::Defaults defaults;
    defaults.rmsEps = 1e-5;
    defaults.maxPositions = 4096;
    return defaults;
}

class Phi3Architecture final : public PreNormRopeDecoder
{
public:
    Phi3Architecture(const ConfigReader& r, ModelConfig& c) : PreNormRopeDecoder(r, c, phi3Defaults())
    {
        m_layout.activation = r.activation("hidden_act", QStringLiteral("silu"));
        m_layout.fusedQkv = true;
        m_layout.fusedGateUp = true;
        m_layout.windows.assign(size_t(c.layers),
                                r.has("sliding_window") ? r.positive({"sliding_window"}) : 0);
    }
};

} // namespace

namespace families {

FamilyUnit phi3FamilyUnit()
{
    return {QStringLiteral("phi3"),
            {QStringLiteral("phi3")},
            {{QStringLiteral("Phi3For"), QStringLiteral("phi3")}},
            &configureArchitecture<Phi3Architecture>};
}

} // namespace families

} // namespace attnscope
