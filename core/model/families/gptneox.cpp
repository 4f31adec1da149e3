// GPT-NeoX and Pythia (transformers: modeling_gpt_neox.py). Decoder with LayerNorms (with biases) and
// partial rotary: the first rotary_pct of each head is rotated (rotate-half), the rest passes through.
// query_key_value is one projection whose output is head-interleaved: per head its q, k and v.
//   use_parallel_residual (Pythia):  x = x + dense(attention(ln1(x))) + mlp(ln2(x))
//   otherwise:                       x = x + dense(attention(ln1(x)));  x = x + mlp(ln2(x))
//   mlp(h) = dense_4h_to_h(gelu(dense_h_to_4h(h))); final_layer_norm; the LM head is embed_out.

#include "model/architecture.h"
#include "model/familyregistry.h"
#include "model/layerstep.h"
#include "model/ropedecoder.h"

namespace attnscope {

namespace {

class GptNeoXArchitecture final : public Architecture
{
public:
    GptNeoXArchitecture(const ConfigReader& r, ModelConfig& c)
    {
        c.decoder = true;
        c.hidden = m_hidden = r.positive({"hidden_size"});
        c.heads = m_heads = r.positive({"num_attention_heads"});
        c.layers = m_layers = r.positive({"num_hidden_layers"});
        c.vocabSize = m_vocab = r.positive({"vocab_size"});
        c.maxPositions = r.positive({"max_position_embeddings"}, 2048);
        r.completeShape(c);
        m_headDim = c.headDim;
        m_intermediate = r.positive({"intermediate_size"});
        m_eps = r.epsilon("layer_norm_eps", 1e-5);
        m_activation = r.activation("hidden_act", QStringLiteral("gelu"));
        m_parallelResidual = r.flag("use_parallel_residual", true);
        m_bias = r.flag("attention_bias", true);
        m_tied = r.flag("tie_word_embeddings", false);
        // Renamed over transformers' versions: rotary_pct / partial_rotary_factor, rotary_emb_base /
        // rope_theta.
        const double partial = r.has("partial_rotary_factor") ? r.number("partial_rotary_factor", 0.25)
                                                              : r.number("rotary_pct", 0.25);
        if (!(partial > 0.0 && partial <= 1.0)) r.fail(QStringLiteral("rotary_pct must be in (0, 1]"));
        const double theta =
            r.has("rope_theta") ? r.number("rope_theta", 10000.0) : r.number("rotary_emb_base", 10000.0);
        const RopeScaling scaling =
            r.ropeScaling(r.object("rope_scaling"), QStringLiteral("rope_scaling"), c.maxPositions);
        m_rotary = r.rotaryEmbedding(theta, int(m_headDim * partial), m_headDim, scaling, c.maxPositions);
        c.normEps = m_eps;
        c.tieWordEmbeddings = m_tied;
        c.ropeTheta = theta;
        if (scaling.type == RopeScaling::Type::Dynamic) c.maxPositions = int(c.maxPositions * scaling.factor);
    }

    QStringList weightPrefixes() const override { return {QStringLiteral("gpt_neox."), QString()}; }
    QString anchorTensor() const override { return QStringLiteral("embed_in.weight"); }

    void declareTensors(TensorChecklist& list) const override
    {
        const qint64 h = m_hidden, I = m_intermediate;
        list.require(QStringLiteral("embed_in.weight"), {m_vocab, h});
        for (int l = 0; l < m_layers; ++l) {
            const LayerNames n(QStringLiteral("layers.%1."), l);
            list.requireWithBias(n("input_layernorm."), {h}, h);
            list.requireWithBias(n("post_attention_layernorm."), {h}, h);
            list.require(n("attention.query_key_value.weight"), {3 * h, h});
            list.require(n("attention.dense.weight"), {h, h});
            if (m_bias) {
                list.require(n("attention.query_key_value.bias"), {3 * h});
                list.require(n("attention.dense.bias"), {h});
            }
            list.requireWithBias(n("mlp.dense_h_to_4h."), {I, h}, I);
            list.requireWithBias(n("mlp.dense_4h_to_h."), {h, I}, h);
        }
        list.requireWithBias(QStringLiteral("final_layer_norm."), {h}, h);
        list.optionalFullName(QStringLiteral("embed_out.weight"), {m_vocab, h});
    }

