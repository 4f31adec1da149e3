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

// One block of a quantized type at b into y (weightBlock(type).elements values).
inline void unpackBlock(int type, const unsigned char* b, float* y)
{
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
