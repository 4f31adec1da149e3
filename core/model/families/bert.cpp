// BERT and its retrainings RoBERTa and XLM-RoBERTa (transformers: modeling_bert.py, modeling_roberta.py,
// modeling_xlm_roberta.py). Encoder, post-LN:
//   x = LN(word[id] + position[p] + type[t])
//   per layer: x = LN(x + W_O·attention(x));  x = LN(x + W_2·act(W_1·x))
// RoBERTa differs in where positions start (after the padding id, skipping padding tokens), its single token
// type, its tensor prefix and its LM head's names.

#include "model/architecture.h"
#include "model/configreader.h"
#include "model/familyregistry.h"
#include "model/layerstep.h"
#include "model/modelerror.h"
#include "model/postnormencoder.h"

namespace attnscope {

namespace {

class BertArchitecture final : public Architecture
{
public:
    BertArchitecture(const ConfigReader& r, ModelConfig& c)
        : m_roberta(c.modelType != QLatin1String("bert")), m_hidden(r.positive({"hidden_size"})),
          m_intermediate(r.positive({"intermediate_size"}))
    {
        c.decoder = false;
        c.hidden = m_hidden;
        c.heads = r.positive({"num_attention_heads"});
        c.layers = r.positive({"num_hidden_layers"});
        c.vocabSize = r.positive({"vocab_size"});
        c.typeVocabSize = r.positive({"type_vocab_size"}, m_roberta ? 1 : 2);
        m_tableRows = r.positive({"max_position_embeddings"}, m_roberta ? 514 : 512);
        m_eps = r.epsilon("layer_norm_eps", 1e-12);
        m_activation = r.activation("hidden_act", QStringLiteral("gelu"));
        m_tied = r.flag("tie_word_embeddings", true);
        c.normEps = m_eps;
        c.tieWordEmbeddings = m_tied;
        const QString positions = r.string("position_embedding_type", QStringLiteral("absolute"));
        if (positions != QLatin1String("absolute"))
            r.fail(QStringLiteral("position_embedding_type '%1' is not supported (only absolute)")
                       .arg(positions));
        if (m_roberta) {
            // Positions pad + 1, pad + 2, ...: the table's first pad + 1 rows are never a real token's.
            m_padding = r.integer("pad_token_id", 1, 0, kMaxPositions);
            if (m_padding < 0 || m_padding + 1 >= m_tableRows)
                r.fail(QStringLiteral("pad_token_id %1 leaves no positions in max_position_embeddings %2")
                           .arg(m_padding)
                           .arg(m_tableRows));
        }
        c.maxPositions = m_roberta ? m_tableRows - m_padding - 1 : m_tableRows;
        r.completeShape(c);
        m_layers = c.layers;
        m_heads = c.heads;
        m_headDim = c.headDim;
        m_vocab = c.vocabSize;
        m_types = c.typeVocabSize;
    }

    QStringList weightPrefixes() const override
    {
        return {m_roberta ? QStringLiteral("roberta.") : QStringLiteral("bert."), QString()};
    }
    QString anchorTensor() const override { return QStringLiteral("embeddings.word_embeddings.weight"); }

    void declareTensors(TensorChecklist& list) const override
    {
        const qint64 h = m_hidden, I = m_intermediate, V = m_vocab;
        list.require(QStringLiteral("embeddings.word_embeddings.weight"), {V, h});
        list.require(QStringLiteral("embeddings.position_embeddings.weight"), {m_tableRows, h});
        list.require(QStringLiteral("embeddings.token_type_embeddings.weight"), {m_types, h});
        list.requireWithBias(QStringLiteral("embeddings.LayerNorm."), {h}, h);
        for (int l = 0; l < m_layers; ++l) {
            const LayerNames n(QStringLiteral("encoder.layer.%1."), l);
            for (const char* p : {"attention.self.query.", "attention.self.key.", "attention.self.value.",
                                  "attention.output.dense."})
                list.requireWithBias(n(p), {h, h}, h);
            list.requireWithBias(n("attention.output.LayerNorm."), {h}, h);
            list.requireWithBias(n("intermediate.dense."), {I, h}, I);
            list.requireWithBias(n("output.dense."), {h, I}, h);
            list.requireWithBias(n("output.LayerNorm."), {h}, h);
        }
        const QString head = m_roberta ? QStringLiteral("lm_head.") : QStringLiteral("cls.predictions.");
        const QString transform = m_roberta ? head : head + QStringLiteral("transform.");
        list.optionalFullName(transform + QStringLiteral("dense.weight"), {h, h});
        list.optionalFullName(transform + QStringLiteral("dense.bias"), {h});
        list.optionalFullName(transform + (m_roberta ? QStringLiteral("layer_norm.weight")
                                                     : QStringLiteral("LayerNorm.weight")),
                              {h});
        list.optionalFullName(
            transform + (m_roberta ? QStringLiteral("layer_norm.bias") : QStringLiteral("LayerNorm.bias")),
            {h});
        list.optionalFullName(head + QStringLiteral("decoder.weight"), {V, h});
        list.optionalFullName(head + QStringLiteral("bias"), {V});
        list.optionalFullName(head + QStringLiteral("decoder.bias"), {V}); // outputHead's fallback bias
    }

