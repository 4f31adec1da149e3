#include "lesson/dkexperiment.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace attnscope {

int ScoreHistogram::maxCount() const
{
    return counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
}

ScoreHistogram makeHistogram(const std::vector<double>& values, int bins)
{
    if (bins < 1 || bins > 1000)
        throw std::invalid_argument("a histogram needs 1 to 1000 bins");
    ScoreHistogram h;
    h.counts.assign(size_t(bins), 0);
    if (values.empty())
        return h;
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    h.low = *lo;
    h.high = *hi;
    if (h.high - h.low < 1e-12) {
        h.low -= 0.5;
        h.high += 0.5;
    }
    for (double v : values) {
        const int bin = std::clamp(int((v - h.low) / (h.high - h.low) * bins), 0, bins - 1);
        ++h.counts[size_t(bin)];
    }
    return h;
}

DkExperimentResult runDkExperiment(int dk, bool scaled, std::uint64_t seed, int queries, int keys, int bins)
{
    if (dk < 1 || dk > 4096)
        throw std::invalid_argument("d_k must be between 1 and 4096");
    if (queries < 1 || keys < 1)
        throw std::invalid_argument("the experiment needs at least one query and one key");
    std::mt19937_64 generator(seed);
    // Box–Muller on the generator's own uniform doubles: the same numbers with every standard library
    // (std::normal_distribution's algorithm is not specified).
    auto normal = [&generator]() {
        const double u1 = (double(generator() >> 11) + 0.5) * 0x1.0p-53;
        const double u2 = double(generator() >> 11) * 0x1.0p-53;
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
    };
    std::vector<double> q(size_t(queries) * size_t(dk)), k(size_t(keys) * size_t(dk));
    for (double& x : q)
        x = normal();
    for (double& x : k)
        x = normal();

    DkExperimentResult result;
    result.dk = dk;
    result.scaled = scaled;
    result.queries = queries;
    result.keys = keys;
    result.scores.resize(size_t(queries) * size_t(keys));
    const double factor = scaled ? 1.0 / std::sqrt(double(dk)) : 1.0;
    double maxSum = 0, sum = 0, sumSquares = 0;
    std::vector<double> row(static_cast<size_t>(keys));
    for (int i = 0; i < queries; ++i) {
        for (int j = 0; j < keys; ++j) {
            double dot = 0;
            for (int c = 0; c < dk; ++c)
                dot += q[size_t(i) * size_t(dk) + size_t(c)] * k[size_t(j) * size_t(dk) + size_t(c)];
            row[size_t(j)] = dot * factor;
            result.scores[size_t(i) * size_t(keys) + size_t(j)] = row[size_t(j)];
            sum += row[size_t(j)];
            sumSquares += row[size_t(j)] * row[size_t(j)];
        }
        const double rowMax = *std::max_element(row.begin(), row.end());
        double total = 0;
        for (double s : row)
            total += std::exp(s - rowMax);
        maxSum += 1.0 / total; // the largest weight is e^0 / total
    }
    const double count = double(queries) * double(keys);
    result.meanMaxWeight = maxSum / queries;
    result.scoreStdDev = std::sqrt(std::max(0.0, sumSquares / count - (sum / count) * (sum / count)));
    result.histogram = makeHistogram(result.scores, bins);
    return result;
}

} // namespace attnscope
