#include "util/nonfinite.h"

#include "util/parallel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace attnscope {

namespace {

constexpr std::uint32_t kExponentBits = 0x7f800000u; // all ones: Inf (mantissa 0) or NaN

// Whether any of values[0, count) is non-finite: branch-free over the block so it vectorises.
bool anyNonFinite(const float* values, size_t count)
{
    std::uint32_t found = 0;
    for (size_t i = 0; i < count; ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, values + i, sizeof bits);
        found |= std::uint32_t((bits & kExponentBits) == kExponentBits);
    }
    return found != 0;
}

} // namespace

namespace {

std::optional<size_t> firstNonFiniteSerial(const float* values, size_t count)
{
    constexpr size_t kBlock = 4096;
    for (size_t begin = 0; begin < count; begin += kBlock) {
        const size_t length = std::min(kBlock, count - begin);
        if (!anyNonFinite(values + begin, length)) continue;
        for (size_t i = begin; i < begin + length; ++i)
            if (!std::isfinite(values[i])) return i;
    }
    return std::nullopt;
}

} // namespace

std::optional<size_t> firstNonFinite(const float* values, size_t count, int threads)
{
    // A forward pass checks every layer's Q, K, V, attention output and hidden states (megabytes each at
    // 512 tokens) between its parallel products: on one thread that was 1.6% of a BERT-base pass with the
    // other core idle. Large arrays are scanned in parts on the pass's threads; the first part with a hit
    // decides.
    constexpr size_t kPart = size_t(1) << 16;
    if (threads == 1 || count < 4 * kPart) return firstNonFiniteSerial(values, count);
    const int parts = int((count + kPart - 1) / kPart);
    std::vector<std::optional<size_t>> found(static_cast<size_t>(parts));
    parallelFor(parts, threads, [&](int part) {
        const size_t begin = size_t(part) * kPart;
        if (const std::optional<size_t> hit =
                firstNonFiniteSerial(values + begin, std::min(kPart, count - begin)))
            found[size_t(part)] = begin + *hit;
    });
    for (const std::optional<size_t>& hit : found)
        if (hit) return hit;
    return std::nullopt;
}

std::optional<size_t> firstNonFinite(const double* values, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        if (!std::isfinite(values[i])) return i;
    return std::nullopt;
}

QString nonFiniteName(double value)
{
    if (std::isnan(value)) return QStringLiteral("NaN");
    if (std::isinf(value)) return value > 0 ? QStringLiteral("+Inf") : QStringLiteral("-Inf");
    return QStringLiteral("finite");
}

} // namespace attnscope
