#pragma once

// y (rows × width) = x (rows × in) · Wᵀ-block, reading W as the file stores it (f32, f16 or bf16) and
// converting while it packs: the AVX-512 product behind CpuKernels::weightProduct. Included by
// cpukernelvariant.cpp only (inside its anonymous namespace), so that it is compiled once per module;
// without AVX-512 it compiles to nothing and the table's pointer stays null.
//
// The shape is the usual one of a register-blocked GEMM (Goto/BLIS):
//   for each block of x's rows (up to 4 MiB packed, at least 64 rows):
//     pack them for every k as tiles of kMr = 8 rows, k-major per block of kKc inputs: tile[k][r] (r < kMr)
//     for each panel of kNr = 48 outputs, for each block of kKc inputs (k):
//       pack W's panel k-major, in f32: panel[k][c] (c < 48), transposing [out, in] storage 16×16 at a time
//       for each row tile: C (8 × 48, in 24 zmm registers) += tile · panel, each step one broadcast of x per
//       row and three loads of W for 24 FMAs, summed 16 or 32 inputs at a time into partials that are added
//       up in L1 (multiplyTile); C goes to y (first k block) or is added to it.
// The panel (kKc·48·4 = 192 KiB) stays in L2 beside the row tiles; a panel's C (rows × 48) stays in cache
// over its k blocks (k outermost, C went to memory and back every k block). Edges: rows past the last tile
// are zero in the packed copy (their results are not stored), a last panel of ≤ 16 or ≤ 32 outputs runs a
// kernel of one or two vectors (outputs past the width are zero in the panel and masked out when stored),
// and a k block shorter than kKc is simply shorter.

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#define ATTNSCOPE_WEIGHT_PRODUCT 1

#include "kernels/cpukernels.h"
#include "kernels/inputtiles.h"
#include "kernels/weightblocks.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <immintrin.h>
#include <mutex>
#include <utility>

namespace attnscope::kernels {
namespace { // this header's code is the including module's own (cpukernels.h: nothing else is exported)

// The C tile: kMr rows × kNr outputs in kMr·kNv zmm accumulators, + kNv loads of W + 1 broadcast ≤ 32 zmm.
// 8 × 48 rather than 14 × 32: 128 and 512 rows are whole tiles (14 × 32 left a 2-row tile at 128, 2.5% of
// the CPU for 1/64 of the FLOPs), and a k step is 11 loads for 24 FMAs instead of 16 for 28. (kMr = 8 is
// inputtiles.h's, shared with the AVX2 product.)
static_assert(kMr == 8);
constexpr int kNv = 3;
constexpr int kNr = 16 * kNv; // outputs per panel
// Inputs per k block. 1,024 rather than the 256 whose panel (32 KiB) fits the 48 KiB L1: the panel
// (192 KiB) now streams from L2, but C goes to y and back a quarter as often, and each of W's rows is read
// in 2 KiB runs instead of 512 B ones. Whole process, 1B shape at 128 tokens: ~5% less CPU
// (docs/benchmarks.md, perf15d).
constexpr int kKc = 1024;
// Inputs summed in registers from zero before the partial is added to the tile's sum (multiplyTile): about
// √kc, which makes the two levels' rounding errors alike (ε·√(sub/2) within a partial, ε·√(kc/(2·sub)) over
// them), at least 16 and at most 32: a flush every 16 inputs cost 2-4% of a 2,048-deep product, every 32
// nothing measurable (docs/benchmarks.md, "Sums in partials").
inline int subBlockInputs(int kc)
{
    return kc <= 256 ? 16 : 32;
}
constexpr size_t kPackedInputBytes = size_t(4) << 20; // x packed at once, for every k: up to 4 MiB
constexpr int kMinRows = 8 * kMr;                     // and at least 64 rows

// 16 consecutive weights at p, as f32.
__attribute__((always_inline)) inline __m512 loadWeights16(const void* p, int type)
{
    switch (type) {
    case kWeightBF16: // bf16 is the upper half of an f32
        return _mm512_castsi512_ps(
            _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(static_cast<const __m256i*>(p))), 16));
    case kWeightF16:
        return _mm512_cvtph_ps(_mm256_loadu_si256(static_cast<const __m256i*>(p)));
    default:
        return _mm512_loadu_ps(static_cast<const float*>(p));
    }
}

