#include "analysis/headablation.h"

#include "model/modelerror.h"
#include "model/transformermodel.h"

#include <QDir>
#include <QStringList>
#include <algorithm>
#include <cmath>

namespace attnscope {

double klDivergence(const std::vector<double>& p, const std::vector<double>& q)
{
    double kl = 0;
    for (size_t i = 0; i < p.size() && i < q.size(); ++i)
        if (p[i] > 0) kl += p[i] * (std::log(p[i]) - std::log(std::max(q[i], 1e-300)));
    return kl;
}

AblationStudy::AblationStudy(const TransformerModel& model, std::vector<int> ids, std::vector<int> typeIds,
                             AblationStudyOptions options)
    : m_model(model), m_ids(std::move(ids)), m_typeIds(std::move(typeIds)), m_options(options)
{
    RunOptions run;
    run.backend = options.backend;
    run.threads = options.threads;
    run.cancel = options.cancel;
    run.keepResiduals = true;
    run.keepHeadOutputs = true;
    run.keepDistributions = true;
    run.predictTopK = options.topK;
    AttentionCapture baseline = m_model.run(m_ids, m_typeIds, run);
    if (baseline.distributions.empty())
        throw ModelError(QDir::toNativeSeparators(m_model.folder()),
                         QStringLiteral("nothing to ablate against: ") +
                             predictionGapMessage(baseline.predictionGap));
    m_residuals = std::move(baseline.residuals);
    m_headOutputs = std::move(baseline.headOutputs);
    m_positions = std::move(baseline.scoredPositions);
    m_distributions = std::move(baseline.distributions);
    m_originalTop = std::move(baseline.predictions);
    // What every effect compares against, computed once rather than once per ablated pass.
    for (const std::vector<double>& p : m_distributions) {
        std::vector<double> logP(p.size(), 0.0);
        for (size_t i = 0; i < p.size(); ++i)
            if (p[i] > 0) logP[i] = std::log(p[i]);
        m_logDistributions.push_back(std::move(logP));
        m_topIds.push_back(size_t(std::max_element(p.begin(), p.end()) - p.begin()));
    }
}

int AblationStudy::layers() const
{
    return m_model.config().layers;
}

int AblationStudy::heads() const
{
    return m_model.config().heads;
}

AblationEffect AblationStudy::ablate(const std::vector<HeadAblation>& heads) const
{
    RunOptions run;
    run.backend = m_options.backend;
    run.threads = m_options.threads;
    run.cancel = m_options.cancel;
    run.keepDistributions = true;
    run.predictTopK = m_options.topK;
    run.ablations = heads;
    int first = layers();
    for (const HeadAblation& a : heads)
        first = std::min(first, a.layer);
    // Layers below the lowest ablated one compute what the baseline did: start there from its stream.
    if (!heads.empty() && first > 0 && first < int(m_residuals.size())) {
        run.firstLayer = first;
        run.startResidual = &m_residuals[size_t(first)];
    }
    AttentionCapture ablated = m_model.run(m_ids, m_typeIds, run);
    return effectOf(heads, ablated.distributions, nullptr, std::move(ablated.predictions));
}

AblationEffect AblationStudy::effectOf(std::vector<HeadAblation> heads,
                                       const std::vector<std::vector<double>>& distributions,
                                       const std::vector<std::vector<double>>* logDistributions,
                                       std::vector<Prediction> top) const
{
    AblationEffect effect;
    effect.heads = std::move(heads);
    constexpr double kLogFloor = -690.7755278982137; // log 1e-300: klDivergence()'s floor for q
    for (size_t r = 0; r < m_positions.size() && r < distributions.size(); ++r) {
        const std::vector<double>& p = m_distributions[r];
        const std::vector<double>& logP = m_logDistributions[r];
        const std::vector<double>& q = distributions[r];
        // KL(p ‖ q) as klDivergence() gives it, with log p kept from the baseline and log q from the logits
        // when the pass has them (no log per entry).
        const std::vector<double>* logQ =
            logDistributions && r < logDistributions->size() ? &(*logDistributions)[r] : nullptr;
        double kl = 0;
        for (size_t i = 0; i < p.size() && i < q.size(); ++i)
            if (p[i] > 0)
                kl += p[i] *
                      (logP[i] - (logQ ? std::max((*logQ)[i], kLogFloor) : std::log(std::max(q[i], 1e-300))));
        effect.kl += kl;
        const size_t topId = m_topIds[r];
        effect.topProbDelta.push_back(q[topId] - p[topId]);
    }
    effect.top = std::move(top);
    return effect;
}

AblationScan AblationStudy::scan(AblationMode mode, const std::function<void(int, int)>& progress,
                                 ScanMethod method) const
{
    AblationScan result;
    result.mode = mode;
    result.layers = layers();
    result.heads = heads();
    // Every layer runs many times: F16/BF16 weights converted once, not once a pass (the budget bounds the
    // copies of a large model; their values are a fresh conversion's either way).
    const auto keepWeights = m_model.keepConvertedWeights(qint64(256) << 20);
    if (method == ScanMethod::Batched) {
        scanBatched(result, progress);
        return result;
    }
    const int total = result.layers * result.heads;
    for (int l = 0; l < result.layers; ++l)
        for (int h = 0; h < result.heads; ++h) {
            result.effects.push_back(ablate({HeadAblation{l, h, mode}}));
            if (progress) progress(int(result.effects.size()), total);
        }
    return result;
}

void AblationStudy::scanBatched(AblationScan& result, const std::function<void(int, int)>& progress) const
{
    const int n = int(m_ids.size()), total = result.layers * result.heads;
    const size_t m = m_positions.size(), vocab = size_t(m_model.config().vocabSize);
    // Rows per batched pass: the heads of a layer at once on short inputs; fewer copies per pass on long
    // ones, so the MLP's activations stay about [kRowsPerPass, intermediate].
    constexpr int kRowsPerPass = 4096;
    const int copiesPerPass = std::max(1, kRowsPerPass / std::max(1, n));
    // The copies' final hidden states wait for one LM-head product over many batches (its weights read once
    // for all of them, not once a batch), as long as their logits stay within options.scanLogitsHeld.
    const size_t copiesPerScoring =
        std::max<size_t>(1, m_options.scanLogitsHeld / std::max<size_t>(1, m * vocab));
    std::vector<std::vector<HeadAblation>> waiting;
    std::vector<float> waitingRows;
    const auto scoreWaiting = [&] {
        if (waiting.empty()) return;
        const std::vector<float> logits = m_model.outputLogits(waitingRows, m_options.threads);
        for (size_t c = 0; c < waiting.size(); ++c)
            result.effects.push_back(effectOfLogits(std::move(waiting[c]), logits.data() + c * m * vocab));
        waiting.clear();
        waitingRows.clear();
    };
    int done = 0;
    for (int l = 0; l < result.layers; ++l)
        for (int first = 0; first < result.heads; first += copiesPerPass) {
            AblationBatch batch;
            for (int h = first; h < std::min(result.heads, first + copiesPerPass); ++h)
                batch.copies.push_back({HeadAblation{l, h, result.mode}});
            batch.headOutputs = size_t(l) < m_headOutputs.size() ? &m_headOutputs[size_t(l)] : nullptr;
            batch.outputRows = m_positions;
            RunOptions run;
            run.threads = m_options.threads;
            run.cancel = m_options.cancel;
            run.firstLayer = l;
            if (l > 0) run.startResidual = &m_residuals[size_t(l)];
            const std::vector<float> rows = m_model.ablatedHiddenStates(m_ids, m_typeIds, batch, run);
            if (waiting.size() + batch.copies.size() > copiesPerScoring) scoreWaiting();
            waitingRows.insert(waitingRows.end(), rows.begin(), rows.end());
            for (std::vector<HeadAblation>& copy : batch.copies)
                waiting.push_back(std::move(copy));
            done += int(batch.copies.size());
            if (done == total) scoreWaiting();
            if (progress) progress(done, total);
        }
    scoreWaiting();
}

AblationEffect AblationStudy::effectOfLogits(std::vector<HeadAblation> heads, const float* logits) const
{
    // The distribution q = softmax(z) per scored position, as the forward pass scores it
    // (TransformerModel::scoreHead: exp(z − max) / Σ, log q = (z − max) − log Σ), without building q:
    // KL(p ‖ q) = Σ p (log p − log q), q at the baseline's top token, and the top-k of z (the top-k of q).
    AblationEffect effect;
    effect.heads = std::move(heads);
    constexpr double kLogFloor = -690.7755278982137; // log 1e-300: klDivergence()'s floor for q
    const int vocab = m_model.config().vocabSize, topK = m_options.topK;
    for (size_t r = 0; r < m_positions.size(); ++r) {
        const float* z = logits + r * size_t(vocab);
        const std::vector<double>& p = m_distributions[r];
        const std::vector<double>& logP = m_logDistributions[r];
        const double maxLogit = *std::max_element(z, z + vocab);
        double sum = 0;
        for (int i = 0; i < vocab; ++i)
            sum += std::exp(double(z[i]) - maxLogit);
        const double logSum = std::log(sum);
        double kl = 0;
        for (int i = 0; i < vocab; ++i)
            if (p[size_t(i)] > 0)
                kl += p[size_t(i)] *
                      (logP[size_t(i)] - std::max((double(z[i]) - maxLogit) - logSum, kLogFloor));
        effect.kl += kl;
        const size_t topId = m_topIds[r];
        effect.topProbDelta.push_back(std::exp(double(z[topId]) - maxLogit) / sum - p[topId]);
        if (topK <= 0) continue;
        // The k largest logits, most probable first, ties to the lower id (as scoreHead ranks q).
        std::vector<int> best;
        const auto before = [z](int a, int b) { return z[a] > z[b] || (z[a] == z[b] && a < b); };
        for (int i = 0; i < vocab; ++i) {
            if (int(best.size()) == topK && !before(i, best.back())) continue;
            if (int(best.size()) == topK) best.pop_back();
            best.insert(std::upper_bound(best.begin(), best.end(), i, before), i);
        }
        Prediction prediction;
        prediction.position = m_positions[r];
        for (int id : best)
            prediction.top.push_back(
                m_model.predictedToken(id, float(std::exp(double(z[id]) - maxLogit) / sum)));
        effect.top.push_back(std::move(prediction));
    }
    return effect;
}

bool parseHeadList(const QString& text, int layers, int heads, AblationMode mode,
                   std::vector<HeadAblation>* out, QString* error)
{
    out->clear();
    const QStringList parts = text.split(QLatin1Char(','), Qt::KeepEmptyParts);
    for (const QString& raw : parts) {
        const QString part = raw.trimmed();
        const QStringList fields = part.split(QLatin1Char('.'));
        bool okLayer = false, okHead = true;
        const int layer = fields.value(0).toInt(&okLayer);
        int head = -1;
        if (fields.size() == 2) head = fields[1].toInt(&okHead);
        if (fields.size() > 2 || !okLayer || !okHead || part.isEmpty()) {
            *error = QStringLiteral(
                         "'%1' is not a head (expected LAYER.HEAD, e.g. 3.2, or LAYER for a whole layer)")
                         .arg(part);
            return false;
        }
        if (layer < 0 || layer >= layers || (fields.size() == 2 && (head < 0 || head >= heads))) {
            *error = QStringLiteral("'%1' is outside the model's layers 0..%2 and heads 0..%3")
                         .arg(part)
                         .arg(layers - 1)
                         .arg(heads - 1);
            return false;
        }
        if (head >= 0)
            out->push_back({layer, head, mode});
        else
            for (int h = 0; h < heads; ++h)
                out->push_back({layer, h, mode});
    }
    return true;
}

} // namespace attnscope
