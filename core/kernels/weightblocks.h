#pragma once

// Weights stored as F32, F16, BF16 or one of ggml's block-quantized types (cpukernels.h's kWeight*), unpacked
// to f32: CpuKernels::unpackWeightRows, and the panels of the quantized types in weightProduct. Included by
// cpukernelvariant.cpp only (inside its anonymous namespace), so that it is compiled once per level.
//
// The block layouts and the arithmetic are ggml's reference dequantize_row_* (ggml-quants.c), written
// again here rather than shared with model/ggmlquants.cpp: that one is the reader's (Qt, plain x86-64) and
// serves the tests as the independent truth these are checked against, value for value
// (tst_weightproduct::unpacksAsTheReaderDequantizes). Host byte order is little-endian (the callers check).
//
// Floating-point contraction is off for these functions: x86-64-v3 and v4 have FMA, and GCC would fuse
// d·q − m into one rounding, where ggml (and the reader) rounds the product first. With it on, an unpacked
// weight could differ from the dequantized one in its last bit.

#include "kernels/cpukernels.h"

#include <cstdint>
#include <cstring>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace attnscope::kernels {
namespace { // the including module's own (cpukernels.h: nothing else is exported)

#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")

inline std::uint16_t readU16(const unsigned char* p)
{
    std::uint16_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// IEEE half → float, exactly (every half is a float).
inline float halfBits(std::uint16_t h)
{
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ffu;
    std::uint32_t bits;
    if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else { // zero or subnormal: mantissa · 2^-24, exact in a float
        const float magnitude = float(mantissa) * 5.9604644775390625e-8f;
        return sign ? -magnitude : magnitude;
    }
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

inline float halfAt(const unsigned char* p)
{
    return halfBits(readU16(p));
}

// Q8_0: d (f16), q[32] int8.
inline void unpackQ8_0(const unsigned char* b, float* y)
{
    const float d = halfAt(b);
    for (int j = 0; j < 32; ++j)
        y[j] = float(std::int8_t(b[2 + j])) * d;
}

// Q4_0 (d, then q − 8) and Q4_1 (d, m, then d·q + m): byte j holds element j (low nibble) and j + 16.
inline void unpackQ4(const unsigned char* b, float* y, bool withMin)
{
    const float d = halfAt(b);
    const float m = withMin ? halfAt(b + 2) : 0.0f;
    const unsigned char* qs = b + (withMin ? 4 : 2);
    const int offset = withMin ? 0 : 8;
    for (int j = 0; j < 16; ++j) {
        const float low = float((qs[j] & 0x0F) - offset), high = float((qs[j] >> 4) - offset);
        y[j] = withMin ? low * d + m : low * d;
        y[j + 16] = withMin ? high * d + m : high * d;
    }
}

// Q5_0 / Q5_1: as Q4, with a fifth bit per element in the 32-bit qh (bit j for element j).
inline void unpackQ5(const unsigned char* b, float* y, bool withMin)
{
    const float d = halfAt(b);
    const float m = withMin ? halfAt(b + 2) : 0.0f;
    const unsigned char* p = b + (withMin ? 4 : 2);
    std::uint32_t qh;
    std::memcpy(&qh, p, sizeof qh);
    const unsigned char* qs = p + 4;
    const int offset = withMin ? 0 : 16;
    for (int j = 0; j < 16; ++j) {
        const float low = float(((qs[j] & 0x0F) | int(((qh >> j) & 1) << 4)) - offset);
        const float high = float(((qs[j] >> 4) | int(((qh >> (j + 16)) & 1) << 4)) - offset);
        y[j] = withMin ? low * d + m : low * d;
        y[j + 16] = withMin ? high * d + m : high * d;
    }
}

// Q2_K: scales[16] (low nibble scale, high nibble min), qs[64], d, dmin; 2-bit quants, sub-blocks of 16.
inline void unpackQ2_K(const unsigned char* b, float* y)
{
    const unsigned char* scales = b;
    const float d = halfAt(b + 80), dmin = halfAt(b + 82);
    int sub = 0;
    for (int half = 0; half < 2; ++half) {
        const unsigned char* q = b + 16 + 32 * half;
        for (int shift = 0; shift < 8; shift += 2)
            for (int part = 0; part < 2; ++part) {
                const float dl = d * float(scales[sub] & 0xF), ml = dmin * float(scales[sub] >> 4);
                ++sub;
                for (int l = 0; l < 16; ++l)
                    *y++ = dl * float((q[l + 16 * part] >> shift) & 3) - ml;
            }
    }
}

// Q3_K: hmask[32], qs[64], scales[12] (16 6-bit scales, offset 32), d; a clear hmask bit subtracts 4.
inline void unpackQ3_K(const unsigned char* b, float* y)
{
    const unsigned char* hmask = b;
    const unsigned char* packed = b + 96;
    const float d = halfAt(b + 108);
    int scales[16];
    for (int j = 0; j < 16; ++j) {
        const int low = j < 8 ? packed[j] & 0xF : packed[j - 8] >> 4;
        const int high = (packed[8 + j % 4] >> (2 * (j / 4))) & 3;
        scales[j] = (low | (high << 4)) - 32;
    }
    int sub = 0;
    for (int half = 0; half < 2; ++half) {
        const unsigned char* q = b + 32 + 32 * half;
        for (int pass = 0; pass < 4; ++pass) {
            const unsigned bit = 1u << (4 * half + pass);
            for (int part = 0; part < 2; ++part) {
                const float dl = d * float(scales[sub++]);
                for (int l = 0; l < 16; ++l) {
                    const int i = l + 16 * part;
                    *y++ = dl * float(((q[i] >> (2 * pass)) & 3) - ((hmask[i] & bit) ? 0 : 4));
                }
            }
        }
    }
}

// Q4_K / Q5_K: d, dmin, scales[12] (8 6-bit scales and mins), (Q5_K: qh[32]), qs[128]; sub-blocks of 32.
inline void unpackQ45_K(const unsigned char* b, float* y, bool fiveBit)
{
    const float d = halfAt(b), dmin = halfAt(b + 2);
    const unsigned char* s = b + 4;
    const unsigned char* qh = b + 16;
    const unsigned char* qs = b + (fiveBit ? 48 : 16);
    for (int sub = 0; sub < 8; ++sub) {
        const int sc = sub < 4 ? s[sub] & 63 : (s[sub + 4] & 0xF) | ((s[sub - 4] >> 6) << 4);
        const int m = sub < 4 ? s[sub + 4] & 63 : (s[sub + 4] >> 4) | ((s[sub] >> 6) << 4);
        const float dl = d * float(sc), ml = dmin * float(m);
        const unsigned char* q = qs + 32 * (sub / 2);
        const int shift = 4 * (sub % 2);
        for (int l = 0; l < 32; ++l) {
            int value = (q[l] >> shift) & 0xF;
            if (fiveBit && (qh[l] & (1u << sub))) value += 16;
            *y++ = dl * float(value) - ml;
        }
    }
}

// Q6_K: ql[128], qh[64], scales[16] int8, d; 6-bit quants offset 32, sub-blocks of 16.
inline void unpackQ6_K(const unsigned char* b, float* y)
{
    const float d = halfAt(b + 208);
    for (int half = 0; half < 2; ++half) {
        const unsigned char* ql = b + 64 * half;
        const unsigned char* qh = b + 128 + 32 * half;
        const auto* sc = reinterpret_cast<const std::int8_t*>(b + 192 + 8 * half);
        float* out = y + 128 * half;
        for (int l = 0; l < 32; ++l) {
            const int is = l / 16;
            const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
            const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
            const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
            const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
            out[l] = d * float(sc[is]) * float(q1);
            out[l + 32] = d * float(sc[is + 2]) * float(q2);
            out[l + 64] = d * float(sc[is + 4]) * float(q3);
            out[l + 96] = d * float(sc[is + 6]) * float(q4);
        }
    }
}

#if defined(__AVX2__)
// Every quantized type again with AVX2 (both modules; the baseline keeps the loops above): 8 quants at a
// time widened to int32 lanes, converted to float and scaled, with the same operations in the same order
// as the loops above (contraction is off here too), so the values are the same to the bit
// (tst_quantizedproduct::unpacksAsTheReaderDequantizes at every level). With them the AVX2 level's product at
// 128 tokens ran 1.05-1.3 times as fast, every type (bench_quantproduct against the scalar loops,
// docs/benchmarks.md).

// 8 bytes at p as int32 lanes, zero- or sign-extended.
inline __m256i unsigned8(const unsigned char* p)
{
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}
inline __m256i signed8(const unsigned char* p)
{
    return _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}

inline void unpackQ8_0Simd(const unsigned char* b, float* y)
{
    const __m256 d = _mm256_set1_ps(halfAt(b));
    for (int j = 0; j < 32; j += 8)
        _mm256_storeu_ps(y + j, _mm256_mul_ps(_mm256_cvtepi32_ps(signed8(b + 2 + j)), d));
}

// Q4_0 / Q4_1, and with `high` bits (qh) Q5_0 / Q5_1: lanes j..j+7 of each half.
inline void unpackQ45Simd(const unsigned char* b, float* y, bool withMin, bool fiveBit)
{
    const __m256 d = _mm256_set1_ps(halfAt(b));
    const __m256 m = _mm256_set1_ps(withMin ? halfAt(b + 2) : 0.0f);
    const unsigned char* p = b + (withMin ? 4 : 2);
    std::uint32_t qh = 0;
    if (fiveBit) std::memcpy(&qh, p, sizeof qh);
    const unsigned char* qs = p + (fiveBit ? 4 : 0);
    const __m256i offset = _mm256_set1_epi32(withMin ? 0 : (fiveBit ? 16 : 8));
    const __m256i nibble = _mm256_set1_epi32(0x0F), one = _mm256_set1_epi32(1);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i bits = _mm256_set1_epi32(int(qh));
    for (int j = 0; j < 16; j += 8) {
        const __m256i bytes = unsigned8(qs + j);
        __m256i low = _mm256_and_si256(bytes, nibble), high = _mm256_srli_epi32(bytes, 4);
        if (fiveBit) { // bit j of qh to element j's bit 4, bit j + 16 to element j + 16's
            const __m256i at = _mm256_add_epi32(lane, _mm256_set1_epi32(j));
            low = _mm256_or_si256(low,
                                  _mm256_slli_epi32(_mm256_and_si256(_mm256_srlv_epi32(bits, at), one), 4));
            high = _mm256_or_si256(
                high, _mm256_slli_epi32(
                          _mm256_and_si256(
                              _mm256_srlv_epi32(bits, _mm256_add_epi32(at, _mm256_set1_epi32(16))), one),
                          4));
        }
        __m256 lowValues = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(low, offset)), d);
        __m256 highValues = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(high, offset)), d);
        if (withMin) {
            lowValues = _mm256_add_ps(lowValues, m);
            highValues = _mm256_add_ps(highValues, m);
        }
        _mm256_storeu_ps(y + j, lowValues);
        _mm256_storeu_ps(y + j + 16, highValues);
    }
}