inline float loadWeight(const void* base, std::ptrdiff_t index, int type)
{
    switch (type) {
    case kWeightBF16: {
        const std::uint32_t bits = std::uint32_t(static_cast<const std::uint16_t*>(base)[index]) << 16;
        float value;
        std::memcpy(&value, &bits, sizeof value);
        return value;
    }
    case kWeightF16:
        return _cvtsh_ss(static_cast<const std::uint16_t*>(base)[index]);
    default:
        return static_cast<const float*>(base)[index];
    }
}

inline int weightBytes(int type)
{
    return type == kWeightF32 ? 4 : 2;
}

// Column j of the 16×16 matrix whose rows are r[0..15] goes to sink(j, column), in the order j = 0, 4, 8,
// 12, 1, 5, .... Handing each column over as soon as it exists (the caller stores it) keeps ~20 zmm live;
// transposing the whole block in place first made GCC spill it to the stack, and packing a bf16 panel
// took ~25% longer (a 48-output panel from L2: 0.150 against 0.116 ns per weight on this machine's Zen 4).
template <class Sink> __attribute__((always_inline)) inline void transpose16x16(__m512 r[16], Sink&& sink)
{
    __m512 t[16];
    for (int i = 0; i < 8; ++i) { // interleave pairs of rows: 2×2 blocks of single floats
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; ++i) { // pairs of pairs: 4×4 blocks within each 128-bit lane
        const __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 1]);
        const __m512d c = _mm512_castps_pd(t[4 * i + 2]), d = _mm512_castps_pd(t[4 * i + 3]);
        r[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
        r[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
        r[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
        r[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
    }
    // Now r[4i + j] holds, in each 128-bit lane L, column 4L + j of rows 4i..4i+3 (unpacklo_pd of the
    // lo-interleaves gives column 0 of the lane, unpackhi 1, of the hi ones 2, 3). Exchange 128-bit lanes
    // between the row groups: first pairs of groups (lanes 0,2 / 1,3), then within.
    for (int j = 0; j < 4; ++j) {
        const __m512 g0 = r[j], g1 = r[4 + j], g2 = r[8 + j], g3 = r[12 + j];
        const __m512 a = _mm512_shuffle_f32x4(g0, g1, 0x88); // g0.L0 g0.L2 g1.L0 g1.L2
        const __m512 b = _mm512_shuffle_f32x4(g0, g1, 0xdd); // g0.L1 g0.L3 g1.L1 g1.L3
        const __m512 c = _mm512_shuffle_f32x4(g2, g3, 0x88);
        const __m512 d = _mm512_shuffle_f32x4(g2, g3, 0xdd);
        sink(j, _mm512_shuffle_f32x4(a, c, 0x88));      // lane 0 of all four groups
        sink(4 + j, _mm512_shuffle_f32x4(b, d, 0x88));  // lane 1
        sink(8 + j, _mm512_shuffle_f32x4(a, c, 0xdd));  // lane 2
        sink(12 + j, _mm512_shuffle_f32x4(b, d, 0xdd)); // lane 3
    }
}

// Packs outputs [0, count) (count ≤ 32) × inputs [k0, k0 + kc) of the weight block into panel[k][c], zero
// for c ≥ count. outIn: W(o, k) at w[o·wStride + k]; else at w[k·wStride + o].
// A quantized type ([out, in] only) goes through packQuantizedPanel.
inline void packQuantizedPanel(const void* w, int type, int wStride, int count, int k0, int kc, float* panel);
inline void packWeightPanel(const void* w, int type, int wStride, bool outIn, int count, int k0, int kc,
                            float* panel)
{
    if (isQuantizedWeight(type)) return packQuantizedPanel(w, type, wStride, count, k0, kc, panel);
    const int bytes = weightBytes(type);
    const char* base = static_cast<const char*>(w);
    if (!outIn) {
        for (int k = 0; k < kc; ++k) {
            const char* row = base + (std::ptrdiff_t(k0 + k) * wStride) * bytes;
            float* out = panel + std::ptrdiff_t(k) * kNr;
            int c = 0;
            for (; c + 16 <= count; c += 16)
                _mm512_storeu_ps(out + c, loadWeights16(row + std::ptrdiff_t(c) * bytes, type));
            for (; c < count; ++c)
                out[c] = loadWeight(row, c, type);
            for (; c < kNr; ++c)
                out[c] = 0.0f;
        }
        return;
    }
    // [out, in]: 16 outputs × 16 inputs at a time, transposed in registers.
    for (int c0 = 0; c0 < kNr; c0 += 16) {
        const int rowsHere = count - c0; // outputs of this half that exist
        int k = 0;
        if (rowsHere >= 16 && type == kWeightBF16) {
            // bf16: 32 inputs per row at a time, moved as 16 pairs of 16-bit weights (one 32-bit lane each),
            // so one transpose serves 32 inputs; the pair's first weight (the lane's low half) becomes an f32
            // by a shift, the second by masking off the low half. Half the shuffles per weight of the f32
            // path below.
            const __m512i high = _mm512_set1_epi32(int(0xffff0000u));
            for (; k + 32 <= kc; k += 32) {
                __m512 r[16];
                for (int i = 0; i < 16; ++i)
                    r[i] = _mm512_loadu_ps(base + (std::ptrdiff_t(c0 + i) * wStride + k0 + k) * bytes);
                // Column j: inputs k + 2j and k + 2j + 1 of the 16 outputs.
                transpose16x16(r, [&](int j, __m512 column) {
                    const __m512i pair = _mm512_castps_si512(column);
                    _mm512_store_ps(panel + std::ptrdiff_t(k + 2 * j) * kNr + c0,
                                    _mm512_castsi512_ps(_mm512_slli_epi32(pair, 16)));
                    _mm512_store_ps(panel + std::ptrdiff_t(k + 2 * j + 1) * kNr + c0,
                                    _mm512_castsi512_ps(_mm512_and_si512(pair, high)));
                });
            }
        }
        if (rowsHere >= 16) {
            for (; k + 16 <= kc; k += 16) {
                __m512 r[16];
                for (int i = 0; i < 16; ++i)
                    r[i] = loadWeights16(base + (std::ptrdiff_t(c0 + i) * wStride + k0 + k) * bytes, type);
                transpose16x16(r, [&](int i, __m512 column) {
                    _mm512_store_ps(panel + std::ptrdiff_t(k + i) * kNr + c0, column);
                });
            }
        }
        for (; k < kc; ++k)
            for (int i = 0; i < 16; ++i)
                panel[std::ptrdiff_t(k) * kNr + c0 + i] =
                    i < rowsHere ? loadWeight(base, std::ptrdiff_t(c0 + i) * wStride + k0 + k, type) : 0.0f;
    }
}

// Inputs of one row unpacked at a time by packQuantizedPanel: one K-block, or 8 blocks of 32.
constexpr int kSpanInputs = 256;

// As weightblocks.h: no fused d·q + m. For these types it could not change a value (d·q has at most 24
// significant bits, so it is exact either way: a fused version passed tst_quantizedproduct too), but the
// code should not depend on that.
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")

// packQuantizedPanel for a type with chunkValues: per group of 16 outputs and span of 256 inputs, each
// row's chunk scales, then 16 chunks of 16 inputs, each unpacked for the 16 rows straight into registers
// and transposed into the panel.
template <int Type>
void packQuantizedPanelAs(const unsigned char* base, long long rowBytes, int count, int k0, int kc,
                          float* panel)
{
    alignas(64) float scale[16][16], add[16][16];
    const unsigned char* span[16];
    for (int c0 = 0; c0 < kNr; c0 += 16) {
        const int rowsHere = std::clamp(count - c0, 0, 16); // outputs of this group that exist
        for (int s0 = 0; s0 < kc; s0 += kSpanInputs) {
            const int chunks = std::min(kSpanInputs, kc - s0) / 16; // whole blocks: whole chunks
            for (int i = 0; i < rowsHere; ++i) {
                span[i] = base + rowBytes * (c0 + i) + weightSpanBytes(Type, k0 + s0);
                chunkScales<Type>(span[i], chunks, scale[i], add[i]);
            }
            for (int c = 0; c < chunks; ++c) {
                __m512 r[16];
                for (int i = 0; i < 16; ++i)
                    r[i] = i < rowsHere ? chunkValues<Type>(span[i], c, scale[i][c], add[i][c])
                                        : _mm512_setzero_ps();
                transpose16x16(r, [&](int j, __m512 column) {
                    _mm512_store_ps(panel + std::ptrdiff_t(s0 + 16 * c + j) * kNr + c0, column);
                });
            }
        }
    }
}

#pragma GCC pop_options

// packWeightPanel for a quantized type ([out, in], k0 and kc whole blocks): unpacked straight into
// registers and transposed there (packQuantizedPanelAs), or for Q2_K and Q3_K 16 rows × 256 inputs at a
// time unpacked by unpackWeightRows into an L1 staging block and transposed from it. Before, the whole
// panel (48 × 1,024 f32, 192 KiB) was unpacked into memory and then packed as f32: every weight went to L2
// and back (bench_quantproduct, docs/benchmarks.md).
inline void packQuantizedPanel(const void* w, int type, int wStride, int count, int k0, int kc, float* panel)
{
    const auto* base = static_cast<const unsigned char*>(w);
    const long long rowBytes = weightSpanBytes(type, wStride);
    switch (type) {
    case kWeightQ4_0:
        return packQuantizedPanelAs<kWeightQ4_0>(base, rowBytes, count, k0, kc, panel);
    case kWeightQ4_1:
        return packQuantizedPanelAs<kWeightQ4_1>(base, rowBytes, count, k0, kc, panel);
    case kWeightQ5_0:
        return packQuantizedPanelAs<kWeightQ5_0>(base, rowBytes, count, k0, kc, panel);
    case kWeightQ5_1:
        return packQuantizedPanelAs<kWeightQ5_1>(base, rowBytes, count, k0, kc, panel);
    case kWeightQ8_0:
        return packQuantizedPanelAs<kWeightQ8_0>(base, rowBytes, count, k0, kc, panel);
    case kWeightQ4_K:
        return packQuantizedPanelAs<kWeightQ4_K>(base, rowBytes, count, k0, kc, panel);
    case kWeightQ5_K:
        return packQuantizedPanelAs<kWeightQ5_K>(base, rowBytes, count, k0, kc, panel);
    case kWeightQ6_K:
        return packQuantizedPanelAs<kWeightQ6_K>(base, rowBytes, count, k0, kc, panel);
    default:
        break;
    }
    static_assert(!unpacksInRegisters(kWeightQ2_K) && !unpacksInRegisters(kWeightQ3_K), "the rest is staged");
    alignas(64) float staged[16 * kSpanInputs];
    for (int c0 = 0; c0 < kNr; c0 += 16) {
        const int rowsHere = std::clamp(count - c0, 0, 16);
        for (int s0 = 0; s0 < kc; s0 += kSpanInputs) {
            const int span = std::min(kSpanInputs, kc - s0); // whole blocks, so a multiple of 16
            if (rowsHere > 0)
                unpackWeightRows(base + rowBytes * c0, type, wStride, rowsHere, k0 + s0, span, staged,
                                 kSpanInputs);
            for (int i = rowsHere; i < 16; ++i)
                std::memset(staged + i * kSpanInputs, 0, sizeof(float) * size_t(span));
            for (int k = 0; k < span; k += 16) {
                __m512 r[16];
                for (int i = 0; i < 16; ++i)
                    r[i] = _mm512_load_ps(staged + i * kSpanInputs + k);
                transpose16x16(r, [&](int j, __m512 column) {
                    _mm512_store_ps(panel + std::ptrdiff_t(s0 + k + j) * kNr + c0, column);
                });
            }
        }
    }
}

// Asks for the weights packWeightPanel will read next into L2: the panel's rows are far apart in memory
// (48 streams of kc weights for [out, in]), more than the hardware prefetcher follows, and the packing
// otherwise waits on memory for a third of the product's time (perf, n = 128). Part `part` of `parts`
// of the panel's cache lines: the caller spreads them over the row tiles it computes meanwhile. Issued all
// at once (~1,500 lines: 48 rows × 2 KiB), they wait for the core's few line-fill buffers, and the loop
// that issues them took 5.1% of a Llama-3.2-1B-shape run at 128 tokens (perf; 2.4% spread out).
inline void prefetchWeightPanel(const void* w, int type, int wStride, bool outIn, int count, int k0, int kc,
                                int part = 0, int parts = 1)
{
    const char* base = static_cast<const char*>(w);
    // Lines: rows of the panel (outputs for [out, in], inputs for [in, out]) × lines per row.
    const int rowsToFetch = outIn ? count : kc;
    const int rowBytes = int(weightSpanBytes(type, outIn ? kc : count));
    const int linesPerRow = (rowBytes + 63) / 64;
    const long long lines = (long long)rowsToFetch * linesPerRow;
    const long long first = lines * part / parts, last = lines * (part + 1) / parts;
    for (long long line = first; line < last; ++line) {
        const int row = int(line / linesPerRow), offset = int(line % linesPerRow) * 64;
        const char* start = outIn ? base + weightSpanBytes(type, std::ptrdiff_t(row) * wStride + k0)
                                  : base + weightSpanBytes(type, std::ptrdiff_t(k0 + row) * wStride);
        _mm_prefetch(start + offset, _MM_HINT_T1);
    }
}

// C (MR × 16·NV) = tile · panel over kc inputs, then its rows and `masks`ed columns stored into y
// (accumulate: added to what y holds).
// MR ≤ kMr rows and NV ≤ kNv vectors of outputs are computed (the layouts stay kMr and kNr wide).
// The registers sum subBlockInputs(kc) inputs at a time from zero; each such partial is added to the tile's
// sum in `partial` (L1). One running sum over all kc inputs made every output's rounding error grow with
// the length of the sum: RMS 1.7ε of |y| at 32 inputs, 4.7ε at 256, 9.7ε at 2,048 (OpenBLAS's sgemm: 1.3ε,
// 3.4ε, 3.8ε), and the attention's error with it, amplified layer by layer (issue 35). With the partials:
// 1.3ε, 1.8ε, 2.5ε, 2.7ε at 8,192 (tst_weightproduct::sumsStayAccurateAtEveryLength).
template <int MR, int NV>
void multiplyTile(const float* tile, const float* panel, int kc, float* y, int yStride,
                  const __mmask16* masks, bool accumulate)
{
    __m512 c[MR][NV];
    alignas(64) float partial[MR][16 * NV];
    const int sub = subBlockInputs(kc);
    for (int k0 = 0; k0 < kc; k0 += sub) {
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r)
#pragma GCC unroll 3
            for (int v = 0; v < NV; ++v)
                c[r][v] = _mm512_setzero_ps();
        const int k1 = std::min(kc, k0 + sub);
        for (int k = k0; k < k1; ++k) {
            __m512 b[NV];
#pragma GCC unroll 3
            for (int v = 0; v < NV; ++v)
                b[v] = _mm512_load_ps(panel + std::ptrdiff_t(k) * kNr + 16 * v);
            const float* a = tile + std::ptrdiff_t(k) * kMr;
            _mm_prefetch(reinterpret_cast<const char*>(a + 16 * kMr), _MM_HINT_T0); // x streams from L2
#pragma GCC unroll 8
            for (int r = 0; r < MR; ++r) {
                const __m512 ar = _mm512_set1_ps(a[r]);
#pragma GCC unroll 3
                for (int v = 0; v < NV; ++v)
                    c[r][v] = _mm512_fmadd_ps(ar, b[v], c[r][v]);
            }
        }
        if (k0 == 0 && k1 == kc) break; // one partial: it is the sum
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r)
#pragma GCC unroll 3
            for (int v = 0; v < NV; ++v) {
                if (k0 > 0) c[r][v] = _mm512_add_ps(_mm512_load_ps(&partial[r][16 * v]), c[r][v]);
                _mm512_store_ps(&partial[r][16 * v], c[r][v]);
            }
    }
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
        float* out = y + std::ptrdiff_t(r) * yStride;
#pragma GCC unroll 3
        for (int v = 0; v < NV; ++v) {
            if (accumulate) c[r][v] = _mm512_add_ps(c[r][v], _mm512_maskz_loadu_ps(masks[v], out + 16 * v));
            _mm512_mask_storeu_ps(out + 16 * v, masks[v], c[r][v]);
        }
    }
}

