#include "census/headmap.h"

#include <Eigen/Dense>
#include <cmath>

namespace attnscope {

std::vector<HeadMapPoint> censusHeadMap(const CensusAccumulator& sums,
                                        const std::vector<CensusMetric>& metrics)
{
    const int count = sums.layers() * sums.heads();
    std::vector<HeadMapPoint> points(size_t(std::max(0, count)));
    for (int i = 0; i < count; ++i) {
        points[size_t(i)].layer = i / sums.heads();
        points[size_t(i)].head = i % sums.heads();
    }
    if (count < 2) return points;
    // X is heads × kept metrics, standardised per column.
    std::vector<Eigen::VectorXd> columns;
    for (CensusMetric metric : metrics) {
        Eigen::VectorXd column(count);
        for (int i = 0; i < count; ++i)
            column[i] = sums.head(i / sums.heads(), i % sums.heads(), metric).mean;
        column.array() -= column.mean();
        const double sd = std::sqrt(column.squaredNorm() / (count - 1));
        if (sd < 1e-12) continue;
        columns.push_back(column / sd);
    }
    if (columns.empty()) return points;
    Eigen::MatrixXd x(count, Eigen::Index(columns.size()));
    for (size_t c = 0; c < columns.size(); ++c)
        x.col(Eigen::Index(c)) = columns[c];
    const Eigen::MatrixXd covariance = x.transpose() * x / double(count - 1);
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(covariance);
    // Eigenvalues ascending: the last two columns are the first two components. Sign fixed so that the
    // largest loading of each component is positive (the map does not flip between runs).
    const Eigen::Index k = covariance.rows();
    for (int component = 0; component < std::min<int>(2, int(k)); ++component) {
        Eigen::VectorXd axis = solver.eigenvectors().col(k - 1 - component);
        Eigen::Index largest = 0;
        axis.cwiseAbs().maxCoeff(&largest);
        if (axis[largest] < 0) axis = -axis;
        const Eigen::VectorXd scores = x * axis;
        for (int i = 0; i < count; ++i)
            (component == 0 ? points[size_t(i)].x : points[size_t(i)].y) = scores[i];
    }
    return points;
}

} // namespace attnscope
