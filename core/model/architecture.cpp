#include "model/architecture.h"

#include "model/tensorops.h"
#include "util/parallel.h"

#include <algorithm>

namespace attnscope {

std::vector<int> Architecture::defaultPositions(const std::vector<int>& ids, int pastTokens) const
{
    std::vector<int> positions(ids.size());
    for (size_t t = 0; t < ids.size(); ++t)
        positions[t] = pastTokens + int(t);
    return positions;
}

void Architecture::finalNorm(const ModelWeights&, std::vector<float>&, int) const {}

OutputHead Architecture::nextTokenHead(const ModelWeights& weights, bool tied, const QString& embedding,
                                       const QString& lmHead)
{
    OutputHead head;
    if (tied)
        head.projection = weights.name(embedding);
    else if (weights.store().contains(lmHead))
        head.projection = lmHead;
    else
        head.missing = PredictionGap::NoLmHead;
    return head;
}

void Architecture::rmsNormRows(const ModelWeights& weights, const QString& weight, std::vector<float>& x,
                               int width, double eps, int threads, float gammaOffset)
{
    const WeightTensor g = weights.load(weight);
    ops::rmsNorm(x.data(), x.data(), int(x.size() / size_t(width)), width, g.data(), eps, threads,
                 gammaOffset);
}

void Architecture::layerNormRows(const ModelWeights& weights, const QString& weight, const QString& bias,
                                 std::vector<float>& x, int width, double eps, int threads)
{
    const WeightTensor g = weights.load(weight);
    const WeightTensor b = weights.load(bias);
    ops::layerNorm(x.data(), x.data(), int(x.size() / size_t(width)), width, g.data(), b.data(), eps,
                   threads);
}

void Architecture::addRows(const ModelWeights& weights, const QString& base, const std::vector<int>& rows,
                           std::vector<float>& x, int width, float scale)
{
    // On every core: one row at a time (a lookup, a read and a conversion each) this took ~15 ms of a
    // BERT-base pass at 512 tokens (three tables) with the other core idle.
    constexpr int kRowsPerTask = 32;
    parallelFor(int((rows.size() + kRowsPerTask - 1) / kRowsPerTask), 0, [&](int task) {
        const size_t end = std::min(rows.size(), size_t(task + 1) * kRowsPerTask);
        for (size_t t = size_t(task) * kRowsPerTask; t < end; ++t) {
            const WeightTensor row = weights.loadRows(base, rows[t], 1);
            float* out = x.data() + t * size_t(width);
            for (int i = 0; i < width; ++i)
                out[i] += scale * row.data()[i];
        }
    });
}

} // namespace attnscope
