#pragma once

#include <vector>

namespace attnscope {

// Which labelled ticks an axis gets, from the room it has: every label needs `labelExtent` pixels along the
// axis (its text height on a vertical axis) and a quarter of that again as a gap, so labels never touch or
// overlap; with less room an axis gets fewer ticks, down to one.

// lo .. hi in `most` − 1 equal steps (quarters for 5, fifths for 6) when they fit in `length` pixels, else
// in the largest divisor of that count that fits (halves, then the two ends), else hi alone.
std::vector<double> linearAxisTicks(double lo, double hi, double length, double labelExtent, int most = 5);

// The decades from lo to hi (both powers of ten, lo < hi): every one when they fit, else every k-th from lo
// with the smallest k that fits; hi alone when not even lo and hi fit.
std::vector<double> decadeAxisTicks(double lo, double hi, double length, double labelExtent);

} // namespace attnscope