    void embed(const TokenInput& input, const ModelWeights& w, std::vector<float>& x, int) const override
    {
        addRows(w, QStringLiteral("embed_in.weight"), input.ids, x, m_hidden);
    }

    void layer(LayerStep& s) const override
    {
        const LayerNames n(QStringLiteral("layers.%1."), s.layer());
        const int tokens = s.tokens(), d = m_headDim;
        const std::vector<float> h1 =
            s.layerNorm(s.residual(), n("input_layernorm.weight"), n("input_layernorm.bias"), m_eps);
        const std::vector<float> qkv = s.linear(h1, n("attention.query_key_value.weight"),
                                                m_bias ? n("attention.query_key_value.bias") : QString());
        HeadTensor q(tokens, m_heads, d), k(tokens, m_heads, d), v(tokens, m_heads, d);
        for (int t = 0; t < tokens; ++t)
            for (int head = 0; head < m_heads; ++head) { // per head: q | k | v
                const float* block =
                    qkv.data() + (size_t(t) * size_t(m_heads) + size_t(head)) * 3 * size_t(d);
                std::copy_n(block, d, q.vector(t, head));
                std::copy_n(block + d, d, k.vector(t, head));
                std::copy_n(block + 2 * d, d, v.vector(t, head));
            }
        LayerAttention attention;
        attention.rotary = &m_rotary;
        const HeadTensor o = s.attend(std::move(q), std::move(k), std::move(v), attention);
        const std::vector<float> a =
            s.projectOutput(o, n("attention.dense.weight"), m_bias ? n("attention.dense.bias") : QString());
        if (m_parallelResidual) {
            const std::vector<float> m = mlp(s, n,
                                             s.layerNorm(s.residual(), n("post_attention_layernorm.weight"),
                                                         n("post_attention_layernorm.bias"), m_eps));
            s.addToResidual(a);
            s.addToResidual(m);
        } else {
            s.addToResidual(a);
            s.addToResidual(mlp(s, n,
                                s.layerNorm(s.residual(), n("post_attention_layernorm.weight"),
                                            n("post_attention_layernorm.bias"), m_eps)));
        }
    }

    void finalNorm(const ModelWeights& w, std::vector<float>& x, int threads) const override
    {
        layerNormRows(w, QStringLiteral("final_layer_norm.weight"), QStringLiteral("final_layer_norm.bias"),
                      x, m_hidden, m_eps, threads);
    }

    OutputHead outputHead(const ModelWeights& w) const override
    {
        return nextTokenHead(w, m_tied, QStringLiteral("embed_in.weight"),
                             QStringLiteral("embed_out.weight"));
    }

private:
    std::vector<float> mlp(const LayerStep& s, const LayerNames& n, const std::vector<float>& h) const
    {
        const std::vector<float> inner =
            s.linear(h, n("mlp.dense_h_to_4h.weight"), n("mlp.dense_h_to_4h.bias"), m_activation);
        return s.linear(inner, n("mlp.dense_4h_to_h.weight"), n("mlp.dense_4h_to_h.bias"));
    }

    RotaryEmbedding m_rotary;
    Activation m_activation = Activation::GeluErf;
    double m_eps = 1e-5;
    bool m_parallelResidual = true, m_bias = true, m_tied = false;
    int m_layers = 0, m_hidden = 0, m_heads = 0, m_headDim = 0, m_vocab = 0, m_intermediate = 0;
};

} // namespace

namespace families {

FamilyUnit gptneoxFamilyUnit()
{
    return {QStringLiteral("gpt_neox"),
            {QStringLiteral("gpt_neox")},
            {{QStringLiteral("GPTNeoXFor"), QStringLiteral("gpt_neox")}},
            &configureArchitecture<GptNeoXArchitecture>};
}

} // namespace families

} // namespace attnscope