    std::vector<int> defaultPositions(const std::vector<int>& ids, int pastTokens) const override
    {
        if (!m_roberta) return Architecture::defaultPositions(ids, pastTokens);
        // transformers' create_position_ids_from_input_ids: padding tokens sit at pad, the others count on
        // from pad + 1.
        std::vector<int> positions(ids.size());
        int count = pastTokens;
        for (size_t t = 0; t < ids.size(); ++t)
            positions[t] = ids[t] == m_padding ? m_padding : m_padding + ++count;
        return positions;
    }
    int positionTableSize() const override { return m_tableRows; }

    void embed(const TokenInput& input, const ModelWeights& w, std::vector<float>& x,
               int threads) const override
    {
        addRows(w, QStringLiteral("embeddings.word_embeddings.weight"), input.ids, x, m_hidden);
        addRows(w, QStringLiteral("embeddings.position_embeddings.weight"), input.positions, x, m_hidden);
        addRows(w, QStringLiteral("embeddings.token_type_embeddings.weight"),
                input.typeIds.empty() ? std::vector<int>(input.ids.size(), 0) : input.typeIds, x, m_hidden);
        layerNormRows(w, QStringLiteral("embeddings.LayerNorm.weight"),
                      QStringLiteral("embeddings.LayerNorm.bias"), x, m_hidden, m_eps, threads);
    }

    void layer(LayerStep& s) const override
    {
        const LayerNames n(QStringLiteral("encoder.layer.%1."), s.layer());
        const std::vector<float>& x = s.residual();
        const auto name = [&](const char* which, const char* part) {
            return n("attention.self.") + QLatin1String(which) + QLatin1String(part);
        };
        auto [q, k, v] =
            s.projectQkv(x, {name("query", ".weight"), name("key", ".weight"), name("value", ".weight"),
                             name("query", ".bias"), name("key", ".bias"), name("value", ".bias"), m_heads,
                             m_heads, m_headDim});
        const HeadTensor o = s.attend(std::move(q), std::move(k), std::move(v), LayerAttention{});
        postNormEncoderBlock(
            s, s.projectOutput(o, n("attention.output.dense.weight"), n("attention.output.dense.bias")),
            {n("attention.output.LayerNorm.weight"), n("attention.output.LayerNorm.bias"),
             n("intermediate.dense.weight"), n("intermediate.dense.bias"), n("output.dense.weight"),
             n("output.dense.bias"), n("output.LayerNorm.weight"), n("output.LayerNorm.bias")},
            m_eps, m_activation);
    }

    OutputHead outputHead(const ModelWeights& w) const override
    {
        const WeightStore& store = w.store();
        OutputHead head;
        head.maskedLm = true;
        head.normEps = m_eps;
        if (m_roberta) {
            head.transformWeight = QStringLiteral("lm_head.dense.weight");
            head.transformBias = QStringLiteral("lm_head.dense.bias");
            head.transformActivation =
                Activation::GeluErf; // RobertaLMHead applies gelu whatever hidden_act says
            head.normWeight = QStringLiteral("lm_head.layer_norm.weight");
            head.normBias = QStringLiteral("lm_head.layer_norm.bias");
        } else {
            head.transformWeight = QStringLiteral("cls.predictions.transform.dense.weight");
            head.transformBias = QStringLiteral("cls.predictions.transform.dense.bias");
            head.transformActivation = m_activation;
            head.normWeight = QStringLiteral("cls.predictions.transform.LayerNorm.weight");
            head.normBias = QStringLiteral("cls.predictions.transform.LayerNorm.bias");
        }
        if (!store.contains(head.transformWeight)) {
            head.missing = PredictionGap::NoMaskedLmHead;
            return head;
        }
        const QString prefix = m_roberta ? QStringLiteral("lm_head.") : QStringLiteral("cls.predictions.");
        const QString decoder = prefix + QStringLiteral("decoder.weight");
        head.projection = !m_tied && store.contains(decoder)
                              ? decoder
                              : w.name(QStringLiteral("embeddings.word_embeddings.weight"));
        for (const QString& bias : {prefix + QStringLiteral("bias"), prefix + QStringLiteral("decoder.bias")})
            if (store.contains(bias)) {
                head.bias = bias;
                break;
            }
        return head;
    }

private:
    bool m_roberta;
    int m_hidden, m_intermediate;
    int m_heads = 0, m_headDim = 0;
    int m_layers = 0, m_vocab = 0, m_types = 0, m_tableRows = 0, m_padding = 0;
    double m_eps = 1e-12;
    Activation m_activation = Activation::GeluErf;
    bool m_tied = true;
};

} // namespace

namespace families {

FamilyUnit bertFamilyUnit()
{
    return {QStringLiteral("bert"),
            {QStringLiteral("bert"), QStringLiteral("roberta"), QStringLiteral("xlm-roberta")},
            {{QStringLiteral("BertFor"), QStringLiteral("bert")},
             {QStringLiteral("BertModel"), QStringLiteral("bert")},
             {QStringLiteral("RobertaFor"), QStringLiteral("roberta")},
             {QStringLiteral("RobertaModel"), QStringLiteral("roberta")},
             {QStringLiteral("XLMRobertaFor"), QStringLiteral("xlm-roberta")},
             {QStringLiteral("XLMRobertaModel"), QStringLiteral("xlm-roberta")}},
            &configureArchitecture<BertArchitecture>};
}

} // namespace families

} // namespace attnscope
