#pragma once

// y (rows × width) = x (rows × in) · Wᵀ for W [width, in] in one of ggml's quantized types: the AVX2
// level's unpackedWeightProduct (cpukernels.h), in 8-wide ymm registers only (the avx2 module must run
// where AVX-512 does not; tst_cpu_isa). Included by cpukernelvariant.cpp only (inside its anonymous
// namespace); compiled where the level has AVX2 and FMA but no AVX-512 weightProduct (weightproduct.h).
//
// Before, the level unpacked 64 rows of W at a time and multiplied them by Eigen's GEMM, about a third of
// the core's FMA peak (bench_quantproduct, docs/benchmarks.md). This is weightproduct.h's shape on 16 ymm:
//   for each block of x's rows (up to 16 MiB packed, at least 64 rows): pack them as tiles of kMr = 8 rows,
//   k-major per block of kKc inputs (inputtiles.h)
//     for each group of 8 panels (192 outputs), for each block of kKc = 256 inputs, for each panel of
//     kNr = 24 outputs in the group:
//       unpack the panel's rows 8 at a time into an L1 staging block (unpackWeightRows: the reader's values
//       to the bit), transpose them 8 × 8 into panel[k][c] (24 KiB, stays in L1)
//       for each half of each row tile: C (4 rows × 24 outputs, 12 ymm) += x · panel, each step three loads
//       of W and four broadcasts of x for 12 FMAs (12 + 3 + 1 = 16 registers), summed in partials of 32
//       inputs as weightproduct.h's multiplyTile does (the same accuracy argument); C goes to y (first k
//       block) or is added to it.
// The group keeps a k block's slice of x (rows × 256) in L2 over 8 panels: one panel at a time over all
// k blocks streamed the whole packed x once per 24 outputs, and W [2,048, 8,192] at 512 tokens ran at
// 0.92-0.98x of Eigen's (bench_quantproduct; 1.07-1.18x with the groups, docs/benchmarks.md).
// Edges: rows past the last tile are zero in the packed copy and not stored; a last panel of fewer than 24
// outputs has zero rows in the panel and is stored with vmaskmovps.

#if defined(__AVX2__) && defined(__FMA__) && !defined(ATTNSCOPE_WEIGHT_PRODUCT)
#define ATTNSCOPE_QUANTIZED_PRODUCT_AVX2 1

#include "kernels/cpukernels.h"
#include "kernels/inputtiles.h"
#include "kernels/weightblocks.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <immintrin.h>
#include <vector>

