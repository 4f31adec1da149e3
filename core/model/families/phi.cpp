// Phi-1, Phi-1.5 and Phi-2 (transformers: modeling_phi.py). One LayerNorm feeds attention and MLP side by
// side:
//   h = input_layernorm(x);  x = x + dense(attention(h)) + fc2(gelu_new(fc1(h)))
// with partial rotary (partial_rotary_factor of each head, rotate-half) and, optionally, a LayerNorm on each
// query and key head (qk_layernorm). final_layernorm before the LM head, which has a bias.
// Checkpoints store q_proj / k_proj / v_proj (the hub's layout); transformers 4.36.dev stored one fused,
// head-interleaved query_key_value (per head its q, k and v, as GPT-NeoX), which is read too.

#include "model/architecture.h"
#include "model/familyregistry.h"
#include "model/layerstep.h"
#include "model/ropedecoder.h"

namespace attnscope {

namespace {

class PhiArchitecture final : public Architecture
{
public:
    PhiArchitecture(const ConfigReader& r, ModelConfig& c)
    {
        c.decoder = true;
        c.hidden = m_hidden = r.positive({"hidden_size"});
        c.heads = m_heads = r.positive({"num_attention_heads"});
        c.kvHeads = r.positive({"num_key_value_heads"}, c.heads);
        c.layers = m_layers = r.positive({"num_hidden_layers"});
        c.vocabSize = m_vocab = r.positive({"vocab_size"});
        c.maxPositions = r.positive({"max_position_embeddings"}, 2048);
        r.completeShape(c);
        m_kvHeads = c.kvHeads;
        m_headDim = c.headDim;
        m_intermediate = r.positive({"intermediate_size"});
        m_eps = r.epsilon("layer_norm_eps", 1e-5);
        m_activation = r.activation("hidden_act", QStringLiteral("gelu_new"));
        m_qkLayerNorm = r.flag("qk_layernorm", false);
        m_tied = r.flag("tie_word_embeddings", false);
        const double partial = r.number("partial_rotary_factor", 0.5);
        if (!(partial > 0.0 && partial <= 1.0))
            r.fail(QStringLiteral("partial_rotary_factor must be in (0, 1]"));
        m_rotary = RopeDecoderConfig::readRotary(r, r.object("rope_parameters"), 10000.0,
                                                 int(m_headDim * partial), m_headDim, c.maxPositions);
        c.normEps = m_eps;
        c.tieWordEmbeddings = m_tied;
        c.ropeTheta = m_rotary.theta();
        if (m_rotary.scaling().type == RopeScaling::Type::Dynamic)
            c.maxPositions = int(c.maxPositions * m_rotary.scaling().factor);
    }

    QStringList weightPrefixes() const override { return {QStringLiteral("model."), QString()}; }
    QString anchorTensor() const override { return QStringLiteral("embed_tokens.weight"); }

    void declareTensors(TensorChecklist& list) const override
    {
        const qint64 h = m_hidden, I = m_intermediate, q = qint64(m_heads) * m_headDim,
                     kv = qint64(m_kvHeads) * m_headDim;
        list.require(QStringLiteral("embed_tokens.weight"), {m_vocab, h});
        for (int l = 0; l < m_layers; ++l) {
            const LayerNames n(QStringLiteral("layers.%1."), l);
            list.requireWithBias(n("input_layernorm."), {h}, h);
            if (fusedQkv(list, n)) {
                list.requireWithBias(n("self_attn.query_key_value."), {3 * h, h}, 3 * h);
            } else {
                list.requireWithBias(n("self_attn.q_proj."), {q, h}, q);
                list.requireWithBias(n("self_attn.k_proj."), {kv, h}, kv);
                list.requireWithBias(n("self_attn.v_proj."), {kv, h}, kv);
            }
            if (m_qkLayerNorm) {
                list.requireWithBias(n("self_attn.q_layernorm."), {m_headDim}, m_headDim);
                list.requireWithBias(n("self_attn.k_layernorm."), {m_headDim}, m_headDim);
            }
            list.requireWithBias(n("self_attn.dense."), {h, q}, h);
            list.requireWithBias(n("mlp.fc1."), {I, h}, I);
            list.requireWithBias(n("mlp.fc2."), {h, I}, h);
        }
        list.requireWithBias(QStringLiteral("final_layernorm."), {h}, h);
        list.optionalFullName(QStringLiteral("lm_head.weight"), {m_vocab, h});
        list.optionalFullName(QStringLiteral("lm_head.bias"), {m_vocab});
    }

