#pragma once

// Finding NaN and ±Inf in float data: one pass that the compiler vectorises (an exponent test on the
// bits), so checking every layer's activations costs a small fraction of computing them.

#include <QString>
#include <cstddef>
#include <optional>

namespace attnscope {

// Index of the first NaN or ±Inf in values[0, count), or nullopt when every value is finite.
// threads > 1: arrays of 256 Ki floats and more are scanned in parts on up to that many threads
// (parallelFor).
std::optional<size_t> firstNonFinite(const float* values, size_t count, int threads = 1);
std::optional<size_t> firstNonFinite(const double* values, size_t count);

// "NaN", "+Inf" or "-Inf" (what the value is; "finite" for a finite one).
QString nonFiniteName(double value);

} // namespace attnscope
