#include "model/ggmlquants.h"

#include "model/safetensorsfile.h"

#include <QStringList>
#include <QtEndian>
#include <cstring>

namespace attnscope {

namespace {

constexpr int kSuperBlock = 256; // QK_K

const GgmlTypeTraits kSupported[] = {
    {GgmlType::F32, "F32", 1, 4},
    {GgmlType::F16, "F16", 1, 2},
    {GgmlType::BF16, "BF16", 1, 2},
    {GgmlType::Q8_0, "Q8_0", 32, 34},
    {GgmlType::Q4_0, "Q4_0", 32, 18},
    {GgmlType::Q4_1, "Q4_1", 32, 20},
    {GgmlType::Q5_0, "Q5_0", 32, 22},
    {GgmlType::Q5_1, "Q5_1", 32, 24},
    {GgmlType::Q2_K, "Q2_K", kSuperBlock, 84},
    {GgmlType::Q3_K, "Q3_K", kSuperBlock, 110},
    {GgmlType::Q4_K, "Q4_K", kSuperBlock, 144},
    {GgmlType::Q5_K, "Q5_K", kSuperBlock, 176},
    {GgmlType::Q6_K, "Q6_K", kSuperBlock, 210},
};

// ggml_type ids AttnScope does not convert, by name (ggml.h's enum), for messages.
const char* otherTypeName(std::uint32_t type)
{
    switch (type) {
    case 9:
        return "Q8_1";
    case 15:
        return "Q8_K";
    case 16:
        return "IQ2_XXS";
    case 17:
        return "IQ2_XS";
    case 18:
        return "IQ3_XXS";
    case 19:
        return "IQ1_S";
    case 20:
        return "IQ4_NL";
    case 21:
        return "IQ3_S";
    case 22:
        return "IQ2_S";
    case 23:
        return "IQ4_XS";
    case 24:
        return "I8";
    case 25:
        return "I16";
    case 26:
        return "I32";
    case 27:
        return "I64";
    case 28:
        return "F64";
    case 29:
        return "IQ1_M";
    case 34:
        return "TQ1_0";
    case 35:
        return "TQ2_0";
    case 39:
        return "MXFP4";
    default:
        return nullptr;
    }
}

float half(const unsigned char* p)
{
    return halfToFloat(qFromLittleEndian<std::uint16_t>(p));
}

// The 6-bit scale and min of sub-block j (0..7) packed in the 12 scale bytes of Q4_K and Q5_K: sub-blocks
// 0-3 keep them in the low 6 bits of bytes j and j+4; 4-7 split them into a low nibble in byte j+4 and
// two high bits in the top of bytes j-4 (scale) and j (min).
void scaleAndMin(int j, const unsigned char* q, int* scale, int* min)
{
    if (j < 4) {
        *scale = q[j] & 63;
        *min = q[j + 4] & 63;
    } else {
        *scale = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
        *min = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

void q8_0(const unsigned char* b, float* y)
{
    const float d = half(b);
    for (int j = 0; j < 32; ++j)
        y[j] = float(std::int8_t(b[2 + j])) * d;
}

// Q4_0 / Q4_1: byte j holds element j (low nibble) and element j + 16 (high nibble).
void q4(const unsigned char* b, float* y, bool withMin)
{
    const float d = half(b);
    const float m = withMin ? half(b + 2) : 0.0f;
    const unsigned char* qs = b + (withMin ? 4 : 2);
    const int offset = withMin ? 0 : 8;
    for (int j = 0; j < 16; ++j) {
        const int low = (qs[j] & 0x0F) - offset;
        const int high = (qs[j] >> 4) - offset;
        y[j] = withMin ? float(low) * d + m : float(low) * d;
        y[j + 16] = withMin ? float(high) * d + m : float(high) * d;
    }
}

// Q5_0 / Q5_1: as Q4, plus a fifth bit per element in the 32-bit qh (bit j for element j).
void q5(const unsigned char* b, float* y, bool withMin)
{
    const float d = half(b);
    const float m = withMin ? half(b + 2) : 0.0f;
    const unsigned char* p = b + (withMin ? 4 : 2);
    const std::uint32_t qh = qFromLittleEndian<std::uint32_t>(p);
    const unsigned char* qs = p + 4;
    const int offset = withMin ? 0 : 16;
    for (int j = 0; j < 16; ++j) {
        const int low = ((qs[j] & 0x0F) | (((qh >> j) & 1) << 4)) - offset;
        const int high = ((qs[j] >> 4) | (((qh >> (j + 16)) & 1) << 4)) - offset;
        y[j] = withMin ? float(low) * d + m : float(low) * d;
        y[j + 16] = withMin ? float(high) * d + m : float(high) * d;
    }
}

// Q2_K: scales[16] (low nibble scale, high nibble min), qs[64], d, dmin. Each half of 128 elements uses 32
// quant bytes four times (2 bits at shifts 0, 2, 4, 6), each pass giving two sub-blocks of 16.
void q2_K(const unsigned char* b, float* y)
{
    const unsigned char* scales = b;
    const unsigned char* qs = b + 16;
    const float d = half(b + 80);
    const float dmin = half(b + 82);
    int sub = 0;
    for (int halfBlock = 0; halfBlock < 2; ++halfBlock) {
        const unsigned char* q = qs + 32 * halfBlock;
        for (int pass = 0; pass < 4; ++pass) {
            const int shift = 2 * pass;
            for (int part = 0; part < 2; ++part) {
                const unsigned char sc = scales[sub++];
                const float dl = d * float(sc & 0xF);
                const float ml = dmin * float(sc >> 4);
                for (int l = 0; l < 16; ++l)
                    *y++ = dl * float((q[l + 16 * part] >> shift) & 3) - ml;
            }
        }
    }
}

// Q3_K: hmask[32], qs[64], scales[12], d. The 16 6-bit scales are stored as low nibbles (bytes 0-7, two
// per byte: scales 0-7 in the low nibbles, 8-15 in the high ones) plus two high bits each in bytes 8-11.
// A quant is 2 low bits from qs and a high bit from hmask; a clear high bit subtracts 4.
void q3_K(const unsigned char* b, float* y)
{
    const unsigned char* hmask = b;
    const unsigned char* qs = b + 32;
    const unsigned char* packed = b + 96;
    const float d = half(b + 108);
    int scales[16];
    for (int j = 0; j < 16; ++j) {
        const int low = j < 8 ? packed[j] & 0xF : packed[j - 8] >> 4;
        const int high = (packed[8 + j % 4] >> (2 * (j / 4))) & 3;
        scales[j] = (low | (high << 4)) - 32;
    }
    int sub = 0;
    for (int halfBlock = 0; halfBlock < 2; ++halfBlock) {
        const unsigned char* q = qs + 32 * halfBlock;
        for (int pass = 0; pass < 4; ++pass) {
            const int shift = 2 * pass;
            const unsigned char bit = static_cast<unsigned char>(1u << (4 * halfBlock + pass));
            for (int part = 0; part < 2; ++part) {
                const float dl = d * float(scales[sub++]);
                for (int l = 0; l < 16; ++l) {
                    const int i = l + 16 * part;
                    const int value = ((q[i] >> shift) & 3) - ((hmask[i] & bit) ? 0 : 4);
                    *y++ = dl * float(value);
                }
            }
        }
    }
}

// Q4_K / Q5_K: d, dmin, scales[12], (Q5_K: qh[32]), qs[128]. Four chunks of 64 elements; chunk c reads 32
// quant bytes, low nibbles for sub-block 2c and high nibbles for 2c + 1. Q5_K's fifth bit of element l in
// sub-block s is bit s of qh[l].
void q45_K(const unsigned char* b, float* y, bool fiveBit)
{
    const float d = half(b);
    const float dmin = half(b + 2);
    const unsigned char* scales = b + 4;
    const unsigned char* qh = fiveBit ? b + 16 : nullptr;
    const unsigned char* qs = b + (fiveBit ? 48 : 16);
    for (int chunk = 0; chunk < 4; ++chunk) {
        const unsigned char* q = qs + 32 * chunk;
        for (int part = 0; part < 2; ++part) {
            const int sub = 2 * chunk + part;
            int sc = 0, m = 0;
            scaleAndMin(sub, scales, &sc, &m);
            const float dl = d * float(sc);
            const float ml = dmin * float(m);
            for (int l = 0; l < 32; ++l) {
                int value = part == 0 ? (q[l] & 0xF) : (q[l] >> 4);
                if (fiveBit && (qh[l] & (1u << sub))) value += 16;
                *y++ = dl * float(value) - ml;
            }
        }
    }
}

// Q6_K: ql[128], qh[64], scales[16] (int8), d. Each half of 128 elements: 64 ql bytes (low nibbles of
// elements 0-63, high nibbles of 64-127) and 32 qh bytes (2 high bits for four elements each).
void q6_K(const unsigned char* b, float* y)
{
    const float d = half(b + 208);
    for (int halfBlock = 0; halfBlock < 2; ++halfBlock) {
        const unsigned char* ql = b + 64 * halfBlock;
        const unsigned char* qh = b + 128 + 32 * halfBlock;
        const auto* sc = reinterpret_cast<const std::int8_t*>(b + 192 + 8 * halfBlock);
        float* out = y + 128 * halfBlock;
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

} // namespace

std::optional<GgmlTypeTraits> ggmlTypeTraits(std::uint32_t type)
{
    for (const GgmlTypeTraits& t : kSupported)
        if (std::uint32_t(t.type) == type) return t;
    return std::nullopt;
}

QString ggmlTypeName(std::uint32_t type)
{
    if (const std::optional<GgmlTypeTraits> t = ggmlTypeTraits(type)) return QLatin1String(t->name);
    if (const char* name = otherTypeName(type)) return QLatin1String(name);
    return QStringLiteral("type %1").arg(type);
}

QString supportedGgmlTypeNames()
{
    QStringList names;
    for (const GgmlTypeTraits& t : kSupported)
        names << QLatin1String(t.name);
    return names.join(QStringLiteral(", "));
}

void dequantizeRow(GgmlType type, const unsigned char* in, float* out, std::int64_t elements)
{
    switch (type) {
    case GgmlType::F32:
        for (std::int64_t i = 0; i < elements; ++i)
            out[i] = qFromLittleEndian<float>(in + 4 * i);
        return;
    case GgmlType::F16:
        convertHalfToFloat(in, out, elements);
        return;
    case GgmlType::BF16:
        convertBfloat16ToFloat(in, out, elements);
        return;
    default:
        break;
    }
    const std::optional<GgmlTypeTraits> traits = ggmlTypeTraits(std::uint32_t(type));
    if (!traits) return;
    const std::int64_t blocks = elements / traits->blockElements;
    for (std::int64_t i = 0; i < blocks; ++i) {
        const unsigned char* b = in + i * traits->blockBytes;
        float* y = out + i * traits->blockElements;
        switch (type) {
        case GgmlType::Q8_0:
            q8_0(b, y);
            break;
        case GgmlType::Q4_0:
            q4(b, y, false);
            break;
        case GgmlType::Q4_1:
            q4(b, y, true);
            break;
        case GgmlType::Q5_0:
            q5(b, y, false);
            break;
        case GgmlType::Q5_1:
            q5(b, y, true);
            break;
        case GgmlType::Q2_K:
            q2_K(b, y);
            break;
        case GgmlType::Q3_K:
            q3_K(b, y);
            break;
        case GgmlType::Q4_K:
            q45_K(b, y, false);
            break;
        case GgmlType::Q5_K:
            q45_K(b, y, true);
            break;
        case GgmlType::Q6_K:
            q6_K(b, y);
            break;
        default:
            return;
        }
    }
}

} // namespace attnscope
