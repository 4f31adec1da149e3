// GPT-2 (transformers: modeling_gpt2.py). Decoder, pre-LN, learned positions, Conv1D weights stored [in,
// out]:
//   x = wte[id] + wpe[p]
//   per layer: x += c_proj(attention(ln_1(x)));  x += mlp.c_proj(gelu_new(c_fc(ln_2(x))))
//   ln_f before the (tied) LM head.
// c_attn is one [h, 3h] projection: the columns are q | k | v.

#include "model/architecture.h"
#include "model/configreader.h"
#include "model/familyregistry.h"
#include "model/layerstep.h"

#include <cmath>

namespace attnscope {

namespace {

using ops::WeightLayout;

class Gpt2Architecture final : public Architecture
{
public:
    Gpt2Architecture(const ConfigReader& r, ModelConfig& c)
    {
        c.decoder = true;
        c.hidden = m_hidden = r.positive({"n_embd", "hidden_size"});
        c.heads = r.positive({"n_head", "num_attention_heads"});
        c.layers = r.positive({"n_layer", "num_hidden_layers"});
        m_intermediate = r.positive({"n_inner"}, 4 * c.hidden);
        c.vocabSize = r.positive({"vocab_size"});
        c.maxPositions = r.positive({"n_positions", "max_position_embeddings"}, 1024);
        m_eps = r.epsilon("layer_norm_epsilon", 1e-5);
        m_activation = r.activation("activation_function", QStringLiteral("gelu_new"));
        m_tied = r.flag("tie_word_embeddings", true);
        c.normEps = m_eps;
        c.tieWordEmbeddings = m_tied;
        m_scaleAttnWeights = r.flag("scale_attn_weights", true);
        m_scaleByInverseLayer = r.flag("scale_attn_by_inverse_layer_idx", false);
        r.completeShape(c);
        m_layers = c.layers;
        m_heads = c.heads;
        m_headDim = c.headDim;
        m_vocab = c.vocabSize;
        m_positions = c.maxPositions;
    }

    QStringList weightPrefixes() const override { return {QStringLiteral("transformer."), QString()}; }
    QString anchorTensor() const override { return QStringLiteral("wte.weight"); }

    void declareTensors(TensorChecklist& list) const override
    {
        const qint64 h = m_hidden, I = m_intermediate;
        list.require(QStringLiteral("wte.weight"), {m_vocab, h});
        list.require(QStringLiteral("wpe.weight"), {m_positions, h});
        for (int l = 0; l < m_layers; ++l) {
            const LayerNames n(QStringLiteral("h.%1."), l);
            list.requireWithBias(n("ln_1."), {h}, h);
            list.requireWithBias(n("ln_2."), {h}, h);
            list.requireWithBias(n("attn.c_attn."), {h, 3 * h}, 3 * h);
            list.requireWithBias(n("attn.c_proj."), {h, h}, h);
            list.requireWithBias(n("mlp.c_fc."), {h, I}, I);
            list.requireWithBias(n("mlp.c_proj."), {I, h}, h);
        }
        list.requireWithBias(QStringLiteral("ln_f."), {h}, h);
        list.optionalFullName(QStringLiteral("lm_head.weight"), {m_vocab, h});
    }

    int positionTableSize() const override { return m_positions; }

    void embed(const TokenInput& input, const ModelWeights& w, std::vector<float>& x, int) const override
    {
        addRows(w, QStringLiteral("wte.weight"), input.ids, x, m_hidden);
        addRows(w, QStringLiteral("wpe.weight"), input.positions, x, m_hidden);
    }

    void layer(LayerStep& s) const override
    {
        const LayerNames n(QStringLiteral("h.%1."), s.layer());
        const int h = m_hidden;
        const std::vector<float> normed = s.layerNorm(s.residual(), n("ln_1.weight"), n("ln_1.bias"), m_eps);
        const std::vector<float> qkv = s.linear(normed, n("attn.c_attn.weight"), n("attn.c_attn.bias"),
                                                std::nullopt, WeightLayout::InOut);
        HeadTensor q(s.tokens(), m_heads, m_headDim), k(s.tokens(), m_heads, m_headDim),
            v(s.tokens(), m_heads, m_headDim);
        for (int t = 0; t < s.tokens(); ++t) {
            const float* row = qkv.data() + size_t(t) * 3 * h;
            std::copy_n(row, h, q.vector(t, 0));
            std::copy_n(row + h, h, k.vector(t, 0));
            std::copy_n(row + 2 * h, h, v.vector(t, 0));
        }
        LayerAttention attention;
        float scale = m_scaleAttnWeights ? 1.0f / std::sqrt(float(m_headDim)) : 1.0f;
        if (m_scaleByInverseLayer) scale /= float(s.layer() + 1);
        attention.scale = scale;
        const HeadTensor o = s.attend(std::move(q), std::move(k), std::move(v), attention);
        s.addToResidual(
            s.projectOutput(o, n("attn.c_proj.weight"), n("attn.c_proj.bias"), WeightLayout::InOut));
        if (s.restOfLayerUnused()) return; // RunOptions::attentionOnly, the last layer
        const std::vector<float> normed2 = s.layerNorm(s.residual(), n("ln_2.weight"), n("ln_2.bias"), m_eps);
        const std::vector<float> inner =
            s.linear(normed2, n("mlp.c_fc.weight"), n("mlp.c_fc.bias"), m_activation, WeightLayout::InOut);
        s.addToResidual(
            s.linear(inner, n("mlp.c_proj.weight"), n("mlp.c_proj.bias"), std::nullopt, WeightLayout::InOut));
    }

    void finalNorm(const ModelWeights& w, std::vector<float>& x, int threads) const override
    {
        layerNormRows(w, QStringLiteral("ln_f.weight"), QStringLiteral("ln_f.bias"), x, m_hidden, m_eps,
                      threads);
    }

    OutputHead outputHead(const ModelWeights& w) const override
    {
        return nextTokenHead(w, m_tied, QStringLiteral("wte.weight"));
    }

private:
    int m_hidden = 0, m_intermediate = 0, m_layers = 0, m_heads = 0, m_headDim = 0, m_vocab = 0,
        m_positions = 0;
    double m_eps = 1e-5;
    Activation m_activation = Activation::GeluTanh;
    bool m_tied = true, m_scaleAttnWeights = true, m_scaleByInverseLayer = false;
};

} // namespace

namespace families {

FamilyUnit gpt2FamilyUnit()
{
    return {QStringLiteral("gpt2"),
            {QStringLiteral("gpt2")},
            {{QStringLiteral("GPT2LMHead"), QStringLiteral("gpt2")},
             {QStringLiteral("GPT2Model"), QStringLiteral("gpt2")}},
            &configureArchitecture<Gpt2Architecture>};
}

} // namespace families

} // namespace attnscope
