#pragma once

// The check the weight-product kernel tests share: an f32 product y = x · Wᵀ against the exact sums in
// doubles, with the tolerance of f32 accumulation.

#include <QString>
#include <cmath>
#include <vector>

namespace attnscope::testing {

// "" where every y[r][c] of the block (r < rows, c < width) is within 1e-6 · √in · Σ_i |x[r][i] · w(c, i)|
// of the exact Σ_i x[r][i] · w(c, i) (f32 accumulation: rounding errors grow ~√in relative to Σ|terms|), and
// every y[r][c] past the block (width ≤ c < yStride) is still `sentinel`; else the first miss,
// "<kernel> rows 9 in 256 width 49: y[3][7] = …, exact … (tolerance …)". weight(c, i) is the input's
// weight i of output c, as the kernel should read it.
template <class Weight>
QString productMiss(const QString& kernel, const std::vector<float>& x, int rows, int in, int xStride,
                    const std::vector<float>& y, int width, int yStride, float sentinel, Weight weight)
{
    const QString where =
        QStringLiteral("%1 rows %2 in %3 width %4: ").arg(kernel).arg(rows).arg(in).arg(width);
    for (int r = 0; r < rows; ++r) {
        const float* xRow = x.data() + size_t(r) * size_t(xStride);
        for (int c = 0; c < yStride; ++c) {
            const float got = y[size_t(r) * size_t(yStride) + size_t(c)];
            if (c >= width) { // past the block: untouched
                if (got != sentinel)
                    return where + QStringLiteral("y[%1][%2] = %3 past the block, not the sentinel %4")
                                       .arg(r)
                                       .arg(c)
                                       .arg(double(got))
                                       .arg(double(sentinel));
                continue;
            }
            double exact = 0, magnitude = 0;
            for (int i = 0; i < in; ++i) {
                const double term = double(xRow[i]) * double(weight(c, i));
                exact += term;
                magnitude += std::abs(term);
            }
            const double tolerance = 1e-6 * std::sqrt(double(in)) * magnitude + 1e-30;
            if (std::abs(got - exact) > tolerance)
                return where + QStringLiteral("y[%1][%2] = %3, exact %4 (tolerance %5)")
                                   .arg(r)
                                   .arg(c)
                                   .arg(double(got), 0, 'g', 9)
                                   .arg(exact, 0, 'g', 9)
                                   .arg(tolerance);
        }
    }
    return QString();
}

} // namespace attnscope::testing
