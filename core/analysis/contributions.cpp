#include "analysis/contributions.h"

#include "util/operationcancelled.h"
#include "util/parallel.h"

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>
#include <string>

namespace attnscope {

namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Strided = Eigen::Map<const RowMajor, 0, Eigen::OuterStride<>>;

// ‖f_h(x_j)‖ of one layer's heads into out [heads][n_k]. ‖W_h v‖² = vᵀ (W_hᵀ W_h) v: the d × d Gram matrix of
// the head's W_O slice (hidden·d²/2 multiply-adds) then one d × d form per token, about 3× fewer operations
// than forming f_h(x_j) [n, hidden] at 128 tokens and d = 64, and independent of n in its larger part.
void layerValueNorms(const HeadTensor& v, const OutputProjection& projection, int heads, int hidden,
                     int threads, float* out)
{
    const int d = v.dim, n = v.tokens, kvHeads = v.heads;
    const WeightTensor weight = projection.weight();
    const qint64 inputs = qint64(heads) * d;
    parallelFor(heads, threads, [&](int h) {
        const int kv = h / (heads / kvHeads);
        // V_h [n, d]: token rows of the head's shared kv head.
        const Strided vh(v.values.data() + size_t(kv) * size_t(d), n, d,
                         Eigen::OuterStride<>(v.tokenStride()));
        Eigen::MatrixXf gram = Eigen::MatrixXf::Zero(d, d);
        if (projection.inputMajor) {
            // Conv1D W_O [H·d, hidden]: rows h·d .. h·d+d are the head's slice, W_hᵀ.
            const Strided wt(weight.data() + qint64(h) * d * hidden, d, hidden, Eigen::OuterStride<>(hidden));
            gram.selfadjointView<Eigen::Lower>().rankUpdate(wt);
        } else {
            // nn.Linear W_O [hidden, H·d]: columns h·d .. h·d+d.
            const Strided w(weight.data() + qint64(h) * d, hidden, d, Eigen::OuterStride<>(inputs));
            gram.selfadjointView<Eigen::Lower>().rankUpdate(w.transpose());
        }
        const RowMajor vg = vh * gram.selfadjointView<Eigen::Lower>(); // [n, d]
        float* row = out + size_t(h) * size_t(n);
        for (int j = 0; j < n; ++j)
            row[j] = float(std::sqrt(std::max(0.0, double(vg.row(j).dot(vh.row(j))))));
    });
}

} // namespace

ValueNorms valueNorms(const AttentionCapture& capture, const std::atomic<bool>* cancel, int threads)
{
    if (threads <= 0) threads = defaultThreadCount();
    const int layers = int(capture.values.size());
    if (layers == 0 || capture.outputProjections.size() != capture.values.size() || capture.kvHeads <= 0)
        throw std::invalid_argument("valueNorms: the capture keeps no value vectors");
    ValueNorms result;
    result.layers = layers;
    result.heads = capture.heads;
    result.keys = capture.values.front().tokens;
    result.norms.assign(size_t(layers) * size_t(result.heads) * size_t(result.keys), 0.0f);
    for (int l = 0; l < layers; ++l) {
        throwIfCancelled(cancel);
        layerValueNorms(capture.values[size_t(l)], capture.outputProjections[size_t(l)], capture.heads,
                        capture.hidden, threads,
                        result.norms.data() + size_t(l) * size_t(result.heads) * size_t(result.keys));
    }
    return result;
}

ContributionMaps::ContributionMaps(std::shared_ptr<const AttentionMaps> weights, ValueNorms norms,
                                   ContributionScale scale, const std::atomic<bool>* cancel)
    : m_weights(std::move(weights)), m_norms(std::move(norms)), m_scale(scale)
{
    if (!m_weights || m_norms.layers != m_weights->layers() || m_norms.heads != m_weights->heads() ||
        m_norms.keys != m_weights->keys())
        throw std::invalid_argument("ContributionMaps: the value norms do not fit the attention maps");
    if (m_scale != ContributionScale::Share) return;
    const int n = queries(), nk = keys();
    m_rowSums.assign(size_t(layers()) * size_t(heads()) * size_t(n), 0.0);
    const int block = 64;
    for (int l = 0; l < layers(); ++l)
        for (int h = 0; h < heads(); ++h) {
            throwIfCancelled(cancel);
            const float* norm = m_norms.row(l, h);
            double* sums = m_rowSums.data() + (size_t(l) * size_t(heads()) + size_t(h)) * size_t(n);
            for (int q0 = 0; q0 < n; q0 += block) {
                const int q1 = std::min(n, q0 + block);
                const std::vector<float> p = m_weights->tile(l, h, q0, q1, 0, nk);
                for (int i = q0; i < q1; ++i) {
                    double sum = 0;
                    const float* row = p.data() + size_t(i - q0) * size_t(nk);
                    for (int j = 0; j < nk; ++j)
                        sum += double(row[j]) * double(norm[j]);
                    sums[i] = sum;
                }
            }
        }
}

std::vector<float> ContributionMaps::tile(int layer, int head, int q0, int q1, int k0, int k1) const
{
    std::vector<float> t = m_weights->tile(layer, head, q0, q1, k0, k1);
    const float* norm = m_norms.row(layer, head);
    const int width = k1 - k0;
    for (int i = q0; i < q1; ++i) {
        float* row = t.data() + size_t(i - q0) * size_t(width);
        double scale = 1.0;
        if (m_scale == ContributionScale::Share) {
            const double sum =
                m_rowSums[(size_t(layer) * size_t(heads()) + size_t(head)) * size_t(queries()) + size_t(i)];
            scale = sum > 0 ? 1.0 / sum : 0.0;
        }
        for (int j = 0; j < width; ++j)
            row[j] = float(double(row[j]) * double(norm[k0 + j]) * scale);
    }
    return t;
}

std::shared_ptr<const ContributionMaps> contributionMaps(const AttentionCapture& capture,
                                                         ContributionScale scale,
                                                         const std::atomic<bool>* cancel, int threads)
{
    return std::make_shared<ContributionMaps>(capture.maps, valueNorms(capture, cancel, threads), scale,
                                              cancel);
}

} // namespace attnscope
