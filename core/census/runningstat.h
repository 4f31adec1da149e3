#pragma once

#include <cmath>
#include <cstdint>

namespace attnscope {

// Mean and spread of a stream of numbers without keeping them (Welford 1962): count, mean and the sum of
// squared deviations m2, updated one value at a time; exact to float rounding in any order of magnitude.
struct RunningStat
{
    std::int64_t count = 0;
    double mean = 0;
    double m2 = 0;

    void add(double x)
    {
        ++count;
        const double delta = x - mean;
        mean += delta / double(count);
        m2 += delta * (x - mean);
    }
    // Sample standard deviation (n - 1); 0 for fewer than two values.
    double stddev() const { return count > 1 ? std::sqrt(m2 / double(count - 1)) : 0.0; }
};

} // namespace attnscope