using TileKernel = void (*)(const float*, const float*, int, float*, int, const __mmask16*, bool);
template <int NV, int... MR> constexpr TileKernel tileKernelFor(int rows, std::integer_sequence<int, MR...>)
{
    TileKernel kernels[] = {&multiplyTile<MR + 1, NV>...};
    return kernels[rows - 1];
}
// The kernel for a tile of `rows` rows and a panel of `count` outputs (a narrower last panel skips the
// vectors past it).
inline TileKernel tileKernel(int rows, int count)
{
    static_assert(kNv == 3, "one case per vector count");
    const auto sequence = std::make_integer_sequence<int, kMr>();
    return count > 32   ? tileKernelFor<3>(rows, sequence)
           : count > 16 ? tileKernelFor<2>(rows, sequence)
                        : tileKernelFor<1>(rows, sequence);
}

inline __mmask16 firstLanes(int count)
{
    return count >= 16 ? __mmask16(0xffff) : count <= 0 ? __mmask16(0) : __mmask16((1u << count) - 1);
}

// Packed-x buffers (up to 4 MiB) kept between calls: ops::linear's threads are new for every product,
// and a fresh 4 MiB allocation is a fresh mapping, its pages faulted in and cleared by the kernel each time.
struct PackBuffers
{
    static constexpr int kSlots = 4;
    std::mutex mutex;
    float* data[kSlots] = {};
    size_t bytes[kSlots] = {};
};
PackBuffers& packBuffers()
{
    static PackBuffers* buffers = new PackBuffers; // never destroyed: the module is never unloaded
    return *buffers;
}