inline void unpackQ45_KSimd(const unsigned char* b, float* y, bool fiveBit)
{
    const float d = halfAt(b), dmin = halfAt(b + 2);
    const unsigned char* s = b + 4;
    const unsigned char* qh = b + 16;
    const unsigned char* qs = b + (fiveBit ? 48 : 16);
    const __m256i nibble = _mm256_set1_epi32(0x0F), one = _mm256_set1_epi32(1);
    for (int sub = 0; sub < 8; ++sub) {
        const int sc = sub < 4 ? s[sub] & 63 : (s[sub + 4] & 0xF) | ((s[sub - 4] >> 6) << 4);
        const int m = sub < 4 ? s[sub + 4] & 63 : (s[sub + 4] >> 4) | ((s[sub] >> 6) << 4);
        const __m256 dl = _mm256_set1_ps(d * float(sc)), ml = _mm256_set1_ps(dmin * float(m));
        const unsigned char* q = qs + 32 * (sub / 2);
        const __m128i shift = _mm_cvtsi32_si128(4 * (sub % 2));
        const __m128i highShift = _mm_cvtsi32_si128(sub);
        for (int l = 0; l < 32; l += 8) {
            __m256i value = _mm256_and_si256(_mm256_srl_epi32(unsigned8(q + l), shift), nibble);
            if (fiveBit)
                value = _mm256_or_si256(
                    value, _mm256_slli_epi32(
                               _mm256_and_si256(_mm256_srl_epi32(unsigned8(qh + l), highShift), one), 4));
            _mm256_storeu_ps(y + 32 * sub + l,
                             _mm256_sub_ps(_mm256_mul_ps(dl, _mm256_cvtepi32_ps(value)), ml));
        }
    }
}

