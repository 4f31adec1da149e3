// Phi-3, Phi-3.5 and Phi-4-mini (transformers: modeling_phi3.py). A Llama-like decoder whose projections are
// fused: qkv_proj is [(H + 2·H_kv)·d, h], its rows q | k | v; gate_up_proj is [2·I, h], its rows gate | up,
// and the MLP is down(up ⊙ silu(gate)). partial_rotary_factor rotates the first part of each head
// (Phi-4-mini); rope_scaling "longrope" (formerly "su": Phi-3-*-128k, Phi-3.5) switches from short_factor to
// long_factor when the pass is longer than original_max_position_embeddings; sliding_window applies to every
// layer.

#include "model/architecture.h"
#include "model/familyregistry.h"
#include "model/layerstep.h"
#include "model/ropedecoder.h"

namespace attnscope {

namespace {

class Phi3Architecture final : public Architecture
{
public:
    Phi3Architecture(const ConfigReader& r, ModelConfig& c)
    {
        RopeDecoderConfig::Defaults defaults;
        defaults.rmsEps = 1e-5;
        defaults.maxPositions = 4096;
        m_decoder = RopeDecoderConfig::read(r, c, defaults);
        m_activation = r.activation("hidden_act", QStringLiteral("silu"));
        m_window = r.has("sliding_window") ? r.positive({"sliding_window"}) : 0;
        m_layers = c.layers;
        m_hidden = c.hidden;
        m_heads = c.heads;
        m_kvHeads = c.kvHeads;
        m_headDim = c.headDim;
        m_vocab = c.vocabSize;
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
            list.require(n("self_attn.qkv_proj.weight"), {q + 2 * kv, h});
            list.require(n("self_attn.o_proj.weight"), {h, q});
            list.require(n("mlp.gate_up_proj.weight"), {2 * I, h});
            list.require(n("mlp.down_proj.weight"), {h, I});
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
        const int tokens = s.tokens(), qWidth = m_heads * m_headDim, kvWidth = m_kvHeads * m_headDim;
        const std::vector<float> h = s.rmsNorm(s.residual(), n("input_layernorm.weight"), eps);
        const std::vector<float> qkv = s.linear(h, n("self_attn.qkv_proj.weight"));
        HeadTensor q(tokens, m_heads, m_headDim), k(tokens, m_kvHeads, m_headDim),
            v(tokens, m_kvHeads, m_headDim);
        for (int t = 0; t < tokens; ++t) { // each row: q | k | v
            const float* row = qkv.data() + size_t(t) * size_t(qWidth + 2 * kvWidth);
            std::copy_n(row, qWidth, q.vector(t, 0));
            std::copy_n(row + qWidth, kvWidth, k.vector(t, 0));
            std::copy_n(row + qWidth + kvWidth, kvWidth, v.vector(t, 0));
        }
        LayerAttention attention;
        attention.rotary = &m_decoder.rotary;
        attention.slidingWindow = m_window;
        const HeadTensor o = s.attend(std::move(q), std::move(k), std::move(v), attention);
        s.addToResidual(s.projectOutput(o, n("self_attn.o_proj.weight")));
        if (s.restOfLayerUnused()) return; // RunOptions::attentionOnly, the last layer

        const std::vector<float> h2 = s.rmsNorm(s.residual(), n("post_attention_layernorm.weight"), eps);
        const std::vector<float> gateUp = s.linear(h2, n("mlp.gate_up_proj.weight"));
        const int I = m_decoder.intermediate;
        const int rows = s.tokens(); // an ablation batch's attention may change the stream's rows
        std::vector<float> inner(size_t(rows) * size_t(I));
        for (int t = 0; t < rows; ++t) { // each row: gate | up
            const float* row = gateUp.data() + size_t(t) * 2 * size_t(I);
            float* out = inner.data() + size_t(t) * size_t(I);
            std::copy_n(row, I, out);
            ops::activate(out, I, m_activation);
            for (int i = 0; i < I; ++i)
                out[i] *= row[I + i];
        }
        s.addToResidual(s.linear(inner, n("mlp.down_proj.weight")));
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
    int m_window = 0;
    int m_layers = 0, m_hidden = 0, m_heads = 0, m_kvHeads = 0, m_headDim = 0, m_vocab = 0;
};

} // namespace

namespace families {

FamilyUnit phi3FamilyUnit()
{
    return {QStringLiteral("phi3"),
            {QStringLiteral("phi3")},
            {{QStringLiteral("Phi3For"), QStringLiteral("phi3")}},
            [](const ConfigReader& r, ModelConfig& c) -> std::shared_ptr<const Architecture> {
                return std::make_shared<Phi3Architecture>(r, c);
            }};
}

} // namespace families

} // namespace attnscope
