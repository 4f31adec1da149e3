#include "model/layerstep.h"

#include "attention/layeredattentionmaps.h"
#include "backend/attentionbackend.h"
#include "model/modelerror.h"
#include "util/parallel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <stdexcept>

namespace attnscope {

namespace {

ops::LinearWeight linearWeight(const WeightTensor& w, const WeightTensor* bias, ops::WeightLayout layout)
{
    ops::LinearWeight l;
    l.weight = w.data();
    l.stored = w.storedData();
    l.storage = w.storage();
    l.bias = bias && !bias->isNull() ? bias->data() : nullptr;
    l.layout = layout;
    l.in = int(layout == ops::WeightLayout::OutIn ? w.cols() : w.rows());
    l.out = int(layout == ops::WeightLayout::OutIn ? w.rows() : w.cols());
    // A GGUF's GPT-2 matrix, HF [in, out], is stored [out, in]: the product reads it that way.
    if (w.storedData() && w.storedTransposed())
        l.layout = layout == ops::WeightLayout::OutIn ? ops::WeightLayout::InOut : ops::WeightLayout::OutIn;
    return l;
}

// The tokens of a (the past's) followed by those of b: [a.tokens + b.tokens, heads, d].
HeadTensor concatenate(const HeadTensor& a, const HeadTensor& b)
{
    HeadTensor all(a.tokens + b.tokens, b.heads, b.dim);
    std::copy(a.values.begin(), a.values.end(), all.values.begin());
    std::copy(b.values.begin(), b.values.end(), all.values.begin() + std::ptrdiff_t(a.values.size()));
    return all;
}

// count tokens of t from `first` on.
HeadTensor tokenRange(const HeadTensor& t, int first, int count)
{
    HeadTensor part(count, t.heads, t.dim);
    const auto begin = t.values.begin() + std::ptrdiff_t(t.offset(first, 0));
    std::copy(begin, begin + std::ptrdiff_t(part.values.size()), part.values.begin());
    return part;
}

// The tokens `rows` of t, in that order.
HeadTensor tokenRows(const HeadTensor& t, const std::vector<int>& rows)
{
    HeadTensor part(int(rows.size()), t.heads, t.dim);
    for (size_t r = 0; r < rows.size(); ++r)
        std::copy_n(t.vector(rows[r], 0), t.tokenStride(), part.vector(int(r), 0));
    return part;
}

// Replaces the heads of `layer` that `ablations` name in O [n, H, d]: zero, or each head's mean over the n
// positions.
void replaceHeads(HeadTensor& o, const std::vector<HeadAblation>& ablations, int layer)
{
    for (const HeadAblation& ablation : ablations) {
        if (ablation.layer != layer) continue;
        const int h = ablation.head;
        std::vector<double> mean(size_t(o.dim), 0.0);
        if (ablation.mode == AblationMode::Mean)
            for (int t = 0; t < o.tokens; ++t)
                for (int c = 0; c < o.dim; ++c)
                    mean[size_t(c)] += o.at(t, h, c) / o.tokens;
        for (int t = 0; t < o.tokens; ++t)
            for (int c = 0; c < o.dim; ++c)
                o.at(t, h, c) = float(mean[size_t(c)]); // Zero: the mean stays 0
    }
}

// O [rows, H, d] of the queries `rows` of q [n, H, d] (all of them when rows is empty) by the online softmax
// (attentionTiled): an ablation batch keeps no P, and attentionFull, which writes every P, took half again
// as long at the scan's lengths (docs/benchmarks.md). Without a mask any subset is one call; with one
// (causal, window), each run of consecutive rows is its own call at its offset.
// selected: q holds only those rows' queries [rows, H, d], in the order of `rows`.
// checkScores sees each call's log-sum-exp (the online softmax skips NaN scores as if masked).
HeadTensor attendRows(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v,
                      const AttentionOptions& attention, const std::vector<int>& rows, bool selected,
                      const std::function<void(const std::vector<double>&)>& checkScores)
{
    const auto output = [&](const HeadTensor& queries, const AttentionOptions& options) {
        TiledAttentionResult t = attentionTiled(queries, k, v, options);
        checkScores(t.logSumExp);
        return std::move(t.output);
    };
    if (rows.empty()) return output(q, attention);
    if (!attention.hasMask()) return output(selected ? q : tokenRows(q, rows), attention);
    HeadTensor o(int(rows.size()), q.heads, q.dim);
    for (size_t begin = 0; begin < rows.size();) {
        size_t end = begin + 1;
        while (end < rows.size() && rows[end] == rows[end - 1] + 1)
            ++end;
        AttentionOptions run = attention;
        run.queryPositionOffset += rows[begin];
        const HeadTensor part =
            output(tokenRange(q, selected ? int(begin) : rows[begin], int(end - begin)), run);
        std::copy(part.values.begin(), part.values.end(), o.vector(int(begin), 0));
        begin = end;
    }
    return o;
}

} // namespace

LayerStep::LayerStep(const ModelConfig& config, const ModelWeights& weights, const RunOptions& options,
                     int tokens, std::vector<int> positions, AttentionCapture* capture, const QString& folder)
    : m_config(config), m_weights(weights), m_options(options), m_tokens(tokens),
      m_pastTokens(options.past && !options.past->empty() ? options.past->front().keys.tokens : 0),
      m_threads(options.threads > 0 ? options.threads : defaultThreadCount()),
      m_dense(tokens <= options.denseLimit), m_positions(std::move(positions)), m_capture(capture),
      m_residual(size_t(tokens) * size_t(config.hidden), 0.0f), m_finite(weights.store(), folder)
{
    if (m_capture && m_dense)
        m_denseMaps = std::make_shared<LayeredAttentionMaps>(config.heads, tokens, m_pastTokens + tokens);
}

LayerStep::~LayerStep() = default;

bool LayerStep::restOfLayerUnused() const
{
    return m_options.outputUnused() && !m_options.ablationBatch && m_layer == m_config.layers - 1;
}

void LayerStep::begin(int layer)
{
    m_layer = layer;
    m_layerTensors.clear();
    m_layoutChanged = false;
    m_queriesSelected = false;
}

WeightTensor LayerStep::load(const QString& base) const
{
    m_layerTensors << m_weights.name(base);
    return m_weights.load(base);
}

WeightTensor LayerStep::loadForProduct(const QString& base) const
{
    m_layerTensors << m_weights.name(base);
    // The own product on bf16/f16 as stored, at any length: it beat converting + OpenBLAS at 128 tokens
    // (CPU time of the Llama-1B shape −18..22%) and, since the product buffers are no longer faulted in
    // afresh for every layer (app/main.cpp) and x is packed once per product, at 512 too (docs/
    // benchmarks.md; before, it was 7% slower there with 3 s more system time).
    return m_weights.loadForProduct(base);
}

void LayerStep::checkFinite(const std::vector<float>& values, const QString& what) const
{
    m_finite.check(values, QStringLiteral("layer %1").arg(m_layer), what, m_layerTensors, m_threads);
}

std::vector<float> LayerStep::linear(const std::vector<float>& x, const QString& weight, const QString& bias,
                                     std::optional<Activation> activation, ops::WeightLayout layout) const
{
    const WeightTensor w = loadForProduct(weight);
    const WeightTensor b = bias.isEmpty() ? WeightTensor() : load(bias);
    const ops::LinearWeight l = linearWeight(w, &b, layout);
    const int rows = int(x.size() / size_t(l.in));
    std::vector<float> y(size_t(rows) * size_t(l.out));
    ops::linear(x.data(), rows, l, y.data(), activation, m_threads);
    return y;
}

std::vector<std::vector<float>> LayerStep::linearTogether(const std::vector<float>& x,
                                                          const std::vector<Projection>& projections) const
{
    std::vector<WeightTensor> weights, biases;
    std::vector<ops::LinearWeight> linears;
    weights.reserve(projections.size());
    biases.reserve(projections.size());
    linears.reserve(projections.size());
    for (const Projection& p : projections) {
        weights.push_back(loadForProduct(p.weight));
        biases.push_back(p.bias.isEmpty() ? WeightTensor() : load(p.bias));
        linears.push_back(linearWeight(weights.back(), &biases.back(), ops::WeightLayout::OutIn));
    }
    std::vector<std::vector<float>> ys(projections.size());
    std::vector<ops::LinearTarget> targets;
    int rows = 0;
    for (size_t i = 0; i < projections.size(); ++i) {
        if (linears[i].in != linears.front().in)
            throw std::logic_error("LayerStep::linearTogether: the projections take different inputs");
        rows = int(x.size() / size_t(std::max(1, linears[i].in)));
        ys[i].resize(size_t(rows) * size_t(linears[i].out));
        targets.push_back(ops::LinearTarget{&linears[i], ys[i].data(), projections[i].activation});
    }
    ops::linearTogether(x.data(), rows, targets.data(), int(targets.size()), m_threads);
    return ys;
}

std::array<HeadTensor, 3> LayerStep::projectQkv(const std::vector<float>& x, const QkvProjection& p)
{
    if (reusesHeadOutputs() || projectsOutputRowQueriesOnly()) // what projectQueries/projectHeads do there
        return {projectQueries(x, p.query, p.queryBias, p.queryHeads, p.dim),
                projectHeads(x, p.key, p.keyBias, p.keyValueHeads, p.dim),
                projectHeads(x, p.value, p.valueBias, p.keyValueHeads, p.dim)};
    std::vector<std::vector<float>> ys = linearTogether(x, {{p.query, p.queryBias, std::nullopt},
                                                            {p.key, p.keyBias, std::nullopt},
                                                            {p.value, p.valueBias, std::nullopt}});
    std::array<HeadTensor, 3> heads{HeadTensor(0, p.queryHeads, p.dim), HeadTensor(0, p.keyValueHeads, p.dim),
                                    HeadTensor(0, p.keyValueHeads, p.dim)};
    for (size_t i = 0; i < 3; ++i) {
        heads[i].tokens = int(ys[i].size() / (size_t(heads[i].heads) * size_t(p.dim)));
        heads[i].values = std::move(ys[i]);
    }
    return heads;
}

HeadTensor LayerStep::projectHeads(const std::vector<float>& x, const QString& weight, const QString& bias,
                                   int heads, int dim) const
{
    if (reusesHeadOutputs()) return HeadTensor(0, heads, dim); // attendCopies() does not read them
    std::vector<float> values = linear(x, weight, bias);
    HeadTensor t(0, heads, dim);
    t.tokens = int(values.size() / (size_t(heads) * size_t(dim)));
    t.values = std::move(values);
    return t;
}

HeadTensor LayerStep::projectQueries(const std::vector<float>& x, const QString& weight, const QString& bias,
                                     int heads, int dim)
{
    if (!projectsOutputRowQueriesOnly()) return projectHeads(x, weight, bias, heads, dim);
    const AblationBatch* batch = m_options.ablationBatch;
    // The last layer above the batch's first: only the output rows' attention is kept (attendCopies), so
    // only their queries are projected; keys and values stay every row's.
    const size_t width = size_t(hidden()), copiesIn = x.size() / (size_t(m_tokens) * width);
    const std::vector<int>& rows = batch->outputRows;
    std::vector<float> selected(copiesIn * rows.size() * width);
    for (size_t c = 0; c < copiesIn; ++c)
        for (size_t r = 0; r < rows.size(); ++r)
            std::copy_n(x.data() + (c * size_t(m_tokens) + size_t(rows[r])) * width, width,
                        selected.data() + (c * rows.size() + r) * width);
    m_queriesSelected = true;
    return projectHeads(selected, weight, bias, heads, dim);
}

std::vector<float> LayerStep::rmsNorm(const std::vector<float>& x, const QString& weight, double eps,
                                      bool plusOne) const
{
    const WeightTensor g = load(weight);
    std::vector<float> y(x.size());
    ops::rmsNorm(x.data(), y.data(), int(x.size() / size_t(g.size())), int(g.size()), g.data(), eps,
                 m_threads, plusOne ? 1.0f : 0.0f);
    return y;
}

void LayerStep::rmsNormHeads(HeadTensor& x, const QString& weight, double eps, bool plusOne) const
{
    const WeightTensor g = load(weight);
    ops::rmsNorm(x.values.data(), x.values.data(), x.tokens * x.heads, x.dim, g.data(), eps, m_threads,
                 plusOne ? 1.0f : 0.0f);
}

std::vector<float> LayerStep::layerNorm(const std::vector<float>& x, const QString& weight,
                                        const QString& bias, double eps) const
{
    const WeightTensor g = load(weight);
    const WeightTensor b = load(bias);
    std::vector<float> y(x.size());
    ops::layerNorm(x.data(), y.data(), int(x.size() / size_t(g.size())), int(g.size()), g.data(), b.data(),
                   eps, m_threads);
    return y;
}

void LayerStep::layerNormHeads(HeadTensor& x, const QString& weight, const QString& bias, double eps) const
{
    const WeightTensor g = load(weight);
    const WeightTensor b = load(bias);
    ops::layerNorm(x.values.data(), x.values.data(), x.tokens * x.heads, x.dim, g.data(), b.data(), eps,
                   m_threads);
}

std::vector<float> LayerStep::gatedMlp(const std::vector<float>& x, const QString& gate, const QString& up,
                                       const QString& down, Activation activation, bool biases) const
{
    auto biasOf = [&](const QString& base) {
        return biases ? base.left(base.size() - 6) + QStringLiteral("bias")
                      : QString(); // "….weight" -> "….bias"
    };
    std::vector<std::vector<float>> gateUp =
        linearTogether(x, {{gate, biasOf(gate), activation}, {up, biasOf(up), std::nullopt}});
    const std::vector<float>& g = gateUp[0];
    std::vector<float>& u = gateUp[1];
    // In blocks on every core: serial, this product left the other core idle for ~1.5 ms a layer (1B shape,
    // 128 tokens; perf timeline in docs/benchmarks.md, perf15d).
    const size_t perTask = size_t(1) << 16;
    parallelFor(int((u.size() + perTask - 1) / perTask), m_threads, [&](int task) {
        const size_t begin = size_t(task) * perTask, end = std::min(u.size(), begin + perTask);
        for (size_t i = begin; i < end; ++i)
            u[i] *= g[i];
    });
    return linear(u, down, biasOf(down));
}

void LayerStep::addToResidual(const std::vector<float>& y)
{
    if (y.size() != m_residual.size())
        throw std::logic_error("LayerStep::addToResidual: the rows differ from the residual stream's");
    // In row blocks on every core: serial, this and recordResidual() left the other core idle between
    // the products (about 1.5% of a BERT-base pass at 512 tokens).
    const size_t width = size_t(m_config.hidden), rows = m_residual.size() / width, rowsPerTask = 32;
    parallelFor(int((rows + rowsPerTask - 1) / rowsPerTask), m_threads, [&](int task) {
        const size_t begin = size_t(task) * rowsPerTask * width,
                     end = std::min(m_residual.size(), begin + rowsPerTask * width);
        for (size_t i = begin; i < end; ++i)
            m_residual[i] += y[i];
    });
}

std::vector<float> LayerStep::inStreamLayout(const std::vector<float>& x) const
{
    if (!m_layoutChanged) return x;
    const int n = m_tokens, copies = int(m_options.ablationBatch->copies.size());
    const size_t width = x.size() / (size_t(m_copiesIn) * size_t(n)), rows = m_rowsOut.size();
    std::vector<float> y(size_t(copies) * rows * width);
    for (int c = 0; c < copies; ++c)
        for (size_t r = 0; r < rows; ++r)
            std::copy_n(x.data() +
                            (size_t(m_copiesIn == 1 ? 0 : c) * size_t(n) + size_t(m_rowsOut[r])) * width,
                        width, y.data() + (size_t(c) * rows + r) * width);
    return y;
}

AttentionOptions LayerStep::attentionOptions(const LayerAttention& spec) const
{
    AttentionOptions attention;
    attention.causal = m_config.decoder;
    attention.queryPositionOffset = m_pastTokens;
    attention.threads = m_threads;
    attention.scale = spec.scale;
    attention.softCap = spec.softCap;
    attention.sinks = spec.sinks;
    // A window at least as long as the sequence masks nothing: left off (the GPU kernels have none).
    if (spec.slidingWindow > 0 && spec.slidingWindow < m_pastTokens + m_tokens)
        attention.slidingWindow = spec.slidingWindow;
    return attention;
}

HeadTensor LayerStep::attend(HeadTensor q, HeadTensor k, HeadTensor v, const LayerAttention& spec)
{
    const int n = m_tokens, H = q.heads;
    // NaN/Inf are named where they appear, never passed on as pictures (model/nonfinitecheck.h).
    checkFinite(q.values, QStringLiteral("the queries"));
    checkFinite(k.values, QStringLiteral("the keys"));
    checkFinite(v.values, QStringLiteral("the values"));
    if (m_options.ablationBatch) return attendCopies(std::move(q), std::move(k), std::move(v), spec);
    if (m_capture && m_options.keepKeyValues) m_capture->keyValues.push_back({k, v, m_positions});

    // The whole sequence's keys and values: the past's (a KV cache), then this pass's.
    std::vector<int> keyPositions = m_positions;
    if (m_pastTokens > 0) {
        const LayerKeyValues& past = (*m_options.past)[size_t(m_layer)];
        k = concatenate(past.keys, k);
        v = concatenate(past.values, v);
        keyPositions.insert(keyPositions.begin(), past.positions.begin(), past.positions.end());
    }
    if (spec.rotary) {
        const int sequenceLength = *std::max_element(keyPositions.begin(), keyPositions.end()) + 1;
        spec.rotary->apply(q, m_positions, sequenceLength);
        spec.rotary->apply(k, keyPositions, sequenceLength);
    }

    const AttentionOptions attention = attentionOptions(spec);

    if (m_capture && n <= m_options.queryKeyLimit) {
        if (attention.softCap > 0.0f || attention.slidingWindow > 0 || !attention.sinks.empty() ||
            m_pastTokens > 0)
            m_lessonReproducesP = false;
        if (m_lessonReproducesP) {
            m_capture->queries.push_back(q);
            m_capture->keys.push_back(k);
            m_capture->scales.push_back(double(attention.effectiveScale(q.dim)));
        }
    }

    HeadTensor context;
    // The CPU backend computes what attentionFull computes; only a GPU backend takes the branch below.
    AttentionBackend* backend =
        m_options.backend && m_options.backend->kind() != BackendKind::Cpu ? m_options.backend : nullptr;
    if (m_dense && backend) {
        // The backend's tiled forward, and P for display recomputed on it as exp(S − L), head by head.
        TiledAttentionResult t = backend->tiledForward(q, k, v, attention);
        // The online softmax skips NaN scores as if masked: a row of them leaves a log-sum-exp of -inf.
        m_finite.check(t.logSumExp, QStringLiteral("layer %1").arg(m_layer),
                       QStringLiteral("the attention scores"), m_layerTensors);
        context = std::move(t.output);
        if (m_capture) {
            const int keys = k.tokens;
            FloatBuffer probabilities(size_t(H) * size_t(n) * size_t(keys)); // every head copied in below
            for (int head = 0; head < H; ++head) {
                const std::vector<float> p =
                    backend->probabilityTile(q, k, t.logSumExp, attention, head, 0, n, 0, keys);
                std::memcpy(probabilities.data() + size_t(head) * size_t(n) * size_t(keys), p.data(),
                            p.size() * sizeof(float));
            }
            keepProbabilities(std::move(probabilities));
        }
    } else if (m_dense) {
        FullAttentionResult r = attentionFull(q, k, v, attention);
        context = std::move(r.output);
        if (m_capture) keepProbabilities(std::move(r.probabilities));
    } else {
        // Long input: online softmax, never n×n; the capture keeps what recomputes any tile.
        TiledAttentionResult t =
            backend ? backend->tiledForward(q, k, v, attention) : attentionTiled(q, k, v, attention);
        m_finite.check(t.logSumExp, QStringLiteral("layer %1").arg(m_layer),
                       QStringLiteral("the attention scores"), m_layerTensors);
        context = std::move(t.output);
        if (m_capture)
            m_tiledLayers.push_back({std::move(q), std::move(k), std::move(t.logSumExp), attention});
    }
    checkFinite(context.values, QStringLiteral("the attention scores"));
    if (m_capture) m_capture->values.push_back(std::move(v));
    if (m_capture && m_options.keepHeadOutputs) m_capture->headOutputs.push_back(context);
    replaceHeads(context, m_options.ablations, m_layer);
    return context;
}

void LayerStep::keepProbabilities(FloatBuffer probabilities)
{
    if (m_options.takeLayerProbabilities)
        m_options.takeLayerProbabilities(m_layer, std::move(probabilities));
    else
        m_denseMaps->appendLayer(std::move(probabilities));
}

HeadTensor LayerStep::attendCopies(HeadTensor q, HeadTensor k, HeadTensor v, const LayerAttention& spec)
{
    // q [copiesIn · n, H, d], k and v [copiesIn · n, H_kv, d]: one copy in the batch's first layer (its input
    // is the unablated stream), every copy above it.
    const AblationBatch& batch = *m_options.ablationBatch;
    const bool first = m_layer == m_options.firstLayer;
    const int n = m_tokens, copies = int(batch.copies.size()),
              copiesIn = reusesHeadOutputs() ? 1 : k.tokens / n; // projectHeads gave no rows

    const bool someRows = m_layer == m_config.layers - 1 && !batch.outputRows.empty();
    const AttentionOptions attention = attentionOptions(spec);
    std::vector<int> rows = batch.outputRows;
    if (!someRows) {
        rows.resize(size_t(n));
        std::iota(rows.begin(), rows.end(), 0);
    }

    // Per input copy O [n, H, d] (all rows: the first layer's ablations replace heads by their mean over
    // every position), or O [rows, H, d] above it.
    std::vector<HeadTensor> outputs;
    if (first && batch.headOutputs) {
        outputs.push_back(*batch.headOutputs);
    } else {
        // projectQueries() may have kept the output rows' queries only: [copiesIn · rows, H, d].
        const std::vector<int>& positions = m_positions;
        std::vector<int> queryPositions = positions;
        if (m_queriesSelected)
            for (size_t r = 0; r < rows.size(); ++r)
                queryPositions[r] = positions[size_t(rows[r])];
        if (m_queriesSelected) queryPositions.resize(rows.size());
        const int queryRows = int(queryPositions.size());
        const int sequenceLength =
            spec.rotary ? *std::max_element(positions.begin(), positions.end()) + 1 : 0;
        for (int c = 0; c < copiesIn; ++c) {
            HeadTensor qc = tokenRange(q, c * queryRows, queryRows), kc = tokenRange(k, c * n, n);
            if (spec.rotary) {
                spec.rotary->apply(qc, queryPositions, sequenceLength);
                spec.rotary->apply(kc, positions, sequenceLength);
            }
            const HeadTensor vc = tokenRange(v, c * n, n);
            outputs.push_back(
                attendRows(qc, kc, vc, attention, someRows && !first ? rows : std::vector<int>{},
                           m_queriesSelected, [&](const std::vector<double>& logSumExp) {
                               m_finite.check(logSumExp, QStringLiteral("layer %1").arg(m_layer),
                                              QStringLiteral("the attention scores"), m_layerTensors);
                           }));
        }
    }

    // Copy c: its input copy's O, its heads replaced, at the output rows.
    const int outRows = int(rows.size());
    m_attendedRows = rows;
    HeadTensor o(copies * outRows, q.heads, q.dim);
    for (int c = 0; c < copies; ++c) {
        HeadTensor oc = outputs[size_t(copiesIn == 1 ? 0 : c)];
        if (first) replaceHeads(oc, batch.copies[size_t(c)], m_layer);
        if (oc.tokens != outRows) oc = tokenRows(oc, rows);
        std::copy(oc.values.begin(), oc.values.end(), o.vector(c * outRows, 0));
    }
    checkFinite(o.values, QStringLiteral("the attention scores"));

    // The stream follows: every copy's rows, from its input copy.
    m_layoutChanged = copiesIn != copies || outRows != n;
    if (m_layoutChanged) {
        m_copiesIn = copiesIn;
        m_rowsOut = rows;
        m_residual = inStreamLayout(m_residual);
    }
    return o;
}

std::vector<float> LayerStep::projectOutput(const HeadTensor& o, const QString& weight, const QString& bias,
                                            ops::WeightLayout layout)
{
    // The ablated layer slices W_O head by head (projectOutputChanges), which needs its fp32 values; every
    // other product may read the weights as stored.
    const WeightTensor w = reusesHeadOutputs() ? load(weight) : loadForProduct(weight);
    const WeightTensor b = bias.isEmpty() ? WeightTensor() : load(bias);
    const ops::LinearWeight l = linearWeight(w, &b, layout);
    if (reusesHeadOutputs()) return projectOutputChanges(o, l);
    std::vector<float> y(size_t(o.tokens) * size_t(l.out));
    ops::linear(o.values.data(), o.tokens, l, y.data(), std::nullopt, m_threads);
    if (m_capture) {
        OutputProjection projection;
        projection.store = m_weights.sharedStore();
        projection.tensorName = m_weights.name(weight);
        projection.inputMajor = layout == ops::WeightLayout::InOut;
        m_capture->outputProjections.push_back(std::move(projection));
    }
    return y;
}

bool LayerStep::projectsOutputRowQueriesOnly() const
{
    const AblationBatch* batch = m_options.ablationBatch;
    return batch && !batch->outputRows.empty() && m_layer == m_config.layers - 1 &&
           m_layer != m_options.firstLayer;
}

bool LayerStep::reusesHeadOutputs() const
{
    return m_options.ablationBatch && m_options.ablationBatch->headOutputs && m_layer == m_options.firstLayer;
}

std::vector<float> LayerStep::projectOutputChanges(const HeadTensor& o, const ops::LinearWeight& w) const
{
    // o [copies · rows, H, d]: copy c is the baseline's O_b at m_attendedRows with its heads replaced.
    const AblationBatch& batch = *m_options.ablationBatch;
    const int rows = int(m_attendedRows.size()), d = o.dim, out = w.out;
    const HeadTensor baseline =
        rows == m_tokens ? *batch.headOutputs : tokenRows(*batch.headOutputs, m_attendedRows);
    std::vector<float> base(size_t(rows) * size_t(out));
    ops::linear(baseline.values.data(), rows, w, base.data(), std::nullopt, m_threads);

    std::vector<float> y(size_t(o.tokens) * size_t(out)), delta(size_t(rows) * size_t(d)),
        change(size_t(rows) * size_t(out)), slice;
    for (size_t c = 0; c < batch.copies.size(); ++c) {
        float* yc = y.data() + c * size_t(rows) * size_t(out);
        std::copy(base.begin(), base.end(), yc);
        std::vector<bool> done(size_t(o.heads), false); // a head named twice is replaced once
        for (const HeadAblation& a : batch.copies[c]) {
            if (a.layer != m_layer || done[size_t(a.head)]) continue;
            const int h = a.head;
            done[size_t(h)] = true;
            for (int r = 0; r < rows; ++r) {
                const float* replaced = o.vector(int(c) * rows + r, h);
                const float* original = baseline.vector(r, h);
                for (int i = 0; i < d; ++i)
                    delta[size_t(r) * size_t(d) + size_t(i)] = replaced[i] - original[i];
            }
            // W_O,h: the weight's rows (Conv1D, [in, out]) or columns (nn.Linear, [out, in]) of head h's d
            // inputs, as a [d → out] projection without bias.
            ops::LinearWeight head{nullptr, nullptr, d, out, w.layout};
            if (w.layout == ops::WeightLayout::InOut) {
                head.weight = w.weight + qint64(h) * d * out;
            } else {
                slice.resize(size_t(out) * size_t(d));
                for (int j = 0; j < out; ++j)
                    std::copy_n(w.weight + qint64(j) * w.in + qint64(h) * d, d,
                                slice.data() + size_t(j) * size_t(d));
                head.weight = slice.data();
            }
            ops::linear(delta.data(), rows, head, change.data(), std::nullopt, m_threads);
            for (size_t i = 0; i < change.size(); ++i)
                yc[i] += change[i];
        }
    }
    return y;
}

void LayerStep::recordResidual()
{
    if (!m_capture) return;
    const int h = m_config.hidden;
    std::vector<float> norms(static_cast<size_t>(m_tokens)), maxAbs(static_cast<size_t>(m_tokens));
    const int rowsPerTask = 32;
    parallelFor((m_tokens + rowsPerTask - 1) / rowsPerTask, m_threads, [&](int task) {
        for (int t = task * rowsPerTask; t < std::min(m_tokens, (task + 1) * rowsPerTask); ++t) {
            const float* row = m_residual.data() + size_t(t) * size_t(h);
            double sum = 0;
            float largest = 0;
            for (int i = 0; i < h; ++i) {
                sum += double(row[i]) * row[i];
                largest = std::max(largest, std::abs(row[i]));
            }
            norms[size_t(t)] = float(std::sqrt(sum));
            maxAbs[size_t(t)] = largest;
        }
    });
    m_capture->residualNorms.push_back(std::move(norms));
    m_capture->residualMaxAbs.push_back(std::move(maxAbs));
    if (m_options.keepResiduals) m_capture->residuals.push_back(m_residual);
}

void LayerStep::finish()
{
    if (!m_capture) return;
    if (!m_lessonReproducesP) {
        m_capture->queries.clear();
        m_capture->keys.clear();
        m_capture->scales.clear();
    }
    if (m_dense)
        m_capture->maps = std::move(m_denseMaps);
    else
        m_capture->maps = std::make_shared<TiledAttentionMaps>(std::move(m_tiledLayers));
}

} // namespace attnscope