inline void unpackQ2_KSimd(const unsigned char* b, float* y)
{
    const unsigned char* scales = b;
    const float d = halfAt(b + 80), dmin = halfAt(b + 82);
    const __m256i twoBits = _mm256_set1_epi32(3);
    int sub = 0;
    for (int half = 0; half < 2; ++half) {
        const unsigned char* q = b + 16 + 32 * half;
        for (int shift = 0; shift < 8; shift += 2)
            for (int part = 0; part < 2; ++part, ++sub) {
                const __m256 dl = _mm256_set1_ps(d * float(scales[sub] & 0xF));
                const __m256 ml = _mm256_set1_ps(dmin * float(scales[sub] >> 4));
                for (int l = 0; l < 16; l += 8, y += 8) {
                    const __m256i value = _mm256_and_si256(
                        _mm256_srl_epi32(unsigned8(q + 16 * part + l), _mm_cvtsi32_si128(shift)), twoBits);
                    _mm256_storeu_ps(y, _mm256_sub_ps(_mm256_mul_ps(dl, _mm256_cvtepi32_ps(value)), ml));
                }
            }
    }
}

inline void unpackQ3_KSimd(const unsigned char* b, float* y)
{
    const unsigned char* hmask = b;
    const unsigned char* packed = b + 96;
    const float d = halfAt(b + 108);
    int scales[16];
    for (int j = 0; j < 16; ++j) {
        const int low = j < 8 ? packed[j] & 0xF : packed[j - 8] >> 4;
        const int high = (packed[8 + j % 4] >> (2 * (j / 4))) & 3;
        scales[j] = (low | (high << 4)) - 32;
    }
    const __m256i twoBits = _mm256_set1_epi32(3), four = _mm256_set1_epi32(4);
    int sub = 0;
    for (int half = 0; half < 2; ++half) {
        const unsigned char* q = b + 32 + 32 * half;
        for (int pass = 0; pass < 4; ++pass) {
            const __m256i bit = _mm256_set1_epi32(1 << (4 * half + pass));
            for (int part = 0; part < 2; ++part, ++sub) {
                const __m256 dl = _mm256_set1_ps(d * float(scales[sub]));
                for (int l = 0; l < 16; l += 8, y += 8) {
                    const int i = l + 16 * part;
                    const __m256i low = _mm256_and_si256(
                        _mm256_srl_epi32(unsigned8(q + i), _mm_cvtsi32_si128(2 * pass)), twoBits);
                    // A clear hmask bit takes 4 off.
                    const __m256i clear = _mm256_cmpeq_epi32(_mm256_and_si256(unsigned8(hmask + i), bit),
                                                             _mm256_setzero_si256());
                    const __m256i value = _mm256_sub_epi32(low, _mm256_and_si256(clear, four));
                    _mm256_storeu_ps(y, _mm256_mul_ps(dl, _mm256_cvtepi32_ps(value)));
                }
            }
        }
    }
}

