// gpt-oss (transformers: modeling_gpt_oss.py at commit 6edf5b31, configuration_gpt_oss.py at 828a27fd):
// Llama's pre-norm RoPE decoder (model/prenormropedecoder.h) with
//   - a learned sink per head (self_attn.sinks [H], BF16 in the released checkpoints): each row's softmax
//   runs
//     over its scores and the sink logit, whose column is then dropped, so P's rows sum to less than 1
//     (AttentionOptions::sinks); AttnScope shows P as the model defines it, the missing mass being the sink;
//   - layer_types: "sliding_attention" layers (by default the even ones) see the last sliding_window (128)
//     keys, the others every key;
//   - biases on q, k, v and o (attention_bias is always true), YaRN RoPE (rope_scaling; its attention factor
//     0.1·ln(factor) + 1 multiplies cos and sin, RotaryEmbedding);
//   - a mixture of experts for the MLP: router logits = h · Wᵀ + b; the num_experts_per_tok largest,
//   softmaxed
//     among themselves, weight their experts; expert e of the stacked mlp.experts tensors:
//         gate_up = h · gate_up_proj[e] + gate_up_proj_bias[e]     gate_up_proj [E, hidden, 2·I], gate and up
//                                                                  interleaved (gate = even columns)
//         gate = min(gate, 7), up = clamp(up, −7, 7), glu = gate · σ(1.702 · gate)
//         out = ((up + 1) · glu) · down_proj[e] + down_proj_bias[e]    down_proj [E, I, hidden]
// Only the chosen experts' slices are read (WeightStore::loadRows), one at a time. The released checkpoints
// keep the experts in MXFP4 (`*_blocks`, `*_scales`), which this unit does not read yet: it refuses them.

#include "model/familyregistry.h"
#include "model/layerstep.h"
#include "model/modelerror.h"
#include "model/prenormropedecoder.h"

#include <QDir>
#include <QJsonObject>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace attnscope {

namespace {

RopeDecoderConfig::Defaults gptOssDefaults()
{
    RopeDecoderConfig::Defaults defaults;
    defaults.rmsEps = 1e-5;
    defaults.ropeTheta = 150000.0;
    defaults.maxPositions = 131072;
    return defaults;
}

constexpr float kSwigluAlpha = 1.702f, kSwigluLimit = 7.0f;

class GptOssArchitecture final : public PreNormRopeDecoder
{
public:
    GptOssArchitecture(const ConfigReader& r, ModelConfig& c) : PreNormRopeDecoder(r, c, gptOssDefaults())
    {
        m_layout.qkvBias = m_layout.outputBias = true;
        // GptOssConfig defaults head_dim to 64, not hidden / heads (what the shared reader fell back to).
        if (!r.has("head_dim") && c.headDim != 64)
            r.fail(QStringLiteral("head_dim is missing: gpt-oss's default is 64, not hidden_size / "
                                  "num_attention_heads = %1; give it")
                       .arg(c.headDim));
        m_experts = r.positive({"num_local_experts"});
        m_topK = r.integer("num_experts_per_tok", 4, 1, m_experts);
        if (!r.json().contains(QLatin1String("rope_scaling")) && !r.has("rope_parameters")) {
            // GptOssConfig's default rope_scaling, which a config without the key gets (null: none).
            const QJsonObject yarn{{QStringLiteral("rope_type"), QStringLiteral("yarn")},
                                   {QStringLiteral("factor"), 32.0},
                                   {QStringLiteral("beta_fast"), 32.0},
                                   {QStringLiteral("beta_slow"), 1.0},
                                   {QStringLiteral("truncate"), false},
                                   {QStringLiteral("original_max_position_embeddings"), 4096}};
            const int maxPositions = r.positive({"max_position_embeddings"}, gptOssDefaults().maxPositions);
            m_decoder.rotary = r.rotaryEmbedding(
                r.number("rope_theta", gptOssDefaults().ropeTheta), c.headDim, c.headDim,
                r.ropeScaling(yarn, QStringLiteral("rope_scaling"), maxPositions), maxPositions);
        }
        const int window = r.positive({"sliding_window"}, 128);
        const QStringList types = r.strings("layer_types");
        if (!types.isEmpty() && types.size() != c.layers)
            r.fail(
                QStringLiteral("layer_types has %1 entries for %2 layers").arg(types.size()).arg(c.layers));
        for (int l = 0; l < c.layers; ++l)
            if (types.isEmpty() ? l % 2 == 0 : types[l] == QLatin1String("sliding_attention"))
                m_layout.windows[size_t(l)] = window;
    }

