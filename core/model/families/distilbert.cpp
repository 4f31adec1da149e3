// DistilBERT (transformers: modeling_distilbert.py). BERT's post-LN encoder without token types, under its
// own names (q_lin, sa_layer_norm, ffn.lin1, ...), config keys (dim, n_heads, n_layers, hidden_dim) and a
// fixed LayerNorm eps of 1e-12. Positions are learned, or sinusoidal (sinusoidal_pos_embds): checkpoints
// store the sinusoidal table like a learned one, and where it is missing it is computed as transformers
// builds it,
//   table[p][j] = sin(p / 10000^(2·(j/2)/dim)) for even j, cos(...) for odd j.
// The MLM head: vocab_projector(LN(act(vocab_transform(x)))), the projector tied to the word embeddings.

#include "model/architecture.h"
#include "model/configreader.h"
#include "model/familyregistry.h"
#include "model/layerstep.h"
#include "model/postnormencoder.h"

#include <cmath>

namespace attnscope {

namespace {

constexpr double kEps = 1e-12;

class DistilBertArchitecture final : public Architecture
{
public:
    DistilBertArchitecture(const ConfigReader& r, ModelConfig& c)
    {
        c.decoder = false;
        c.hidden = m_hidden = r.positive({"dim", "hidden_size"});
        c.heads = m_heads = r.positive({"n_heads", "num_attention_heads"});
        c.layers = m_layers = r.positive({"n_layers", "num_hidden_layers"});
        c.vocabSize = m_vocab = r.positive({"vocab_size"});
        c.maxPositions = m_positions = r.positive({"max_position_embeddings"}, 512);
        c.typeVocabSize = 0;
        r.completeShape(c);
        m_headDim = c.headDim;
        m_intermediate = r.positive({"hidden_dim", "intermediate_size"});
        m_activation = r.activation("activation", QStringLiteral("gelu"));
        m_sinusoidal = r.flag("sinusoidal_pos_embds", false);
        m_tied = r.flag("tie_word_embeddings", true);
        c.normEps = kEps;
        c.tieWordEmbeddings = m_tied;
    }

    QStringList weightPrefixes() const override { return {QStringLiteral("distilbert."), QString()}; }
    QString anchorTensor() const override { return QStringLiteral("embeddings.word_embeddings.weight"); }

    void declareTensors(TensorChecklist& list) const override
    {
        const qint64 h = m_hidden, I = m_intermediate;
        list.require(QStringLiteral("embeddings.word_embeddings.weight"), {m_vocab, h});
        if (m_sinusoidal)
            list.optional(QStringLiteral("embeddings.position_embeddings.weight"), {m_positions, h});
        else
            list.require(QStringLiteral("embeddings.position_embeddings.weight"), {m_positions, h});
        list.requireWithBias(QStringLiteral("embeddings.LayerNorm."), {h}, h);
        for (int l = 0; l < m_layers; ++l) {
            const LayerNames n(QStringLiteral("transformer.layer.%1."), l);
            for (const char* p :
                 {"attention.q_lin.", "attention.k_lin.", "attention.v_lin.", "attention.out_lin."})
                list.requireWithBias(n(p), {h, h}, h);
            list.requireWithBias(n("sa_layer_norm."), {h}, h);
            list.requireWithBias(n("output_layer_norm."), {h}, h);
            list.requireWithBias(n("ffn.lin1."), {I, h}, I);
            list.requireWithBias(n("ffn.lin2."), {h, I}, h);
        }
        list.optionalFullName(QStringLiteral("vocab_transform.weight"), {h, h});
        list.optionalFullName(QStringLiteral("vocab_transform.bias"), {h});
        list.optionalFullName(QStringLiteral("vocab_layer_norm.weight"), {h});
        list.optionalFullName(QStringLiteral("vocab_layer_norm.bias"), {h});
        list.optionalFullName(QStringLiteral("vocab_projector.weight"), {m_vocab, h});
        list.optionalFullName(QStringLiteral("vocab_projector.bias"), {m_vocab});
    }

    int positionTableSize() const override { return m_positions; }