namespace attnscope::kernels {
namespace { // the including module's own (cpukernels.h: nothing else is exported)
namespace ymm {

constexpr int kNv = 3;             // ymm vectors of outputs per panel
constexpr int kNr = 8 * kNv;       // outputs per panel
constexpr int kHalfRows = kMr / 2; // rows per register tile: 4 × 3 accumulators
// Inputs per block (whole K-blocks): the panel (24 KiB) and a staging block (8 KiB) in L1.
constexpr int kKc = 256;
constexpr int kSub = 32; // inputs summed in registers from zero before the partial is added
// x packed at once: up to 512 × 8,192, so that W is unpacked once per product at 512 tokens.
constexpr size_t kPackedInputBytes = size_t(16) << 20;
constexpr int kMinRows = 8 * kMr;
constexpr int kGroupOutputs = 8 * kNr; // panels whose k blocks are taken in turn (see above)

// Outputs [0, count) (count ≤ kNr) × inputs [k0, k0 + kc) (whole blocks) of the quantized W whose first row
// is at `rows` into panel[k][c], zero for c ≥ count.
inline void packQuantizedPanel(const unsigned char* rows, int type, int in, int count, int k0, int kc,
                               float* panel)
{
    alignas(32) float staged[8 * kKc];
    const long long rowBytes = weightSpanBytes(type, in);
    for (int c0 = 0; c0 < kNr; c0 += 8) {
        const int rowsHere = std::clamp(count - c0, 0, 8);
        if (rowsHere > 0) unpackWeightRows(rows + rowBytes * c0, type, in, rowsHere, k0, kc, staged, kKc);
        for (int i = rowsHere; i < 8; ++i)
            std::memset(staged + i * kKc, 0, sizeof(float) * size_t(kc));
        for (int k = 0; k < kc; k += 8) { // kc: whole blocks of 32 or 256
            __m256 r[8];
            for (int i = 0; i < 8; ++i)
                r[i] = _mm256_load_ps(staged + i * kKc + k);
            transpose8x8(r);
            for (int j = 0; j < 8; ++j)
                _mm256_store_ps(panel + std::ptrdiff_t(k + j) * kNr + c0, r[j]);
        }
    }
}

// The lanes of outputs [8v, 8v + 8) that exist, as vmaskmovps's mask.
inline __m256i lanesBelow(int count, int v)
{
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(count - 8 * v), lane);
}

// C (MR × 8·NV) = tile · panel over kc inputs (tile: the packed tile's first row of this half; rows kMr
// floats apart), stored into y's MR rows and `count` columns (accumulate: added to what y holds).
template <int MR, int NV>
void multiplyHalfTile(const float* tile, const float* panel, int kc, float* y, int yStride, int count,
                      bool accumulate)
{
    __m256 c[MR][NV];
    alignas(32) float partial[MR][8 * NV];
    for (int k0 = 0; k0 < kc; k0 += kSub) {
#pragma GCC unroll 4
        for (int r = 0; r < MR; ++r)
#pragma GCC unroll 3
            for (int v = 0; v < NV; ++v)
                c[r][v] = _mm256_setzero_ps();
        const int k1 = std::min(kc, k0 + kSub);
        for (int k = k0; k < k1; ++k) {
            __m256 b[NV];
#pragma GCC unroll 3
            for (int v = 0; v < NV; ++v)
                b[v] = _mm256_load_ps(panel + std::ptrdiff_t(k) * kNr + 8 * v);
            const float* a = tile + std::ptrdiff_t(k) * kMr;
            _mm_prefetch(reinterpret_cast<const char*>(a + 16 * kMr), _MM_HINT_T0); // x streams from L2
#pragma GCC unroll 4
            for (int r = 0; r < MR; ++r) {
                const __m256 ar = _mm256_broadcast_ss(a + r);
#pragma GCC unroll 3
                for (int v = 0; v < NV; ++v)
                    c[r][v] = _mm256_fmadd_ps(ar, b[v], c[r][v]);
            }
        }
        if (k0 == 0 && k1 == kc) break; // one partial: it is the sum
#pragma GCC unroll 4
        for (int r = 0; r < MR; ++r)
#pragma GCC unroll 3
            for (int v = 0; v < NV; ++v) {
                if (k0 > 0) c[r][v] = _mm256_add_ps(_mm256_load_ps(&partial[r][8 * v]), c[r][v]);
                _mm256_store_ps(&partial[r][8 * v], c[r][v]);
            }
    }
#pragma GCC unroll 4
    for (int r = 0; r < MR; ++r) {
        float* out = y + std::ptrdiff_t(r) * yStride;
#pragma GCC unroll 3
        for (int v = 0; v < NV; ++v) {
            if (8 * v + 8 <= count) {
                if (accumulate) c[r][v] = _mm256_add_ps(c[r][v], _mm256_loadu_ps(out + 8 * v));
                _mm256_storeu_ps(out + 8 * v, c[r][v]);
            } else {
                const __m256i mask = lanesBelow(count, v);
                if (accumulate) c[r][v] = _mm256_add_ps(c[r][v], _mm256_maskload_ps(out + 8 * v, mask));
                _mm256_maskstore_ps(out + 8 * v, mask, c[r][v]);
            }
        }
    }
}

using HalfTileKernel = void (*)(const float*, const float*, int, float*, int, int, bool);

// The kernel for `rows` (1..4) rows and a panel of `count` outputs (a narrower last panel skips the
// vectors past it).
inline HalfTileKernel halfTileKernel(int rows, int count)
{
    static constexpr HalfTileKernel kernels[kHalfRows][kNv] = {
        {&multiplyHalfTile<1, 1>, &multiplyHalfTile<1, 2>, &multiplyHalfTile<1, 3>},
        {&multiplyHalfTile<2, 1>, &multiplyHalfTile<2, 2>, &multiplyHalfTile<2, 3>},
        {&multiplyHalfTile<3, 1>, &multiplyHalfTile<3, 2>, &multiplyHalfTile<3, 3>},
        {&multiplyHalfTile<4, 1>, &multiplyHalfTile<4, 2>, &multiplyHalfTile<4, 3>},
    };
    return kernels[rows - 1][(count + 7) / 8 - 1];
}

inline size_t paddedRows(int rows)
{
    return size_t((rows + kMr - 1) / kMr) * kMr;
}

// CpuKernels::unpackedWeightProduct at this level (type quantized, `in` whole blocks).
inline void quantizedProduct(const float* x, int rows, int in, int xStride, const void* w, int type, float* y,
                             int width, int yStride)
{
    if (rows <= 0 || width <= 0) return;
    if (in <= 0) {
        for (int r = 0; r < rows; ++r)
            std::memset(y + std::ptrdiff_t(r) * yStride, 0, sizeof(float) * size_t(width));
        return;
    }
    // Kept between calls, one per thread: a fresh buffer each call would be faulted in anew.
    thread_local std::vector<float> packed;
    alignas(32) static thread_local float panel[kKc * kNr];
    const auto* base = static_cast<const unsigned char*>(w);
    const long long rowBytes = weightSpanBytes(type, in);
    const int byBytes = int(kPackedInputBytes / (size_t(in) * sizeof(float))) / kMr * kMr;
    const int blockRows = std::min(rows, std::max(kMinRows, byBytes));
    packed.resize(std::max(packed.size(), paddedRows(blockRows) * size_t(in)));
    for (int r0 = 0; r0 < rows; r0 += blockRows) {
        const int rowCount = std::min(blockRows, rows - r0);
        const size_t padded = paddedRows(rowCount);
        const float* xBlock = x + std::ptrdiff_t(r0) * xStride;
        // For every k block k0: the tiles of all rows at packed + padded·k0, tile t at + t·kMr·kc.
        for (int k0 = 0; k0 < in; k0 += kKc)
            packInputTiles(xBlock, xStride, 0, rowCount, k0, std::min(kKc, in - k0),
                           packed.data() + padded * size_t(k0));
        float* yBlock = y + std::ptrdiff_t(r0) * yStride;
        for (int g0 = 0; g0 < width; g0 += kGroupOutputs) {
            const int g1 = std::min(width, g0 + kGroupOutputs);
            for (int k0 = 0; k0 < in; k0 += kKc)
                for (int c0 = g0; c0 < g1; c0 += kNr) {
                    const int count = std::min(kNr, width - c0);
                    const int kc = std::min(kKc, in - k0);
                    packQuantizedPanel(base + rowBytes * c0, type, in, count, k0, kc, panel);
                    const float* blockTiles = packed.data() + padded * size_t(k0);
                    for (int t0 = 0; t0 < rowCount; t0 += kMr) {
                        const float* tile = blockTiles + std::ptrdiff_t(t0) * kc;
                        float* out = yBlock + std::ptrdiff_t(t0) * yStride + c0;
                        const int here = std::min(kMr, rowCount - t0);
                        halfTileKernel(std::min(here, kHalfRows), count)(tile, panel, kc, out, yStride, count,
                                                                         k0 > 0);
                        if (here > kHalfRows)
                            halfTileKernel(here - kHalfRows, count)(tile + kHalfRows, panel, kc,
                                                                    out + std::ptrdiff_t(kHalfRows) * yStride,
                                                                    yStride, count, k0 > 0);
                    }
                }
        }
    }
}

} // namespace ymm
} // namespace
} // namespace attnscope::kernels

#endif
