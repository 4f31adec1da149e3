#include "analysis/rollout.h"

#include "util/operationcancelled.h"

#include <Eigen/Dense>
#include <stdexcept>

namespace attnscope {

namespace {
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
}

std::vector<double> rolloutLayerMatrix(const AttentionMaps& maps, int layer)
{
    const int n = maps.queries();
    if (maps.keys() != n)
        throw std::invalid_argument(
            "attention rollout needs square attention (queries = keys), not a cached past");
    Matrix a = Matrix::Zero(n, n);
    for (int h = 0; h < maps.heads(); ++h) {
        const std::vector<float> p = maps.matrix(layer, h);
        a += Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(p.data(),
                                                                                                     n, n)
                 .cast<double>();
    }
    a = 0.5 * a / double(maps.heads());
    a.diagonal().array() += 0.5;
    for (int i = 0; i < n; ++i) {
        const double sum = a.row(i).sum();
        if (sum > 0) a.row(i) /= sum;
    }
    return std::vector<double>(a.data(), a.data() + a.size());
}

std::vector<std::vector<double>> attentionRollout(const AttentionMaps& maps, const std::atomic<bool>* cancel)
{
    const int n = maps.queries();
    std::vector<std::vector<double>> result;
    Matrix r;
    for (int l = 0; l < maps.layers(); ++l) {
        throwIfCancelled(cancel);
        const std::vector<double> layer = rolloutLayerMatrix(maps, l);
        const Eigen::Map<const Matrix> a(layer.data(), n, n);
        if (l == 0)
            r = a;
        else
            r = (a * r).eval();
        result.emplace_back(r.data(), r.data() + r.size());
    }
    return result;
}

} // namespace attnscope