inline void unpackQ6_KSimd(const unsigned char* b, float* y)
{
    const float d = halfAt(b + 208);
    const __m256i nibble = _mm256_set1_epi32(0x0F), twoBits = _mm256_set1_epi32(3);
    const __m256i offset = _mm256_set1_epi32(32);
    for (int half = 0; half < 2; ++half) {
        const unsigned char* ql = b + 64 * half;
        const unsigned char* qh = b + 128 + 32 * half;
        const auto* sc = reinterpret_cast<const std::int8_t*>(b + 192 + 8 * half);
        float* out = y + 128 * half;
        for (int l = 0; l < 32; l += 8) {
            const int is = l / 16;
            const __m256i low = unsigned8(ql + l), low32 = unsigned8(ql + l + 32), high = unsigned8(qh + l);
            // Group g (elements 32g + l): ql[l] / ql[l + 32], low then high nibble; qh bits 2g, 2g + 1.
            const __m256i q[4] = {_mm256_and_si256(low, nibble), _mm256_and_si256(low32, nibble),
                                  _mm256_srli_epi32(low, 4), _mm256_srli_epi32(low32, 4)};
            for (int g = 0; g < 4; ++g) {
                const __m256i top = _mm256_slli_epi32(
                    _mm256_and_si256(_mm256_srl_epi32(high, _mm_cvtsi32_si128(2 * g)), twoBits), 4);
                const __m256i value = _mm256_sub_epi32(_mm256_or_si256(q[g], top), offset);
                const __m256 scale = _mm256_set1_ps(d * float(sc[is + 2 * g]));
                _mm256_storeu_ps(out + 32 * g + l, _mm256_mul_ps(scale, _mm256_cvtepi32_ps(value)));
            }
        }
    }
}
#endif

