#pragma once

// Sizes computed from numbers read out of files (shapes, counts, header lengths). A hostile file can make
// any of them as large as it likes, so every product and sum is checked: an overflow gives std::nullopt,
// which the caller turns into a clear "too large" message, never a wrapped (undefined) value.

#include <QtNumeric>
#include <optional>
#include <vector>

namespace attnscope {

// a × b for a, b ≥ 0, or nullopt when either is negative or the product does not fit in qint64.
inline std::optional<qint64> checkedMul(qint64 a, qint64 b)
{
    qint64 product = 0;
    if (a < 0 || b < 0 || qMulOverflow(a, b, &product)) return std::nullopt;
    return product;
}

// a + b for a, b ≥ 0, or nullopt when either is negative or the sum does not fit in qint64.
inline std::optional<qint64> checkedAdd(qint64 a, qint64 b)
{
    qint64 sum = 0;
    if (a < 0 || b < 0 || qAddOverflow(a, b, &sum)) return std::nullopt;
    return sum;
}

// factor × the product of dims (an element count, or a byte count with factor = the element size).
template <typename Int> std::optional<qint64> checkedProduct(const std::vector<Int>& dims, qint64 factor = 1)
{
    std::optional<qint64> product = factor;
    for (Int d : dims) {
        product = checkedMul(*product, qint64(d));
        if (!product) return std::nullopt;
    }
    return product;
}

} // namespace attnscope
