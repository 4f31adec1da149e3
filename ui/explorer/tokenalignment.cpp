#include "explorer/tokenalignment.h"

#include <algorithm>

namespace attnscope {

std::vector<std::pair<int, int>> alignTokens(const QStringList& a, const QStringList& b)
{
    const int n = a.size(), m = b.size();
    // lcs[i][j] = LCS length of a[i..] and b[j..]
    std::vector<std::vector<int>> lcs(size_t(n + 1), std::vector<int>(size_t(m + 1), 0));
    for (int i = n - 1; i >= 0; --i)
        for (int j = m - 1; j >= 0; --j)
            lcs[size_t(i)][size_t(j)] = a.at(i) == b.at(j) ? lcs[size_t(i + 1)][size_t(j + 1)] + 1
                                                           : std::max(lcs[size_t(i + 1)][size_t(j)], lcs[size_t(i)][size_t(j + 1)]);
    std::vector<std::pair<int, int>> matches;
    int i = 0, j = 0;
    while (i < n && j < m) {
        if (a.at(i) == b.at(j)) {
            matches.emplace_back(i++, j++);
        } else if (lcs[size_t(i + 1)][size_t(j)] >= lcs[size_t(i)][size_t(j + 1)]) {
            ++i;
        } else {
            ++j;
        }
    }
    // Fill equal-length gaps position by position.
    std::vector<std::pair<int, int>> out;
    int pa = 0, pb = 0;
    auto fill = [&](int ea, int eb) {
        if (ea - pa == eb - pb)
            for (int k = 0; k < ea - pa; ++k)
                out.emplace_back(pa + k, pb + k);
    };
    for (const auto& [ia, ib] : matches) {
        fill(ia, ib);
        out.emplace_back(ia, ib);
        pa = ia + 1;
        pb = ib + 1;
    }
    fill(n, m);
    return out;
}

} // namespace attnscope