#if defined(__AVX512F__) && defined(__AVX512BW__)
// The AVX-512 weightProduct's way (kernels/weightproduct.h): a span of up to 256 inputs of one row (a
// K-block, or 8 blocks of 32), its 16-value chunks unpacked straight into a register, 16 rows' chunks then
// transposed into the panel, with no f32 row in memory between. Per chunk c of the span, value =
// scale[c]·q (+ add[c] where the type has a min; add = −min for the K-types: x − m and x + (−m) are the
// same float), q the integer quant with the type's offset taken off: ggml's operations in ggml's order,
// so the same floats as unpackBlock (tst_quantizedproduct::weightProductPanelsHoldTheReaderValues).
// Q2_K and Q3_K have no such path (unpackBlock, then a transpose from memory).
constexpr bool unpacksInRegisters(int type)
{
    return isQuantizedWeight(type) && type != kWeightQ2_K && type != kWeightQ3_K;
}
constexpr bool hasMin(int type)
{
    return type == kWeightQ4_1 || type == kWeightQ5_1 || type == kWeightQ4_K || type == kWeightQ5_K;
}

// scale[c] and add[c] of the span's `chunks` chunks (16 values each).
template <int Type> inline void chunkScales(const unsigned char* span, int chunks, float* scale, float* add)
{
    constexpr WeightBlock block = weightBlock(Type);
    if constexpr (block.elements == 32) {
        for (int c = 0; c < chunks; c += 2) {
            const unsigned char* b = span + (c / 2) * block.bytes;
            scale[c] = scale[c + 1] = halfAt(b);
            if (hasMin(Type)) add[c] = add[c + 1] = halfAt(b + 2);
        }
    } else if constexpr (Type == kWeightQ6_K) {
        const float d = halfAt(span + 208);
        const auto* sc = reinterpret_cast<const std::int8_t*>(span + 192);
        for (int c = 0; c < 16; ++c) { // chunk c: half c / 8, group (c % 8) / 2, sub-scale c % 2 of it
            const int half = c / 8, group = (c % 8) / 2;
            scale[c] = d * float(sc[8 * half + c % 2 + 2 * group]);
        }
    } else { // Q4_K, Q5_K
        const float d = halfAt(span), dmin = halfAt(span + 2);
        const unsigned char* s = span + 4;
        for (int sub = 0; sub < 8; ++sub) {
            const int sc = sub < 4 ? s[sub] & 63 : (s[sub + 4] & 0xF) | ((s[sub - 4] >> 6) << 4);
            const int m = sub < 4 ? s[sub + 4] & 63 : (s[sub + 4] >> 4) | ((s[sub] >> 6) << 4);
            scale[2 * sub] = scale[2 * sub + 1] = d * float(sc);
            add[2 * sub] = add[2 * sub + 1] = -(dmin * float(m));
        }
    }
}

