#include "model/t5model.h"

#include "model/modelerror.h"
#include "model/nonfinitecheck.h"
#include "model/unusedlayers.h"
#include "util/parallel.h"

#include <QDir>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <limits>
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

} // namespace

int t5RelativePositionBucket(int relativePosition, bool bidirectional, int numBuckets, int maxDistance)
{
    int bucket = 0;
    int distance = 0;
    if (bidirectional) {
        numBuckets /= 2;
        if (relativePosition > 0) bucket += numBuckets;
        distance = std::abs(relativePosition);
    } else {
        distance = -std::min(relativePosition, 0);
    }
    const int maxExact = numBuckets / 2;
    if (distance < maxExact) return bucket + distance;
    // max_exact + log(distance / max_exact) / log(max_distance / max_exact) · (buckets − max_exact), in
    // float32 (torch: relative_position.float(); the Python float math.log(...) taken to float32), truncated.
    const float ratio = float(distance) / float(maxExact);
    const float logRange = float(std::log(double(maxDistance) / double(maxExact)));
    const float scaled = std::log(ratio) / logRange * float(numBuckets - maxExact);
    // (scaled is at most log(2^24) / log(max_distance / max_exact) · buckets: clipped before the int anyway.)
    const int large = maxExact + int(std::min(scaled, float(numBuckets)));
    return bucket + std::min(large, numBuckets - 1);
}

