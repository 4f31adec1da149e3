#pragma once

#include "attention/headtensor.h"

#include <array>
#include <string>
#include <vector>

namespace attnscope {

// The classroom example "kedi mindere oturdu" ("the cat sat on the cushion"): one head, d = 4,
// Q, K and V given directly so every number can be followed by hand.
struct WorkedExample
{
    std::vector<std::string> tokens{"kedi", "mindere", "oturdu"};
    std::vector<std::array<float, 4>> queries{{{3, 1, 3, 1}}, {{1, 1, 1, 5}}, {{3, 2, 3, 1}}};
    std::vector<std::array<float, 4>> keys{{{1, 0, 1, 0}}, {{0, 1, 0, 1}}, {{1, 1, 0, 0}}};
    std::vector<std::array<float, 4>> values{{{2, 0, 1, 0}}, {{0, 2, 0, 1}}, {{1, 1, 2, 2}}};

    static HeadTensor toTensor(const std::vector<std::array<float, 4>>& rows)
    {
        HeadTensor t(int(rows.size()), 1, 4);
        for (size_t i = 0; i < rows.size(); ++i)
            for (int c = 0; c < 4; ++c)
                t.at(int(i), 0, c) = rows[i][size_t(c)];
        return t;
    }
    HeadTensor q() const { return toTensor(queries); }
    HeadTensor k() const { return toTensor(keys); }
    HeadTensor v() const { return toTensor(values); }
};

} // namespace attnscope