// 16 bytes at p as int32 lanes, zero- or sign-extended.
__attribute__((always_inline)) inline __m512i unsigned16(const unsigned char* p)
{
    return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// The integer quants of chunk c of the span, offset taken off.
template <int Type>
__attribute__((always_inline)) inline __m512i chunkQuants(const unsigned char* span, int c)
{
    const __m512i nibble = _mm512_set1_epi32(0x0F);
    if constexpr (Type == kWeightQ8_0) {
        return _mm512_cvtepi8_epi32(
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(span + (c / 2) * 34 + 2 + 16 * (c % 2))));
    } else if constexpr (weightBlock(Type).elements == 32) { // Q4_0, Q4_1, Q5_0, Q5_1
        constexpr bool withMin = hasMin(Type);
        constexpr bool fiveBit = Type == kWeightQ5_0 || Type == kWeightQ5_1;
        const unsigned char* b = span + (c / 2) * weightBlock(Type).bytes;
        const unsigned char* p = b + (withMin ? 4 : 2);
        const unsigned char* qs = p + (fiveBit ? 4 : 0);
        const __m512i bytes = unsigned16(qs);
        __m512i q = c % 2 ? _mm512_srli_epi32(bytes, 4) : _mm512_and_si512(bytes, nibble);
        if constexpr (fiveBit) { // bit j (+ 16 for the second chunk) of qh is element j's bit 4
            std::uint32_t qh;
            std::memcpy(&qh, p, sizeof qh);
            const __m512i at =
                _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                 _mm512_set1_epi32(16 * (c % 2)));
            q = _mm512_or_si512(
                q, _mm512_slli_epi32(_mm512_and_si512(_mm512_srlv_epi32(_mm512_set1_epi32(int(qh)), at),
                                                      _mm512_set1_epi32(1)),
                                     4));
        }
        if constexpr (!withMin) q = _mm512_sub_epi32(q, _mm512_set1_epi32(fiveBit ? 16 : 8));
        return q;
    } else if constexpr (Type == kWeightQ6_K) {
        const int half = c / 8, at = (c % 8) * 16, group = at / 32, l = at % 32;
        const __m512i low = unsigned16(span + 64 * half + 32 * (group % 2) + l);
        const __m512i q = group < 2 ? _mm512_and_si512(low, nibble) : _mm512_srli_epi32(low, 4);
        const __m512i high = _mm512_and_si512(
            _mm512_srl_epi32(unsigned16(span + 128 + 32 * half + l), _mm_cvtsi32_si128(2 * group)),
            _mm512_set1_epi32(3));
        return _mm512_sub_epi32(_mm512_or_si512(q, _mm512_slli_epi32(high, 4)), _mm512_set1_epi32(32));
    } else { // Q4_K, Q5_K: sub-block c / 2, its half c % 2
        constexpr bool fiveBit = Type == kWeightQ5_K;
        const int sub = c / 2;
        const unsigned char* qs = span + (fiveBit ? 48 : 16) + 32 * (sub / 2) + 16 * (c % 2);
        __m512i q =
            _mm512_and_si512(_mm512_srl_epi32(unsigned16(qs), _mm_cvtsi32_si128(4 * (sub % 2))), nibble);
        if constexpr (fiveBit)
            q = _mm512_or_si512(
                q, _mm512_slli_epi32(_mm512_and_si512(_mm512_srl_epi32(unsigned16(span + 16 + 16 * (c % 2)),
                                                                       _mm_cvtsi32_si128(sub)),
                                                      _mm512_set1_epi32(1)),
                                     4));
        return q;
    }
}