// A buffer of at least `bytes`; bytes becomes its real size, to hand back with it.
float* takePackBuffer(size_t& bytes)
{
    PackBuffers& buffers = packBuffers();
    {
        const std::lock_guard<std::mutex> lock(buffers.mutex);
        for (int i = 0; i < PackBuffers::kSlots; ++i)
            if (buffers.data[i] && buffers.bytes[i] >= bytes) {
                float* found = buffers.data[i];
                buffers.data[i] = nullptr;
                bytes = buffers.bytes[i];
                return found;
            }
    }
    bytes = (bytes + 63) / 64 * 64;
    void* fresh = std::aligned_alloc(64, bytes);
    if (!fresh) std::abort(); // at most a few MiB
    return static_cast<float*>(fresh);
}

void giveBackPackBuffer(float* data, size_t bytes)
{
    PackBuffers& buffers = packBuffers();
    {
        const std::lock_guard<std::mutex> lock(buffers.mutex);
        int smallest = -1;
        for (int i = 0; i < PackBuffers::kSlots; ++i) {
            if (!buffers.data[i]) {
                buffers.data[i] = data;
                buffers.bytes[i] = bytes;
                return;
            }
            if (smallest < 0 || buffers.bytes[i] < buffers.bytes[smallest]) smallest = i;
        }
        if (buffers.bytes[smallest] < bytes) { // keep the larger one
            std::swap(buffers.data[smallest], data);
            std::swap(buffers.bytes[smallest], bytes);
        }
    }
    std::free(data);
}

