#pragma once

// x packed as tiles of kMr = 8 rows, k-major (tile[k][r]), for the kernels' own products: the AVX-512
// weightProduct (kernels/weightproduct.h) and the AVX2 quantized product (kernels/weightproductavx2.h).
// Included by cpukernelvariant.cpp only (inside its anonymous namespace), so compiled once per level; only
// where the level has AVX2.

#if defined(__AVX2__)

#include <cstddef>
#include <immintrin.h>

namespace attnscope::kernels {
namespace { // the including module's own (cpukernels.h: nothing else is exported)

// Rows per tile of packed x.
constexpr int kMr = 8;

// In place: r[j] becomes column j of the 8×8 matrix whose rows were r[0..7].
__attribute__((always_inline)) inline void transpose8x8(__m256 r[8])
{
    __m256 t[8], u[8];
    for (int i = 0; i < 4; ++i) { // 2×2 blocks of single floats
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int h = 0; h < 2; ++h) { // 4×4 blocks within each 128-bit lane, rows 4h..4h+3
        const __m256 a = t[4 * h], b = t[4 * h + 1], c = t[4 * h + 2], d = t[4 * h + 3];
        u[4 * h] = _mm256_shuffle_ps(a, c, 0x44);     // columns 0 (lane 0) and 4 (lane 1)
        u[4 * h + 1] = _mm256_shuffle_ps(a, c, 0xee); // 1 and 5
        u[4 * h + 2] = _mm256_shuffle_ps(b, d, 0x44); // 2 and 6
        u[4 * h + 3] = _mm256_shuffle_ps(b, d, 0xee); // 3 and 7
    }
    for (int j = 0; j < 4; ++j) { // rows 0..3 from u[j], rows 4..7 from u[4 + j]
        r[j] = _mm256_permute2f128_ps(u[j], u[4 + j], 0x20);
        r[4 + j] = _mm256_permute2f128_ps(u[j], u[4 + j], 0x31);
    }
}

// Packs rows [r0, r0 + rowCount) × inputs [k0, k0 + kc) of x as tiles of kMr rows, tile[k][r], the rows past
// rowCount zero. Whole tiles go 8 inputs at a time through an 8 × 8 transpose in registers: one float at a
// time, with each row's stores kMr floats apart, it took 4.6% of a BERT-base pass (perf).
inline void packInputTiles(const float* x, int xStride, int r0, int rowCount, int k0, int kc, float* tiles)
{
    static_assert(kMr == 8, "the transpose is 8 × 8");
    for (int t0 = 0; t0 < rowCount; t0 += kMr) {
        float* tile = tiles + std::ptrdiff_t(t0) * kc;
        const int here = rowCount - t0 < kMr ? rowCount - t0 : kMr;
        if (here == kMr) {
            const float* first = x + std::ptrdiff_t(r0 + t0) * xStride + k0;
            int k = 0;
            for (; k + 8 <= kc; k += 8) {
                __m256 r[8];
                for (int i = 0; i < 8; ++i)
                    r[i] = _mm256_loadu_ps(first + std::ptrdiff_t(i) * xStride + k);
                transpose8x8(r);
                for (int j = 0; j < 8; ++j)
                    _mm256_storeu_ps(tile + std::ptrdiff_t(k + j) * kMr, r[j]);
            }
            for (; k < kc; ++k)
                for (int i = 0; i < kMr; ++i)
                    tile[std::ptrdiff_t(k) * kMr + i] = first[std::ptrdiff_t(i) * xStride + k];
            continue;
        }
        for (int r = 0; r < kMr; ++r) {
            if (r < here) {
                const float* row = x + std::ptrdiff_t(r0 + t0 + r) * xStride + k0;
                for (int k = 0; k < kc; ++k)
                    tile[std::ptrdiff_t(k) * kMr + r] = row[k];
            } else {
                for (int k = 0; k < kc; ++k)
                    tile[std::ptrdiff_t(k) * kMr + r] = 0.0f;
            }
        }
    }
}

} // namespace
} // namespace attnscope::kernels

#endif