// Chunk c's 16 values.
template <int Type>
__attribute__((always_inline)) inline __m512 chunkValues(const unsigned char* span, int c, float scale,
                                                         float add)
{
    const __m512 scaled =
        _mm512_mul_ps(_mm512_set1_ps(scale), _mm512_cvtepi32_ps(chunkQuants<Type>(span, c)));
    if constexpr (hasMin(Type)) return _mm512_add_ps(scaled, _mm512_set1_ps(add));
    return scaled;
}
#endif

// One block of a quantized type at b into y (weightBlock(type).elements values).
inline void unpackBlock(int type, const unsigned char* b, float* y)
{
#if defined(__AVX2__)
    switch (type) {
    case kWeightQ4_0:
        return unpackQ45Simd(b, y, false, false);
    case kWeightQ4_1:
        return unpackQ45Simd(b, y, true, false);
    case kWeightQ5_0:
        return unpackQ45Simd(b, y, false, true);
    case kWeightQ5_1:
        return unpackQ45Simd(b, y, true, true);
    case kWeightQ8_0:
        return unpackQ8_0Simd(b, y);
    case kWeightQ4_K:
        return unpackQ45_KSimd(b, y, false);
    case kWeightQ5_K:
        return unpackQ45_KSimd(b, y, true);
    case kWeightQ6_K:
        return unpackQ6_KSimd(b, y);
    case kWeightQ2_K:
        return unpackQ2_KSimd(b, y);
    case kWeightQ3_K:
        return unpackQ3_KSimd(b, y);
    default:
        break;
    }
#endif
    switch (type) {
    case kWeightQ4_0:
        return unpackQ4(b, y, false);
    case kWeightQ4_1:
        return unpackQ4(b, y, true);
    case kWeightQ5_0:
        return unpackQ5(b, y, false);
    case kWeightQ5_1:
        return unpackQ5(b, y, true);
    case kWeightQ8_0:
        return unpackQ8_0(b, y);
    case kWeightQ2_K:
        return unpackQ2_K(b, y);
    case kWeightQ3_K:
        return unpackQ3_K(b, y);
    case kWeightQ4_K:
        return unpackQ45_K(b, y, false);
    case kWeightQ5_K:
        return unpackQ45_K(b, y, true);
    case kWeightQ6_K:
        return unpackQ6_K(b, y);
    default:
        return;
    }
}

// CpuKernels::unpackWeightRows.
inline void unpackWeightRows(const void* w, int type, int in, int rowCount, int k0, int kc, float* out,
                             int outStride)
{
    const auto* base = static_cast<const unsigned char*>(w);
    const long long rowBytes = weightSpanBytes(type, in);
    const WeightBlock block = weightBlock(type);
    for (int r = 0; r < rowCount; ++r) {
        const unsigned char* row = base + r * rowBytes;
        float* y = out + std::ptrdiff_t(r) * outStride;
        if (isQuantizedWeight(type)) {
            const unsigned char* b = row + weightSpanBytes(type, k0);
            for (int k = 0; k < kc; k += block.elements, b += block.bytes)
                unpackBlock(type, b, y + k);
            continue;
        }
        for (int k = 0; k < kc; ++k) {
            const unsigned char* p = row + std::ptrdiff_t(k0 + k) * block.bytes;
            if (type == kWeightF16) {
                y[k] = halfAt(p);
            } else if (type == kWeightBF16) {
                const std::uint32_t bits = std::uint32_t(readU16(p)) << 16;
                std::memcpy(&y[k], &bits, sizeof bits);
            } else {
                std::memcpy(&y[k], p, sizeof(float));
            }
        }
    }
}

#pragma GCC pop_options

} // namespace
} // namespace attnscope::kernels