    void embed(const TokenInput& input, const ModelWeights& w, std::vector<float>& x,
               int threads) const override
    {
        addRows(w, QStringLiteral("embeddings.word_embeddings.weight"), input.ids, x, m_hidden);
        if (w.has(QStringLiteral("embeddings.position_embeddings.weight")))
            addRows(w, QStringLiteral("embeddings.position_embeddings.weight"), input.positions, x, m_hidden);
        else
            addSinusoidalPositions(input.positions, x);
        layerNormRows(w, QStringLiteral("embeddings.LayerNorm.weight"),
                      QStringLiteral("embeddings.LayerNorm.bias"), x, m_hidden, kEps, threads);
    }

    void layer(LayerStep& s) const override
    {
        const LayerNames n(QStringLiteral("transformer.layer.%1."), s.layer());
        auto project = [&](const char* which, bool queries = false) {
            const QString base = n("attention.") + QLatin1String(which);
            const QString weight = base + QStringLiteral(".weight"), bias = base + QStringLiteral(".bias");
            return queries ? s.projectQueries(s.residual(), weight, bias, m_heads, m_headDim)
                           : s.projectHeads(s.residual(), weight, bias, m_heads, m_headDim);
        };
        HeadTensor q = project("q_lin", true), k = project("k_lin"), v = project("v_lin");
        const HeadTensor o = s.attend(std::move(q), std::move(k), std::move(v), LayerAttention{});
        postNormEncoderBlock(s,
                             s.projectOutput(o, n("attention.out_lin.weight"), n("attention.out_lin.bias")),
                             {n("sa_layer_norm.weight"), n("sa_layer_norm.bias"), n("ffn.lin1.weight"),
                              n("ffn.lin1.bias"), n("ffn.lin2.weight"), n("ffn.lin2.bias"),
                              n("output_layer_norm.weight"), n("output_layer_norm.bias")},
                             kEps, m_activation);
    }

    OutputHead outputHead(const ModelWeights& w) const override
    {
        const WeightStore& store = w.store();
        OutputHead head;
        head.maskedLm = true;
        head.transformWeight = QStringLiteral("vocab_transform.weight");
        head.transformBias = QStringLiteral("vocab_transform.bias");
        head.transformActivation = m_activation;
        head.normWeight = QStringLiteral("vocab_layer_norm.weight");
        head.normBias = QStringLiteral("vocab_layer_norm.bias");
        head.normEps = kEps;
        if (!store.contains(head.transformWeight)) {
            head.missing = PredictionGap::NoMaskedLmHead;
            return head;
        }
        head.projection = !m_tied && store.contains(QStringLiteral("vocab_projector.weight"))
                              ? QStringLiteral("vocab_projector.weight")
                              : w.name(QStringLiteral("embeddings.word_embeddings.weight"));
        if (store.contains(QStringLiteral("vocab_projector.bias")))
            head.bias = QStringLiteral("vocab_projector.bias");
        return head;
    }

private:
    void addSinusoidalPositions(const std::vector<int>& positions, std::vector<float>& x) const
    {
        for (size_t t = 0; t < positions.size(); ++t)
            for (int j = 0; j < m_hidden; ++j) {
                const double angle = positions[t] / std::pow(10000.0, 2.0 * (j / 2) / m_hidden);
                x[t * size_t(m_hidden) + size_t(j)] += float(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
            }
    }

    Activation m_activation = Activation::GeluErf;
    bool m_sinusoidal = false, m_tied = true;
    int m_layers = 0, m_hidden = 0, m_heads = 0, m_headDim = 0, m_vocab = 0, m_positions = 0,
        m_intermediate = 0;
};

} // namespace

namespace families {

FamilyUnit distilbertFamilyUnit()
{
    return {QStringLiteral("distilbert"),
            {QStringLiteral("distilbert")},
            {{QStringLiteral("DistilBertFor"), QStringLiteral("distilbert")},
             {QStringLiteral("DistilBertModel"), QStringLiteral("distilbert")}},
            &configureArchitecture<DistilBertArchitecture>};
}

} // namespace families

} // namespace attnscope