    void embed(const TokenInput& input, const ModelWeights& w, std::vector<float>& x, int) const override
    {
        addRows(w, QStringLiteral("embed_tokens.weight"), input.ids, x, m_hidden);
    }

    void layer(LayerStep& s) const override
    {
        const LayerNames n(QStringLiteral("layers.%1."), s.layer());
        const std::vector<float> h =
            s.layerNorm(s.residual(), n("input_layernorm.weight"), n("input_layernorm.bias"), m_eps);
        HeadTensor q, k, v;
        if (s.weights().has(n("self_attn.query_key_value.weight"))) {
            const std::vector<float> qkv =
                s.linear(h, n("self_attn.query_key_value.weight"), n("self_attn.query_key_value.bias"));
            q = HeadTensor(s.tokens(), m_heads, m_headDim);
            k = HeadTensor(s.tokens(), m_heads, m_headDim);
            v = HeadTensor(s.tokens(), m_heads, m_headDim);
            for (int t = 0; t < s.tokens(); ++t)
                for (int head = 0; head < m_heads; ++head) { // per head: q | k | v
                    const float* block =
                        qkv.data() + (size_t(t) * m_heads + size_t(head)) * 3 * size_t(m_headDim);
                    std::copy_n(block, m_headDim, q.vector(t, head));
                    std::copy_n(block + m_headDim, m_headDim, k.vector(t, head));
                    std::copy_n(block + 2 * m_headDim, m_headDim, v.vector(t, head));
                }
        } else {
            auto project = [&](const char* which, int heads) {
                const QString base = n("self_attn.") + QLatin1String(which);
                return s.projectHeads(h, base + QStringLiteral(".weight"), base + QStringLiteral(".bias"),
                                      heads, m_headDim);
            };
            q = s.projectQueries(h, n("self_attn.q_proj.weight"), n("self_attn.q_proj.bias"), m_heads,
                                 m_headDim);
            k = project("k_proj", m_kvHeads);
            v = project("v_proj", m_kvHeads);
        }
        if (m_qkLayerNorm) {
            s.layerNormHeads(q, n("self_attn.q_layernorm.weight"), n("self_attn.q_layernorm.bias"), m_eps);
            s.layerNormHeads(k, n("self_attn.k_layernorm.weight"), n("self_attn.k_layernorm.bias"), m_eps);
        }
        LayerAttention attention;
        attention.rotary = &m_rotary;
        const HeadTensor o = s.attend(std::move(q), std::move(k), std::move(v), attention);
        const std::vector<float> a =
            s.projectOutput(o, n("self_attn.dense.weight"), n("self_attn.dense.bias"));
        // Parallel block: the MLP reads the attention's input h (in the stream's rows, which an ablation
        // batch's attention may have changed).
        const std::vector<float> inner =
            s.linear(s.inStreamLayout(h), n("mlp.fc1.weight"), n("mlp.fc1.bias"), m_activation);
        s.addToResidual(a);
        s.addToResidual(s.linear(inner, n("mlp.fc2.weight"), n("mlp.fc2.bias")));
    }

    void finalNorm(const ModelWeights& w, std::vector<float>& x, int threads) const override
    {
        layerNormRows(w, QStringLiteral("final_layernorm.weight"), QStringLiteral("final_layernorm.bias"), x,
                      m_hidden, m_eps, threads);
    }

    OutputHead outputHead(const ModelWeights& w) const override
    {
        OutputHead head = nextTokenHead(w, m_tied, QStringLiteral("embed_tokens.weight"));
        if (w.store().contains(QStringLiteral("lm_head.bias"))) head.bias = QStringLiteral("lm_head.bias");
        return head;
    }

private:
    static bool fusedQkv(const TensorChecklist& list, const LayerNames& n)
    {
        return list.weights().has(n("self_attn.query_key_value.weight"));
    }

    RotaryEmbedding m_rotary;
    Activation m_activation = Activation::GeluTanh;
    double m_eps = 1e-5;
    bool m_qkLayerNorm = false, m_tied = false;
    int m_layers = 0, m_hidden = 0, m_heads = 0, m_kvHeads = 0, m_headDim = 0, m_vocab = 0,
        m_intermediate = 0;
};

} // namespace

namespace families {

FamilyUnit phiFamilyUnit()
{
    return {QStringLiteral("phi"),
            {QStringLiteral("phi")},
            {{QStringLiteral("PhiFor"), QStringLiteral("phi")}},
            &configureArchitecture<PhiArchitecture>};
}

} // namespace families

} // namespace attnscope