T5Model::T5Model(EncoderDecoderConfig config, T5Options options, const QString& folder)
    : EncoderDecoderModel(std::move(config)), m_options(options), m_folder(folder),
      m_store(std::make_shared<WeightStore>(WeightStore::openFolder(folder)))
{
    const EncoderDecoderConfig& c = m_config;
    // shared.weight, which T5 ties to encoder.embed_tokens and decoder.embed_tokens (save_pretrained keeps
    // one of the three).
    QString embedding = QStringLiteral("shared.weight");
    if (!m_store->contains(embedding) && m_store->contains(QStringLiteral("encoder.embed_tokens.weight")))
        embedding = QStringLiteral("encoder.embed_tokens.weight");
    m_embedding = load(embedding, {c.vocabSize, c.hidden}).data();
    // Tied (v1.0): transformers ties lm_head to the embedding whatever the file holds under lm_head.weight.
    m_lmHead = m_options.tiedHead ? m_embedding
                                  : load(QStringLiteral("lm_head.weight"), {c.vocabSize, c.hidden}).data();
    const std::vector<qint64> biasShape{m_options.numBuckets, c.encoderHeads};
    m_encoderBias =
        load(QStringLiteral("encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"),
             biasShape)
            .data();
    m_decoderBias =
        load(QStringLiteral("decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"),
             {m_options.numBuckets, c.decoderHeads})
            .data();
    m_encoderFinalNorm = load(QStringLiteral("encoder.final_layer_norm.weight"), {c.hidden}).data();
    m_decoderFinalNorm = load(QStringLiteral("decoder.final_layer_norm.weight"), {c.hidden}).data();
    for (int l = 0; l < c.encoderLayers; ++l)
        m_encoder.push_back(blockWeights(QStringLiteral("encoder.block.%1.").arg(l), false));
    for (int l = 0; l < c.decoderLayers; ++l)
        m_decoder.push_back(blockWeights(QStringLiteral("decoder.block.%1.").arg(l), true));

    QStringList notes;
    for (const auto& [stack, key, layers] : {std::tuple{"encoder", "num_layers", c.encoderLayers},
                                             std::tuple{"decoder", "num_decoder_layers", c.decoderLayers}}) {
        const QString under = QLatin1String(stack) + QStringLiteral(".block.");
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

const WeightTensor& T5Model::load(const QString& name, const std::vector<qint64>& shape)
{
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
    // NaN in a norm spoils every output: refused at open, as the other families do.
    if (shape.size() == 1) checkTensorFinite(*m_store, name);
    m_read.insert(name);
    m_held.push_back(m_store->load(name));
    return m_held.back();
}

ops::LinearWeight T5Model::linearWeight(const QString& name, int out, int in)
{
    ops::LinearWeight w;
    w.weight = load(name, {out, in}).data();
    w.in = in;
    w.out = out;
    w.layout = ops::WeightLayout::OutIn; // nn.Linear(bias=False)
    return w;
}

T5Model::AttentionWeights T5Model::attentionWeights(const QString& base)
{
    const int d = m_config.hidden, inner = m_config.encoderHeads * m_options.headDim;
    return {linearWeight(base + QStringLiteral("q.weight"), inner, d),
            linearWeight(base + QStringLiteral("k.weight"), inner, d),
            linearWeight(base + QStringLiteral("v.weight"), inner, d),
            linearWeight(base + QStringLiteral("o.weight"), d, inner)};
}

T5Model::Block T5Model::blockWeights(const QString& base, bool decoder)
{
    const int d = m_config.hidden, ffn = decoder ? m_config.decoderFfn : m_config.encoderFfn;
    const auto normWeight = [&](int sublayer) {
        return load(base + QStringLiteral("layer.%1.layer_norm.weight").arg(sublayer), {d}).data();
    };
    Block b;
    b.self = attentionWeights(base + QStringLiteral("layer.0.SelfAttention."));
    b.selfNorm = normWeight(0);
    if (decoder) {
        b.cross = attentionWeights(base + QStringLiteral("layer.1.EncDecAttention."));
        b.crossNorm = normWeight(1);
    }
    const int ffnLayer = decoder ? 2 : 1;
    const QString dense = base + QStringLiteral("layer.%1.DenseReluDense.").arg(ffnLayer);
    if (m_options.gated) {
        b.wi = linearWeight(dense + QStringLiteral("wi_0.weight"), ffn, d);
        b.wi1 = linearWeight(dense + QStringLiteral("wi_1.weight"), ffn, d);
    } else {
        b.wi = linearWeight(dense + QStringLiteral("wi.weight"), ffn, d);
    }
    b.wo = linearWeight(dense + QStringLiteral("wo.weight"), d, ffn);
    b.ffnNorm = normWeight(ffnLayer);
    return b;
}

void T5Model::checkIds(const std::vector<int>& ids, const QString& side) const
{
    if (ids.empty()) throw ModelError(m_folder, QStringLiteral("the %1 is empty").arg(side));
    if (int(ids.size()) > m_config.maxPositions)
        throw ModelError(m_folder, QStringLiteral("the %1 has %2 tokens; this model takes at most %3")
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

std::vector<float> T5Model::positionBias(const float* table, int nq, int nk, bool bidirectional) const
{
    const int heads = m_config.encoderHeads;
    std::vector<float> bias(size_t(heads) * size_t(nq) * size_t(nk));
    for (int i = 0; i < nq; ++i)
        for (int j = 0; j < nk; ++j) {
            const int bucket =
                t5RelativePositionBucket(j - i, bidirectional, m_options.numBuckets, m_options.maxDistance);
            for (int h = 0; h < heads; ++h)
                bias[(size_t(h) * size_t(nq) + size_t(i)) * size_t(nk) + size_t(j)] =
                    table[size_t(bucket) * size_t(heads) + size_t(h)];
        }
    return bias;
}

std::vector<float> T5Model::attend(const std::vector<float>& queries, int nq,
                                   const std::vector<float>& memory, int nk, const AttentionWeights& w,
                                   const std::vector<float>& bias, bool causal,
                                   const std::vector<unsigned char>& keyVisible,
                                   std::vector<float>& probabilities, int threads) const
{
    const int heads = m_config.encoderHeads, dk = m_options.headDim, inner = heads * dk;
    // q [n_q, heads, d_kv], k and v [n_k, heads, d_kv]: the projections' outputs as they are.
    std::vector<float> q(size_t(nq) * size_t(inner)), k(size_t(nk) * size_t(inner)), v(k.size());
    ops::linear(queries.data(), nq, w.q, q.data(), std::nullopt, threads);
    ops::linear(memory.data(), nk, w.k, k.data(), std::nullopt, threads);
    ops::linear(memory.data(), nk, w.v, v.data(), std::nullopt, threads);
    const size_t first = probabilities.size();
    probabilities.resize(first + size_t(heads) * size_t(nq) * size_t(nk));
    std::vector<float> context(q.size());
    // Per head: S = q·kᵀ + B (no scaling), masked keys out, P = softmax(S), context = P·v; in double, so the
    // float32 inputs give P to ~1e-7 of a float64 run.
    parallelFor(heads, threads, [&](int h) {
        std::vector<double> scores(static_cast<size_t>(nk));
        for (int i = 0; i < nq; ++i) {
            const float* qi = q.data() + size_t(i) * size_t(inner) + size_t(h) * size_t(dk);
            double top = -std::numeric_limits<double>::infinity();
            for (int j = 0; j < nk; ++j) {
                if ((causal && j > i) || (!keyVisible.empty() && !keyVisible[size_t(j)])) {
                    scores[size_t(j)] = -std::numeric_limits<double>::infinity();
                    continue;
                }
                const float* kj = k.data() + size_t(j) * size_t(inner) + size_t(h) * size_t(dk);
                double s = bias.empty()
                               ? 0.0
                               : double(bias[(size_t(h) * size_t(nq) + size_t(i)) * size_t(nk) + size_t(j)]);
                for (int e = 0; e < dk; ++e)
                    s += double(qi[e]) * double(kj[e]);
                scores[size_t(j)] = s;
                top = std::max(top, s);
            }
            float* p = probabilities.data() + first + (size_t(h) * size_t(nq) + size_t(i)) * size_t(nk);
            float* out = context.data() + size_t(i) * size_t(inner) + size_t(h) * size_t(dk);
            if (top == -std::numeric_limits<double>::infinity()) { // every key masked: a zero row
                std::fill(p, p + nk, 0.0f);
                std::fill(out, out + dk, 0.0f);
                continue;
            }
            double sum = 0;
            for (double& s : scores) {
                s = std::exp(s - top);
                sum += s;
            }
            std::vector<double> acc(size_t(dk), 0.0);
            for (int j = 0; j < nk; ++j) {
                const double pj = scores[size_t(j)] / sum;
                p[j] = float(pj);
                if (pj == 0.0) continue;
                const float* vj = v.data() + size_t(j) * size_t(inner) + size_t(h) * size_t(dk);
                for (int e = 0; e < dk; ++e)
                    acc[size_t(e)] += pj * double(vj[e]);
            }
            for (int e = 0; e < dk; ++e)
                out[e] = float(acc[size_t(e)]);
        }
    });
    std::vector<float> result(size_t(nq) * size_t(m_config.hidden));
    ops::linear(context.data(), nq, w.o, result.data(), std::nullopt, threads);
    return result;
}

std::vector<float> T5Model::feedForward(const std::vector<float>& x, const Block& block, int ffn,
                                        int threads) const
{
    const int n = int(x.size() / size_t(m_config.hidden));
    std::vector<float> inner(size_t(n) * size_t(ffn));
    ops::linear(x.data(), n, block.wi, inner.data(), m_options.activation, threads);
    if (m_options.gated) {
        std::vector<float> gate(inner.size());
        ops::linear(x.data(), n, block.wi1, gate.data(), std::nullopt, threads);
        for (size_t i = 0; i < inner.size(); ++i)
            inner[i] *= gate[i];
    }
    std::vector<float> out(x.size());
    ops::linear(inner.data(), n, block.wo, out.data(), std::nullopt, threads);
    return out;
}

std::vector<float> T5Model::normed(const std::vector<float>& x, const float* gamma, int threads) const
{
    const int d = m_config.hidden;
    std::vector<float> y(x.size());
    ops::rmsNorm(x.data(), y.data(), int(x.size() / size_t(d)), d, gamma, m_options.eps, threads);
    return y;
}

std::vector<float> T5Model::forward(const std::vector<int>& sourceIds, const std::vector<int>& targetIds,
                                    const std::vector<unsigned char>& sourceVisible, int threads,
                                    StackResult& encoder, StackResult& decoder) const
{
    checkIds(sourceIds, QStringLiteral("source"));
    checkIds(targetIds, QStringLiteral("target"));
    const EncoderDecoderConfig& c = m_config;
    const int d = c.hidden, ns = int(sourceIds.size()), nt = int(targetIds.size());
    const NonFiniteCheck finite(*m_store, m_folder);
    const auto check = [&](const std::vector<float>& x, const QString& stack, int layer) {
        finite.check(x, QStringLiteral("%1 layer %2").arg(stack).arg(layer),
                     QStringLiteral("the hidden state"),
                     {QStringLiteral("%1.block.%2.").arg(stack).arg(layer)}, threads);
    };
    const auto embed = [&](const std::vector<int>& ids) {
        std::vector<float> x(ids.size() * size_t(d));
        for (size_t t = 0; t < ids.size(); ++t)
            std::copy_n(m_embedding + size_t(ids[t]) * size_t(d), d, x.data() + t * size_t(d));
        return x;
    };
    const auto addTo = [](std::vector<float>& x, const std::vector<float>& y) {
        for (size_t i = 0; i < x.size(); ++i)
            x[i] += y[i];
    };

    std::vector<float> memory = embed(sourceIds);
    const std::vector<float> encoderBias = positionBias(m_encoderBias, ns, ns, true);
    for (int l = 0; l < c.encoderLayers; ++l) {
        const Block& b = m_encoder[size_t(l)];
        const std::vector<float> h = normed(memory, b.selfNorm, threads);
        addTo(memory, attend(h, ns, h, ns, b.self, encoderBias, false, sourceVisible, encoder.self, threads));
        addTo(memory, feedForward(normed(memory, b.ffnNorm, threads), b, c.encoderFfn, threads));
        check(memory, QStringLiteral("encoder"), l);
    }
    memory = normed(memory, m_encoderFinalNorm, threads);

    std::vector<float> x = embed(targetIds);
    const std::vector<float> decoderBias = positionBias(m_decoderBias, nt, nt, false);
    for (int l = 0; l < c.decoderLayers; ++l) {
        const Block& b = m_decoder[size_t(l)];
        const std::vector<float> h = normed(x, b.selfNorm, threads);
        addTo(x, attend(h, nt, h, nt, b.self, decoderBias, true, {}, decoder.self, threads));
        addTo(x, attend(normed(x, b.crossNorm, threads), nt, memory, ns, b.cross, {}, false, sourceVisible,
                        decoder.cross, threads));
        addTo(x, feedForward(normed(x, b.ffnNorm, threads), b, c.decoderFfn, threads));
        check(x, QStringLiteral("decoder"), l);
    }
    return normed(x, m_decoderFinalNorm, threads);
}

EncoderDecoderAttention T5Model::run(const std::vector<int>& sourceIds, const std::vector<int>& targetIds,
                                     int threads, const std::vector<unsigned char>& sourceVisible) const
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

std::vector<double> T5Model::lastTokenLogits(const std::vector<int>& sourceIds,
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
    // A tied head reads x · d^-0.5 (T5ForConditionalGeneration's rescale before the shared embedding).
    const double scale = m_options.tiedHead ? 1.0 / std::sqrt(double(d)) : 1.0;
    std::vector<double> logits(size_t(m_config.vocabSize));
    for (int v = 0; v < m_config.vocabSize; ++v) {
        const float* row = m_lmHead + size_t(v) * size_t(d);
        double sum = 0.0;
        for (int j = 0; j < d; ++j)
            sum += double(row[j]) * double(last[j]);
        logits[size_t(v)] = sum * scale;
    }
    return logits;
}

} // namespace attnscope