    void declareTensors(TensorChecklist& list) const override
    {
        refuseMxfp4(list.weights());
        const qint64 h = m_hidden, I = m_decoder.intermediate, E = m_experts, q = qint64(m_heads) * m_headDim,
                     kv = qint64(m_kvHeads) * m_headDim;
        list.require(QStringLiteral("embed_tokens.weight"), {m_vocab, h});
        for (int l = 0; l < m_layers; ++l) {
            const LayerNames n(QStringLiteral("layers.%1."), l);
            list.require(n("input_layernorm.weight"), {h});
            list.require(n("post_attention_layernorm.weight"), {h});
            list.requireWithBias(n("self_attn.q_proj."), {q, h}, q);
            list.requireWithBias(n("self_attn.k_proj."), {kv, h}, kv);
            list.requireWithBias(n("self_attn.v_proj."), {kv, h}, kv);
            list.requireWithBias(n("self_attn.o_proj."), {h, q}, h);
            list.require(n("self_attn.sinks"), {m_heads});
            list.requireWithBias(n("mlp.router."), {E, h}, E);
            list.require(n("mlp.experts.gate_up_proj"), {E, h, 2 * I});
            list.require(n("mlp.experts.gate_up_proj_bias"), {E, 2 * I});
            list.require(n("mlp.experts.down_proj"), {E, I, h});
            list.require(n("mlp.experts.down_proj_bias"), {E, h});
        }
        list.require(QStringLiteral("norm.weight"), {h});
        list.optionalFullName(QStringLiteral("lm_head.weight"), {m_vocab, h});
    }

    void layer(LayerStep& s) const override
    {
        const LayerNames n(QStringLiteral("layers.%1."), s.layer());
        const double eps = m_decoder.rmsEps;
        const std::vector<float> h = s.rmsNorm(s.residual(), n("input_layernorm.weight"), eps);
        auto [q, k, v] = s.projectQkv(h, {n("self_attn.q_proj.weight"), n("self_attn.k_proj.weight"),
                                          n("self_attn.v_proj.weight"), n("self_attn.q_proj.bias"),
                                          n("self_attn.k_proj.bias"), n("self_attn.v_proj.bias"), m_heads,
                                          m_kvHeads, m_headDim});
        LayerAttention attention;
        attention.rotary = &m_decoder.rotary;
        attention.slidingWindow = m_layout.windows[size_t(s.layer())];
        const WeightTensor sinks = s.weights().load(n("self_attn.sinks"));
        attention.sinks.assign(sinks.data(), sinks.data() + sinks.size());
        s.checkFinite(attention.sinks, n("self_attn.sinks"));
        const HeadTensor o = s.attend(std::move(q), std::move(k), std::move(v), attention);
        s.addToResidual(s.projectOutput(o, n("self_attn.o_proj.weight"), n("self_attn.o_proj.bias")));
        if (s.restOfLayerUnused()) return; // RunOptions::attentionOnly, the last layer
        s.addToResidual(experts(s, n, s.rmsNorm(s.residual(), n("post_attention_layernorm.weight"), eps)));
    }

private:
    // The released checkpoints' MXFP4 experts: refused by name until this unit reads them.
    void refuseMxfp4(const ModelWeights& w) const
    {
        for (const char* packed : {"mlp.experts.gate_up_proj_blocks", "mlp.experts.gate_up_proj_scales",
                                   "mlp.experts.down_proj_blocks", "mlp.experts.down_proj_scales"}) {
            const QString name = LayerNames(QStringLiteral("layers.%1."), 0)(packed);
            if (!w.has(name)) continue;
            throw ModelError(QDir::toNativeSeparators(w.store().fileOf(w.name(name))),
                             QStringLiteral("%1: MXFP4 expert weights (*_blocks, *_scales) are not supported "
                                            "yet; use a checkpoint with bf16 or f32 experts")
                                 .arg(w.name(name)));
        }
    }

