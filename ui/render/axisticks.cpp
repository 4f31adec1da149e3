#include "render/axisticks.h"

#include <cmath>

namespace attnscope {

namespace {

bool fits(double length, int steps, double labelExtent)
{
    return steps > 0 && length / steps >= labelExtent * 1.25;
}

} // namespace

std::vector<double> linearAxisTicks(double lo, double hi, double length, double labelExtent, int most)
{
    if (!(length > 0) || !(labelExtent > 0) || !(hi > lo)) return {};
    for (int steps = std::max(1, most - 1); steps >= 1; --steps) {
        if ((most - 1) % steps != 0 || !fits(length, steps, labelExtent)) continue;
        std::vector<double> ticks;
        for (int i = 0; i <= steps; ++i)
            ticks.push_back(lo + (hi - lo) * i / steps);
        return ticks;
    }
    return {hi};
}

std::vector<double> decadeAxisTicks(double lo, double hi, double length, double labelExtent)
{
    if (!(length > 0) || !(labelExtent > 0) || !(lo > 0) || !(hi > lo)) return {};
    const int decades = int(std::lround(std::log10(hi / lo)));
    for (int every = 1; every <= decades; ++every) {
        // The ticks are lo·10^(k·every); their spacing is every / decades of the axis.
        if (length * every / decades < labelExtent * 1.25) continue;
        std::vector<double> ticks;
        for (int d = 0; d <= decades; d += every)
            ticks.push_back(lo * std::pow(10.0, d));
        return ticks;
    }
    return {hi};
}

} // namespace attnscope