// x's rows padded to whole tiles of kMr.
inline size_t paddedRows(int rows)
{
    return size_t((rows + kMr - 1) / kMr) * kMr;
}

// The packed copy of x that weightProductPacked reads: for every k block k0 (kKc inputs), the tiles of all
// rows at packed + paddedRows·k0, tile t (rows t·kMr ..) at + t·kMr·kc, each tile[k][r].
size_t packedInputFloats(int rows, int in)
{
    return rows > 0 && in > 0 ? paddedRows(rows) * size_t(in) : 0;
}

int productInputTiles(int rows)
{
    return int(paddedRows(rows) / kMr);
}

int productPanelOutputs()
{
    return kNr;
}

// Packs x's row tiles [firstTile, lastTile) for every k block; other tiles of `packed` are left alone.
void packProductInput(const float* x, int rows, int in, int xStride, int firstTile, int lastTile,
                      float* packed)
{
    const size_t padded = paddedRows(rows);
    const int r0 = firstTile * kMr, r1 = std::min(rows, lastTile * kMr);
    if (r1 <= r0) return;
    for (int k0 = 0; k0 < in; k0 += kKc) {
        const int kc = std::min(kKc, in - k0);
        packInputTiles(x, xStride, r0, r1 - r0, k0, kc, packed + padded * size_t(k0) + size_t(r0) * kc);
    }
}

