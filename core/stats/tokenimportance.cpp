#include "stats/tokenimportance.h"

#include <algorithm>

namespace attnscope {

std::vector<double> keyImportance(const float* probabilities, int queries, int keys)
{
    const int n = std::min(queries, keys);
    std::vector<double> sums(size_t(std::max(0, n)), 0.0);
    for (int i = 0; i < queries; ++i) {
        const float* row = probabilities + size_t(i) * size_t(keys);
        for (int k = 0; k <= std::min(i, n - 1); ++k)
            sums[size_t(k)] += row[k];
    }
    for (int k = 0; k < n; ++k)
        sums[size_t(k)] /= double(queries - k);
    return sums;
}

} // namespace attnscope
