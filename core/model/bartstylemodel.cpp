#include "model/bartstylemodel.h"

#include "attention/attention.h"
#include "model/configreader.h"
#include "model/modelconfig.h"
#include "model/modelerror.h"
#include "model/nonfinitecheck.h"
#include "model/unusedlayers.h"

#include <QDir>
#include <QStringList>
#include <cmath>
#include <tuple>

namespace attnscope {

namespace {

QString shapeText(const std::vector<qint64>& shape)
{
    QStringList parts;
    for (const qint64 d : shape)
        parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

// Rows [0, n) of the sinusoidal table (bartstylemodel.h), n × d.
std::vector<float> sinusoidalRows(int n, int d)
{
    std::vector<float> table(size_t(n) * size_t(d));
    const int sinColumns = (d + 1) / 2;
    for (int p = 0; p < n; ++p)
        for (int j = 0; j < d; ++j) {
            const bool sine = j < sinColumns;
            const int pair = sine ? j : j - sinColumns;
            const double angle = double(p) / std::pow(10000.0, 2.0 * pair / double(d));
            table[size_t(p) * size_t(d) + size_t(j)] = float(sine ? std::sin(angle) : std::cos(angle));
        }
    return table;
}

// BartLearnedPositionalEmbedding's offset: position p reads row p + 2.
constexpr int kLearnedPositionOffset = 2;

} // namespace

BartStyleOptions readBartStyleOptions(const ConfigReader& r, const EncoderDecoderConfig& config)
{
    BartStyleOptions options;
    options.activation = r.activation("activation_function", QStringLiteral("gelu"));
    options.embedScale = r.flag("scale_embedding", false) ? float(std::sqrt(double(config.hidden))) : 1.0f;
    return options;
}

EncoderDecoderConfig readBartStyleConfig(const ConfigReader& r, const QString& modelType,
                                         const BartStyleDefaults& defaults)
{
    EncoderDecoderConfig c;
    c.modelType = modelType;
    c.family = modelType;
    c.hidden = r.integer("d_model", defaults.hidden, 1, kMaxHidden);
    c.encoderLayers = r.integer("encoder_layers", defaults.layers, 1, kMaxLayers);
    c.decoderLayers = r.integer("decoder_layers", defaults.layers, 1, kMaxLayers);
    c.encoderHeads = r.integer("encoder_attention_heads", defaults.heads, 1, kMaxHeads);
    c.decoderHeads = r.integer("decoder_attention_heads", defaults.heads, 1, kMaxHeads);
    c.encoderFfn = r.integer("encoder_ffn_dim", defaults.ffn, 1, kMaxIntermediate);
    c.decoderFfn = r.integer("decoder_ffn_dim", defaults.ffn, 1, kMaxIntermediate);
    c.vocabSize = r.integer("vocab_size", defaults.vocabSize, 1, kMaxVocabulary);
    c.maxPositions = r.integer("max_position_embeddings", defaults.maxPositions, 1, kMaxPositions - 2);
    for (const auto& [heads, key] : {std::pair{c.encoderHeads, "encoder_attention_heads"},
                                     std::pair{c.decoderHeads, "decoder_attention_heads"}})
        if (c.hidden % heads != 0)
            r.fail(QStringLiteral("d_model %1 is not a multiple of %2 %3: the heads cannot split it")
                       .arg(c.hidden)
                       .arg(QLatin1String(key))
                       .arg(heads));
    for (const auto& [id, key, fallback] :
         {std::tuple{&c.padId, "pad_token_id", defaults.padId},
          std::tuple{&c.eosId, "eos_token_id", defaults.eosId},
          std::tuple{&c.decoderStartId, "decoder_start_token_id", defaults.decoderStartId}}) {
        *id = r.integer(key, fallback, 0, kMaxVocabulary - 1);
        if (*id >= c.vocabSize)
            r.fail(QStringLiteral("%1 %2%3 is outside vocab_size %4")
                       .arg(QLatin1String(key))
                       .arg(*id)
                       .arg(r.has(key) ? QString() : QStringLiteral(" (the default)"))
                       .arg(c.vocabSize));
    }
    return c;
}

// A stack's attention: [layers, heads, n_q, n_k] as one buffer, filled layer by layer.
struct BartStyleModel::StackResult
{
    std::vector<float> self, cross;
};

BartStyleModel::BartStyleModel(EncoderDecoderConfig config, BartStyleOptions options, const QString& folder)
    : EncoderDecoderModel(std::move(config)), m_options(options), m_folder(folder),
      m_store(std::make_shared<WeightStore>(WeightStore::openFolder(folder)))
{
    const EncoderDecoderConfig& c = m_config;
    // ...ForConditionalGeneration / MarianMTModel keep the base model under "model."; MarianModel has no
    // prefix.
    m_prefix = m_store->contains(QStringLiteral("model.encoder.layers.0.fc1.weight"))
                   ? QStringLiteral("model.")
                   : QString();
    QString embedding = QStringLiteral("shared.weight");
    if (!m_store->contains(m_prefix + embedding) &&
        m_store->contains(m_prefix + QStringLiteral("encoder.embed_tokens.weight")))
        embedding = QStringLiteral("encoder.embed_tokens.weight");
    m_embedding = load(embedding, {c.vocabSize, c.hidden}).data();
    // The LM head: lm_head.weight where the file keeps one of its own, else the tied embedding (both
    // families tie it by default); final_logits_bias where present (a zero buffer upstream unless trained).
    m_outputEmbedding = m_store->contains(QStringLiteral("lm_head.weight"))
                            ? load(QStringLiteral("lm_head.weight"), {c.vocabSize, c.hidden}, false).data()
                            : m_embedding;
    if (m_store->contains(QStringLiteral("final_logits_bias")))
        m_logitsBias = load(QStringLiteral("final_logits_bias"), {1, c.vocabSize}, false).data();
    if (m_options.positions == BartStyleOptions::Positions::Learned) {
        const qint64 rows = qint64(c.maxPositions) + kLearnedPositionOffset;
        m_encoderPositions = load(QStringLiteral("encoder.embed_positions.weight"), {rows, c.hidden}).data();
        m_decoderPositions = load(QStringLiteral("decoder.embed_positions.weight"), {rows, c.hidden}).data();
    }
    if (m_options.finalNorm) {
        m_encoderFinalNorm = norm(QStringLiteral("encoder.layer_norm"));
        m_decoderFinalNorm = norm(QStringLiteral("decoder.layer_norm"));
    }
    if (m_options.embeddingNorm) {
        m_encoderEmbeddingNorm = norm(QStringLiteral("encoder.layernorm_embedding"));
        m_decoderEmbeddingNorm = norm(QStringLiteral("decoder.layernorm_embedding"));
    }
    for (int l = 0; l < c.encoderLayers; ++l)
        m_encoder.push_back(
            layerWeights(QStringLiteral("encoder.layers.%1.").arg(l), c.encoderFfn, c.encoderHeads, false));
    for (int l = 0; l < c.decoderLayers; ++l)
        m_decoder.push_back(
            layerWeights(QStringLiteral("decoder.layers.%1.").arg(l), c.decoderFfn, c.decoderHeads, true));
    QStringList notes;
    for (const auto& [stack, key, layers] : {std::tuple{"encoder", "encoder_layers", c.encoderLayers},
                                             std::tuple{"decoder", "decoder_layers", c.decoderLayers}}) {
        const QString under = m_prefix + QLatin1String(stack) + QStringLiteral(".layers.");
        QStringList names;
        for (const QString& name : m_store->names())
            if (name.startsWith(under)) names << name;
        const QString unused = unusedLayerTensors(names, m_read, layers);
        if (!unused.isEmpty())
            notes << QStringLiteral("%1 %2, but the weights also hold %3 %4, which are not used")
                         .arg(QLatin1String(key))
                         .arg(layers)
                         .arg(QLatin1String(stack), unused);
    }
    if (!notes.isEmpty())
        m_unusedLayersNote = QDir::toNativeSeparators(QDir(folder).filePath(QStringLiteral("config.json"))) +
                             QStringLiteral(": ") + notes.join(QStringLiteral("; "));
}

const WeightTensor& BartStyleModel::load(const QString& base, const std::vector<qint64>& shape,
                                         bool underPrefix)
{
    const QString name = underPrefix ? m_prefix + base : base;
    const TensorInfo* info = m_store->info(name);
    if (!info)
        throw ModelError(
            m_store->primaryFile(),
            QStringLiteral("tensor %1 is missing (needed by this %2 model with %3 encoder and %4 "
                           "decoder layers in config.json)")
                .arg(name, m_config.modelType)
                .arg(m_config.encoderLayers)
                .arg(m_config.decoderLayers));
    if (info->shape != shape)
        throw ModelError(m_store->fileOf(name),
                         QStringLiteral("tensor %1 has shape %2 but config.json implies %3")
                             .arg(name, info->shapeText(), shapeText(shape)));
    if (!m_store->convertsToFloat(name))
        throw ModelError(
            m_store->fileOf(name),
            QStringLiteral("tensor %1 has dtype %2; only F32, F16 and BF16 weights are supported")
                .arg(name, m_store->storageType(name)));
    // NaN in a norm or a bias spoils every output: refused at open, as TransformerModel does.
    if (shape.size() == 1 || (shape.size() == 2 && shape[0] == 1)) checkTensorFinite(*m_store, name);
    m_read.insert(name);
    m_held.push_back(m_store->load(name));
    return m_held.back();
}

ops::LinearWeight BartStyleModel::linearWeight(const QString& base, int out, int in)
{
    ops::LinearWeight w;
    w.weight = load(base + QStringLiteral(".weight"), {out, in}).data();
    w.bias = load(base + QStringLiteral(".bias"), {out}).data();
    w.in = in;
    w.out = out;
    w.layout = ops::WeightLayout::OutIn; // nn.Linear
    return w;
}

BartStyleModel::Norm BartStyleModel::norm(const QString& base)
{
    return {load(base + QStringLiteral(".weight"), {m_config.hidden}).data(),
            load(base + QStringLiteral(".bias"), {m_config.hidden}).data()};
}

BartStyleModel::AttentionWeights BartStyleModel::attentionWeights(const QString& base, int heads)
{
    const int d = m_config.hidden;
    return {linearWeight(base + QStringLiteral("q_proj"), d, d),
            linearWeight(base + QStringLiteral("k_proj"), d, d),
            linearWeight(base + QStringLiteral("v_proj"), d, d),
            linearWeight(base + QStringLiteral("out_proj"), d, d), heads};
}

BartStyleModel::Layer BartStyleModel::layerWeights(const QString& base, int ffn, int heads, bool decoder)
{
    Layer layer;
    layer.self = attentionWeights(base + QStringLiteral("self_attn."), heads);
    layer.selfNorm = norm(base + QStringLiteral("self_attn_layer_norm"));
    if (decoder) {
        layer.cross = attentionWeights(base + QStringLiteral("encoder_attn."), heads);
        layer.crossNorm = norm(base + QStringLiteral("encoder_attn_layer_norm"));
    }
    layer.fc1 = linearWeight(base + QStringLiteral("fc1"), ffn, m_config.hidden);
    layer.fc2 = linearWeight(base + QStringLiteral("fc2"), m_config.hidden, ffn);
    layer.finalNorm = norm(base + QStringLiteral("final_layer_norm"));
    return layer;
}

void BartStyleModel::checkIds(const std::vector<int>& ids, const QString& side) const
{
    if (ids.empty()) throw ModelError(m_folder, QStringLiteral("the %1 is empty").arg(side));
    if (int(ids.size()) > m_config.maxPositions)
        throw ModelError(m_folder, QStringLiteral("the %1 has %2 tokens; this model takes at most %3 "
                                                  "(max_position_embeddings)")
                                       .arg(side)
                                       .arg(ids.size())
                                       .arg(m_config.maxPositions));
    for (size_t t = 0; t < ids.size(); ++t)
        if (ids[t] < 0 || ids[t] >= m_config.vocabSize)
            throw ModelError(m_folder,
                             QStringLiteral("%1 token %2 has id %3, outside the vocabulary (0 to %4)")
                                 .arg(side)
                                 .arg(t)
                                 .arg(ids[t])
                                 .arg(m_config.vocabSize - 1));
}

std::vector<float> BartStyleModel::embed(const std::vector<int>& ids, const float* learnedPositions,
                                         const Norm& norm, int threads) const
{
    const int n = int(ids.size()), d = m_config.hidden;
    std::vector<float> x;
    if (learnedPositions) {
        const float* first = learnedPositions + size_t(kLearnedPositionOffset) * size_t(d);
        x.assign(first, first + size_t(n) * size_t(d));
    } else {
        x = sinusoidalRows(n, d);
    }
    for (int t = 0; t < n; ++t) {
        const float* row = m_embedding + size_t(ids[size_t(t)]) * size_t(d);
        float* out = x.data() + size_t(t) * size_t(d);
        for (int j = 0; j < d; ++j)
            out[j] += row[j] * m_options.embedScale;
    }
    if (norm.gamma) ops::layerNorm(x.data(), x.data(), n, d, norm.gamma, norm.beta, m_options.eps, threads);
    return x;
}

std::vector<float> BartStyleModel::attend(const std::vector<float>& queries, int nq,
                                          const std::vector<float>& memory, int nk, const AttentionWeights& w,
                                          bool causal, const std::vector<unsigned char>& keyVisible,
                                          std::vector<float>& probabilities, int threads) const
{
    const int d = m_config.hidden, headDim = d / w.heads;
    // A projection's output [tokens, d] is the HeadTensor layout [tokens, heads, d_head] as it is.
    HeadTensor q(nq, w.heads, headDim), k(nk, w.heads, headDim), v(nk, w.heads, headDim);
    ops::linear(queries.data(), nq, w.q, q.values.data(), std::nullopt, threads);
    ops::linear(memory.data(), nk, w.k, k.values.data(), std::nullopt, threads);
    ops::linear(memory.data(), nk, w.v, v.values.data(), std::nullopt, threads);
    AttentionOptions options; // scale 1/√d_head: upstream scales q by it before q·kᵀ
    options.causal = causal;
    options.keyPadding = keyVisible;
    options.threads = threads;
    const FullAttentionResult r = attentionFull(q, k, v, options);
    probabilities.insert(probabilities.end(), r.probabilities.begin(), r.probabilities.end());
    std::vector<float> out(size_t(nq) * size_t(d));
    ops::linear(r.output.values.data(), nq, w.out, out.data(), std::nullopt, threads);
    return out;
}

void BartStyleModel::sublayer(std::vector<float>& x, const Norm& n,
                              const std::function<std::vector<float>(const std::vector<float>&)>& block,
                              int threads) const
{
    const int d = m_config.hidden, rows = int(x.size() / size_t(d));
    if (m_options.preNorm) {
        std::vector<float> normed(x.size());
        ops::layerNorm(x.data(), normed.data(), rows, d, n.gamma, n.beta, m_options.eps, threads);
        const std::vector<float> out = block(normed);
        for (size_t i = 0; i < x.size(); ++i)
            x[i] += out[i];
        return;
    }
    const std::vector<float> out = block(x);
    for (size_t i = 0; i < x.size(); ++i)
        x[i] += out[i];
    ops::layerNorm(x.data(), x.data(), rows, d, n.gamma, n.beta, m_options.eps, threads);
}

std::vector<float> BartStyleModel::feedForward(const std::vector<float>& x, const Layer& layer, int ffn,
                                               int threads) const
{
    const int n = int(x.size() / size_t(m_config.hidden));
    std::vector<float> inner(size_t(n) * size_t(ffn));
    ops::linear(x.data(), n, layer.fc1, inner.data(), m_options.activation, threads);
    std::vector<float> out(x.size());
    ops::linear(inner.data(), n, layer.fc2, out.data(), std::nullopt, threads);
    return out;
}

std::vector<float> BartStyleModel::forward(const std::vector<int>& sourceIds,
                                           const std::vector<int>& targetIds,
                                           const std::vector<unsigned char>& sourceVisible, int threads,
                                           StackResult& encoder, StackResult& decoder) const
{
    checkIds(sourceIds, QStringLiteral("source"));
    checkIds(targetIds, QStringLiteral("target"));
    const EncoderDecoderConfig& c = m_config;
    const int ns = int(sourceIds.size()), nt = int(targetIds.size());
    const NonFiniteCheck finite(*m_store, m_folder);
    const auto check = [&](const std::vector<float>& x, const QString& stack, int layer) {
        finite.check(x, QStringLiteral("%1 layer %2").arg(stack).arg(layer),
                     QStringLiteral("the hidden state"),
                     {m_prefix + QStringLiteral("%1.layers.%2.").arg(stack).arg(layer)}, threads);
    };

    std::vector<float> memory = embed(sourceIds, m_encoderPositions, m_encoderEmbeddingNorm, threads);
    for (int l = 0; l < c.encoderLayers; ++l) {
        const Layer& layer = m_encoder[size_t(l)];
        sublayer(
            memory, layer.selfNorm,
            [&](const std::vector<float>& h) {
                return attend(h, ns, h, ns, layer.self, false, sourceVisible, encoder.self, threads);
            },
            threads);
        sublayer(
            memory, layer.finalNorm,
            [&](const std::vector<float>& h) { return feedForward(h, layer, c.encoderFfn, threads); },
            threads);
        check(memory, QStringLiteral("encoder"), l);
    }
    if (m_encoderFinalNorm.gamma)
        ops::layerNorm(memory.data(), memory.data(), ns, c.hidden, m_encoderFinalNorm.gamma,
                       m_encoderFinalNorm.beta, m_options.eps, threads);

    std::vector<float> x = embed(targetIds, m_decoderPositions, m_decoderEmbeddingNorm, threads);
    for (int l = 0; l < c.decoderLayers; ++l) {
        const Layer& layer = m_decoder[size_t(l)];
        sublayer(
            x, layer.selfNorm,
            [&](const std::vector<float>& h) {
                return attend(h, nt, h, nt, layer.self, true, {}, decoder.self, threads);
            },
            threads);
        sublayer(
            x, layer.crossNorm,
            [&](const std::vector<float>& h) {
                return attend(h, nt, memory, ns, layer.cross, false, sourceVisible, decoder.cross, threads);
            },
            threads);
        sublayer(
            x, layer.finalNorm,
            [&](const std::vector<float>& h) { return feedForward(h, layer, c.decoderFfn, threads); },
            threads);
        check(x, QStringLiteral("decoder"), l);
    }
    if (m_decoderFinalNorm.gamma)
        ops::layerNorm(x.data(), x.data(), nt, c.hidden, m_decoderFinalNorm.gamma, m_decoderFinalNorm.beta,
                       m_options.eps, threads);
    return x;
}

EncoderDecoderAttention BartStyleModel::run(const std::vector<int>& sourceIds,
                                            const std::vector<int>& targetIds, int threads,
                                            const std::vector<unsigned char>& sourceVisible) const
{
    if (!sourceVisible.empty() && sourceVisible.size() != sourceIds.size())
        throw ModelError(m_folder, QStringLiteral("the source mask has %1 entries for %2 tokens")
                                       .arg(sourceVisible.size())
                                       .arg(sourceIds.size()));
    StackResult encoder, decoder;
    forward(sourceIds, targetIds, sourceVisible, threads, encoder, decoder);
    const EncoderDecoderConfig& c = m_config;
    const int ns = int(sourceIds.size()), nt = int(targetIds.size());
    return {DenseAttentionMaps(c.encoderLayers, c.encoderHeads, ns, ns, std::move(encoder.self)),
            DenseAttentionMaps(c.decoderLayers, c.decoderHeads, nt, nt, std::move(decoder.self)),
            DenseAttentionMaps(c.decoderLayers, c.decoderHeads, nt, ns, std::move(decoder.cross))};
}

std::vector<double> BartStyleModel::lastTokenLogits(const std::vector<int>& sourceIds,
                                                    const std::vector<int>& targetIds, int threads,
                                                    const std::vector<unsigned char>& sourceVisible) const
{
    if (!sourceVisible.empty() && sourceVisible.size() != sourceIds.size())
        throw ModelError(m_folder, QStringLiteral("the source mask has %1 entries for %2 tokens")
                                       .arg(sourceVisible.size())
                                       .arg(sourceIds.size()));
    StackResult encoder, decoder;
    const std::vector<float> x = forward(sourceIds, targetIds, sourceVisible, threads, encoder, decoder);
    const int d = m_config.hidden;
    const float* last = x.data() + (targetIds.size() - 1) * size_t(d);
    // lm_head(x) + final_logits_bias, summed in double: greedy and beam search compare these, and a float sum
    // could reorder two logits upstream's float64 run keeps apart.
    std::vector<double> logits(size_t(m_config.vocabSize));
    for (int v = 0; v < m_config.vocabSize; ++v) {
        const float* row = m_outputEmbedding + size_t(v) * size_t(d);
        double sum = m_logitsBias ? double(m_logitsBias[v]) : 0.0;
        for (int j = 0; j < d; ++j)
            sum += double(row[j]) * double(last[j]);
        logits[size_t(v)] = sum;
    }
    return logits;
}

} // namespace attnscope