// y (rows × width) from x packed by packProductInput (all rows) and W read as stored: panel by panel of kNr
// outputs, every k block of a panel in turn, so that its C (rows × kNr) stays in cache while it is
// accumulated, and W is read row by row.
void weightProductPacked(const float* packed, int rows, int in, const void* w, int weightType, int wStride,
                         bool weightIsOutIn, float* y, int width, int yStride)
{
    if (rows <= 0 || width <= 0) return;
    if (in <= 0) {
        for (int r = 0; r < rows; ++r)
            std::memset(y + std::ptrdiff_t(r) * yStride, 0, sizeof(float) * size_t(width));
        return;
    }
    alignas(64) static thread_local float panel[kKc * kNr];
    const size_t padded = paddedRows(rows);
    const char* base = static_cast<const char*>(w);
    const auto panelStart = [&](int c0) {
        return base + weightSpanBytes(weightType, weightIsOutIn ? std::ptrdiff_t(c0) * wStride : c0);
    };
    for (int c0 = 0; c0 < width; c0 += kNr) {
        const int count = std::min(kNr, width - c0);
        __mmask16 masks[kNv];
        for (int v = 0; v < kNv; ++v)
            masks[v] = firstLanes(count - 16 * v);
        for (int k0 = 0; k0 < in; k0 += kKc) {
            const int kc = std::min(kKc, in - k0);
            packWeightPanel(panelStart(c0), weightType, wStride, weightIsOutIn, count, k0, kc, panel);
            // The block packed next: this panel's next k block, else the next panel's first.
            const bool nextK = k0 + kKc < in, nextPanel = !nextK && c0 + kNr < width;
            const char* nextStart = panelStart(nextK ? c0 : c0 + kNr);
            const int nextCount = nextK ? count : std::min(kNr, width - c0 - kNr);
            const int nextK0 = nextK ? k0 + kKc : 0;
            const int nextKc = nextK ? std::min(kKc, in - k0 - kKc) : std::min(kKc, in);
            const float* blockTiles = packed + padded * size_t(k0);
            const int tiles = int(padded / kMr);
            for (int t0 = 0; t0 < rows; t0 += kMr) {
                if (nextK || nextPanel)
                    prefetchWeightPanel(nextStart, weightType, wStride, weightIsOutIn, nextCount, nextK0,
                                        nextKc, t0 / kMr, tiles);
                const int tileRows = std::min(kMr, rows - t0);
                tileKernel(tileRows, count)(blockTiles + std::ptrdiff_t(t0) * kc, panel, kc,
                                            y + std::ptrdiff_t(t0) * yStride + c0, yStride, masks, k0 > 0);
            }
        }
    }
}

