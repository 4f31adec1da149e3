#include "analysis/sinkcensus.h"

#include "util/operationcancelled.h"

#include <stdexcept>

namespace attnscope {

SinkCensus sinkCensus(const AttentionMaps& maps, double epsilon, const std::atomic<bool>* cancel)
{
    const int n = maps.queries();
    if (maps.keys() != n)
        throw std::invalid_argument(
            "the sink census needs square attention (queries = keys), not a cached past");
    SinkCensus census;
    census.epsilon = epsilon;
    census.layers = maps.layers();
    census.heads = maps.heads();
    census.tokens = n;
    census.meanReceived.assign(size_t(census.layers) * size_t(census.heads) * size_t(n), 0.0);
    census.sinkScore.assign(size_t(n), 0.0);
    for (int l = 0; l < census.layers; ++l)
        for (int h = 0; h < census.heads; ++h) {
            throwIfCancelled(cancel);
            const std::vector<float> p = maps.matrix(l, h);
            double* alpha =
                census.meanReceived.data() + (size_t(l) * size_t(census.heads) + size_t(h)) * size_t(n);
            // Column sums over the rows i ≥ k, accumulated row by row (P is row-major).
            for (int i = 0; i < n; ++i)
                for (int k = 0; k <= i; ++k)
                    alpha[k] += double(p[size_t(i) * size_t(n) + size_t(k)]);
            for (int k = 0; k < n; ++k) {
                alpha[k] /= double(n - k);
                if (alpha[k] > epsilon) census.sinkScore[size_t(k)] += 1.0;
            }
        }
    const double pairs = double(census.layers) * double(census.heads);
    if (pairs > 0)
        for (double& s : census.sinkScore)
            s /= pairs;
    return census;
}

} // namespace attnscope
