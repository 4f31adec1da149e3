#include "model/prenormropedecoder.h"

#include "model/layerstep.h"

#include <algorithm>
#include <initializer_list>
#include <utility>

namespace attnscope {

PreNormRopeDecoder::PreNormRopeDecoder(const ConfigReader& r, ModelConfig& c,
                                       const RopeDecoderConfig::Defaults& defaults)
    : m_decoder(RopeDecoderConfig::read(r, c, defaults))
{
    m_layers = c.layers;
    m_hidden = c.hidden;
    m_heads = c.heads;
    m_kvHeads = c.kvHeads;
    m_headDim = c.headDim;
    m_vocab = c.vocabSize;
    m_layout.windows.assign(size_t(c.layers), 0);
}

QStringList PreNormRopeDecoder::weightPrefixes() const
{
    return {QStringLiteral("model."), QString()};
}

QString PreNormRopeDecoder::anchorTensor() const
{
    return QStringLiteral("embed_tokens.weight");
}

const RotaryEmbedding* PreNormRopeDecoder::rotary(int) const
{
    return &m_decoder.rotary;
}

void PreNormRopeDecoder::declareTensors(TensorChecklist& list) const
{
    const qint64 h = m_hidden, I = m_decoder.intermediate, q = qint64(m_heads) * m_headDim,
                 kv = qint64(m_kvHeads) * m_headDim;
    list.require(QStringLiteral("embed_tokens.weight"), {m_vocab, h});
    for (int l = 0; l < m_layers; ++l) {
        const LayerNames n(QStringLiteral("layers.%1."), l);
        // Vectors (norm weights, biases) by name and size, in the order given.
        const auto vectors = [&](std::initializer_list<std::pair<const char*, qint64>> named) {
            for (const auto& [name, size] : named)
                list.require(n(name), {size});
        };
        vectors({{"input_layernorm.weight", h}, {"post_attention_layernorm.weight", h}});
        if (m_layout.sandwichNorms)
            vectors({{"pre_feedforward_layernorm.weight", h}, {"post_feedforward_layernorm.weight", h}});
        if (m_layout.fusedQkv) {
            list.require(n("self_attn.qkv_proj.weight"), {q + 2 * kv, h});
        } else {
            list.require(n("self_attn.q_proj.weight"), {q, h});
            list.require(n("self_attn.k_proj.weight"), {kv, h});
            list.require(n("self_attn.v_proj.weight"), {kv, h});
        }
        list.require(n("self_attn.o_proj.weight"), {h, q});
        if (m_layout.qkvBias)
            vectors(
                {{"self_attn.q_proj.bias", q}, {"self_attn.k_proj.bias", kv}, {"self_attn.v_proj.bias", kv}});
        if (m_layout.outputBias) vectors({{"self_attn.o_proj.bias", h}});
        if (m_layout.qkNorm)
            vectors({{"self_attn.q_norm.weight", m_headDim}, {"self_attn.k_norm.weight", m_headDim}});
        if (m_layout.fusedGateUp) {
            list.require(n("mlp.gate_up_proj.weight"), {2 * I, h});
        } else {
            list.require(n("mlp.gate_proj.weight"), {I, h});
            list.require(n("mlp.up_proj.weight"), {I, h});
        }
        list.require(n("mlp.down_proj.weight"), {h, I});
        if (m_layout.mlpBias)
            vectors({{"mlp.gate_proj.bias", I}, {"mlp.up_proj.bias", I}, {"mlp.down_proj.bias", h}});
    }
    list.require(QStringLiteral("norm.weight"), {h});
    list.optionalFullName(QStringLiteral("lm_head.weight"), {m_vocab, h});
}

void PreNormRopeDecoder::embed(const TokenInput& input, const ModelWeights& w, std::vector<float>& x,
                               int) const
{
    addRows(w, QStringLiteral("embed_tokens.weight"), input.ids, x, m_hidden, m_layout.embedScale);
}

std::array<HeadTensor, 3> PreNormRopeDecoder::projectQkv(LayerStep& s, const LayerNames& n,
                                                         const std::vector<float>& h) const
{
    if (!m_layout.fusedQkv) {
        const auto name = [&](const char* which, const char* part) {
            return n("self_attn.") + QLatin1String(which) + QLatin1String(part);
        };
        const auto bias = [&](const char* which) {
            return m_layout.qkvBias ? name(which, ".bias") : QString();
        };
        return s.projectQkv(h,
                            {name("q_proj", ".weight"), name("k_proj", ".weight"), name("v_proj", ".weight"),
                             bias("q_proj"), bias("k_proj"), bias("v_proj"), m_heads, m_kvHeads, m_headDim});
    }
    const int tokens = s.tokens(), qWidth = m_heads * m_headDim, kvWidth = m_kvHeads * m_headDim;
    const std::vector<float> qkv = s.linear(h, n("self_attn.qkv_proj.weight"));
    HeadTensor q(tokens, m_heads, m_headDim), k(tokens, m_kvHeads, m_headDim),
        v(tokens, m_kvHeads, m_headDim);
    for (int t = 0; t < tokens; ++t) { // each row: q | k | v
        const float* row = qkv.data() + size_t(t) * size_t(qWidth + 2 * kvWidth);
        std::copy_n(row, qWidth, q.vector(t, 0));
        std::copy_n(row + qWidth, kvWidth, k.vector(t, 0));
        std::copy_n(row + qWidth + kvWidth, kvWidth, v.vector(t, 0));
    }
    return {std::move(q), std::move(k), std::move(v)};
}

std::vector<float> PreNormRopeDecoder::mlp(const LayerStep& s, const LayerNames& n,
                                           const std::vector<float>& h) const
{
    if (!m_layout.fusedGateUp)
        return s.gatedMlp(h, n("mlp.gate_proj.weight"), n("mlp.up_proj.weight"), n("mlp.down_proj.weight"),
                          m_layout.activation, m_layout.mlpBias);
    const std::vector<float> gateUp = s.linear(h, n("mlp.gate_up_proj.weight"));
    const int I = m_decoder.intermediate;
    const int rows = s.tokens(); // an ablation batch's attention may change the stream's rows
    std::vector<float> inner(size_t(rows) * size_t(I));
    for (int t = 0; t < rows; ++t) { // each row: gate | up
        const float* row = gateUp.data() + size_t(t) * 2 * size_t(I);
        float* out = inner.data() + size_t(t) * size_t(I);
        std::copy_n(row, I, out);
        ops::activate(out, I, m_layout.activation);
        for (int i = 0; i < I; ++i)
            out[i] *= row[I + i];
    }
    return s.linear(inner, n("mlp.down_proj.weight"));
}

void PreNormRopeDecoder::layer(LayerStep& s) const
{
    const LayerNames n(QStringLiteral("layers.%1."), s.layer());
    const double eps = m_decoder.rmsEps;
    const bool plusOne = m_layout.normPlusOne;
    const std::vector<float> h = s.rmsNorm(s.residual(), n("input_layernorm.weight"), eps, plusOne);
    auto [q, k, v] = projectQkv(s, n, h);
    if (m_layout.qkNorm) {
        s.rmsNormHeads(q, n("self_attn.q_norm.weight"), eps, plusOne);
        s.rmsNormHeads(k, n("self_attn.k_norm.weight"), eps, plusOne);
    }
    LayerAttention attention;
    attention.rotary = rotary(s.layer());
    attention.scale = m_layout.attentionScale;
    attention.softCap = m_layout.softCap;
    attention.slidingWindow = m_layout.windows[size_t(s.layer())];
    const HeadTensor o = s.attend(std::move(q), std::move(k), std::move(v), attention);
    std::vector<float> a = s.projectOutput(o, n("self_attn.o_proj.weight"),
                                           m_layout.outputBias ? n("self_attn.o_proj.bias") : QString());
    if (!m_layout.sandwichNorms) {
        s.addToResidual(a);
        if (s.restOfLayerUnused()) return; // RunOptions::attentionOnly, the last layer
        const std::vector<float> h2 =
            s.rmsNorm(s.residual(), n("post_attention_layernorm.weight"), eps, plusOne);
        s.addToResidual(mlp(s, n, h2));
        return;
    }
    if (s.restOfLayerUnused()) return; // the stream after this layer is not read
    s.addToResidual(s.rmsNorm(a, n("post_attention_layernorm.weight"), eps, plusOne));
    const std::vector<float> h2 =
        s.rmsNorm(s.residual(), n("pre_feedforward_layernorm.weight"), eps, plusOne);
    s.addToResidual(s.rmsNorm(mlp(s, n, h2), n("post_feedforward_layernorm.weight"), eps, plusOne));
}

void PreNormRopeDecoder::finalNorm(const ModelWeights& w, std::vector<float>& x, int threads) const
{
    rmsNormRows(w, QStringLiteral("norm.weight"), x, m_hidden, m_decoder.rmsEps, threads,
                m_layout.normPlusOne ? 1.0f : 0.0f);
}

OutputHead PreNormRopeDecoder::outputHead(const ModelWeights& w) const
{
    OutputHead head = nextTokenHead(w, m_decoder.tiedEmbeddings, QStringLiteral("embed_tokens.weight"));
    head.finalSoftCap = m_layout.finalSoftCap;
    return head;
}

} // namespace attnscope