// The whole product on one thread: x packed in blocks of rows (at most kPackedInputBytes, at least kMinRows
// rows: fewer rows would pack W more often), each block's outputs by weightProductPacked.
void weightProduct(const float* x, int rows, int in, int xStride, const void* w, int weightType, int wStride,
                   bool weightIsOutIn, float* y, int width, int yStride)
{
    if (rows <= 0 || width <= 0) return;
    if (in <= 0) {
        weightProductPacked(nullptr, rows, in, w, weightType, wStride, weightIsOutIn, y, width, yStride);
        return;
    }
    const int byBytes = int(kPackedInputBytes / (size_t(in) * sizeof(float))) / kMr * kMr;
    const int blockRows = std::min(rows, std::max(kMinRows, byBytes));
    size_t tileBytes = (packedInputFloats(blockRows, in) * sizeof(float) + 63) / 64 * 64;
    float* tiles = takePackBuffer(tileBytes);
    for (int r0 = 0; r0 < rows; r0 += blockRows) {
        const int rowCount = std::min(blockRows, rows - r0);
        packProductInput(x + std::ptrdiff_t(r0) * xStride, rowCount, in, xStride, 0,
                         productInputTiles(rowCount), tiles);
        weightProductPacked(tiles, rowCount, in, w, weightType, wStride, weightIsOutIn,
                            y + std::ptrdiff_t(r0) * yStride, width, yStride);
    }
    giveBackPackBuffer(tiles, tileBytes);
}

} // namespace
} // namespace attnscope::kernels

#endif