    // h [rows, hidden] -> the weighted sum of each row's chosen experts [rows, hidden].
    std::vector<float> experts(const LayerStep& s, const LayerNames& n, const std::vector<float>& h) const
    {
        const int rows = int(h.size() / size_t(m_hidden)), I = m_decoder.intermediate;
        const std::vector<float> logits = s.linear(h, n("mlp.router.weight"), n("mlp.router.bias"));
        s.checkFinite(logits, QStringLiteral("the router logits"));
        // Per expert, the rows that chose it and their weights.
        std::vector<std::vector<std::pair<int, float>>> chosenBy(static_cast<size_t>(m_experts));
        std::vector<int> order(static_cast<size_t>(m_experts));
        for (int t = 0; t < rows; ++t) {
            const float* row = logits.data() + size_t(t) * size_t(m_experts);
            std::iota(order.begin(), order.end(), 0);
            std::partial_sort(order.begin(), order.begin() + m_topK, order.end(),
                              [&](int a, int b) { return row[a] > row[b] || (row[a] == row[b] && a < b); });
            double sum = 0.0;
            for (int i = 0; i < m_topK; ++i)
                sum += std::exp(double(row[order[size_t(i)]]) - double(row[order[0]]));
            for (int i = 0; i < m_topK; ++i) {
                const int e = order[size_t(i)];
                chosenBy[size_t(e)].emplace_back(
                    t, float(std::exp(double(row[e]) - double(row[order[0]])) / sum));
            }
        }
        std::vector<float> out(h.size(), 0.0f);
        for (int e = 0; e < m_experts; ++e) {
            const auto& chosen = chosenBy[size_t(e)];
            if (chosen.empty()) continue;
            const int m = int(chosen.size());
            std::vector<float> x(size_t(m) * size_t(m_hidden));
            for (int i = 0; i < m; ++i)
                std::copy_n(h.data() + size_t(chosen[size_t(i)].first) * size_t(m_hidden), m_hidden,
                            x.data() + size_t(i) * size_t(m_hidden));
            const ModelWeights& w = s.weights();
            const WeightTensor gateUp = w.loadRows(n("mlp.experts.gate_up_proj"), e, 1),
                               gateUpBias = w.loadRows(n("mlp.experts.gate_up_proj_bias"), e, 1),
                               down = w.loadRows(n("mlp.experts.down_proj"), e, 1),
                               downBias = w.loadRows(n("mlp.experts.down_proj_bias"), e, 1);
            std::vector<float> gu(size_t(m) * 2 * size_t(I)), inner(size_t(m) * size_t(I)),
                y(size_t(m) * size_t(m_hidden));
            ops::linear(x.data(), m,
                        {gateUp.data(), gateUpBias.data(), m_hidden, 2 * I, ops::WeightLayout::InOut},
                        gu.data(), std::nullopt, s.threads());
            for (size_t i = 0; i < inner.size(); ++i) {
                const float gate = std::min(gu[2 * i], kSwigluLimit);
                const float up = std::clamp(gu[2 * i + 1], -kSwigluLimit, kSwigluLimit);
                inner[i] = (up + 1.0f) * (gate / (1.0f + std::exp(-kSwigluAlpha * gate)));
            }
            ops::linear(inner.data(), m,
                        {down.data(), downBias.data(), I, m_hidden, ops::WeightLayout::InOut}, y.data(),
                        std::nullopt, s.threads());
            for (int i = 0; i < m; ++i) {
                const auto [t, weight] = chosen[size_t(i)];
                float* target = out.data() + size_t(t) * size_t(m_hidden);
                const float* from = y.data() + size_t(i) * size_t(m_hidden);
                for (int j = 0; j < m_hidden; ++j)
                    target[j] += weight * from[j];
            }
        }
        return out;
    }

    int m_experts = 0, m_topK = 0;
};

} // namespace

namespace families {

FamilyUnit gptossFamilyUnit()
{
    return {QStringLiteral("gpt_oss"),
            {QStringLiteral("gpt_oss")},
            {{QStringLiteral("GptOssFor"), QStringLiteral("gpt_oss")}},
            &configureArchitecture<GptOssArchitecture>};
}

} // namespace families

} // namespace attnscope
