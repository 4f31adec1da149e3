#pragma once

// ggml's tensor element types as GGUF stores them, and their conversion to fp32, row by row. The block
// layouts and the arithmetic follow ggml's reference dequantize_row_* (ggml-common.h, ggml-quants.c): a
// row of n elements is n / blockElements blocks of blockBytes bytes each, little-endian.
//
//   type   elements/block  bytes/block  value
//   Q8_0   32              34           d · q                       (d f16, q int8)
//   Q4_0   32              18           d · (q − 8)                 (q 4-bit)
//   Q4_1   32              20           d · q + m
//   Q5_0   32              22           d · (q − 16)                (q 5-bit: 4 low bits + 1 from qh)
//   Q5_1   32              24           d · q + m
//   Q2_K   256             84           d·sc · q − dmin·m           (16 sub-blocks of 16, 4-bit sc/m)
//   Q3_K   256             110          d · (sc − 32) · (q − 4·!h)  (16 sub-blocks, 6-bit signed sc)
//   Q4_K   256             144          d·sc · q − dmin·m           (8 sub-blocks of 32, 6-bit sc/m)
//   Q5_K   256             176          same with 5-bit q
//   Q6_K   256             210          d · sc · (q − 32)           (16 sub-blocks, int8 sc)

#include <QString>
#include <cstdint>
#include <optional>

namespace attnscope {

enum class GgmlType : std::uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q8_1 = 9,
    Q2_K = 10,
    Q3_K = 11,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    Q8_K = 15,
    BF16 = 30,
};

struct GgmlTypeTraits
{
    GgmlType type;
    const char* name; // "Q4_K", as ggml_type_name() spells it
    int blockElements;
    int blockBytes;
};

// The traits of a type AttnScope converts to fp32; nullopt for any other value (IQ*, TQ*, integer types,
// removed or unknown ids), whose name ggmlTypeName() still gives where ggml defines one.
std::optional<GgmlTypeTraits> ggmlTypeTraits(std::uint32_t type);
QString ggmlTypeName(std::uint32_t type);
// "F32, F16, BF16, Q8_0, ..." for messages.
QString supportedGgmlTypeNames();

// Converts `elements` values (a whole number of blocks) stored as `type` at `in` into `out`. The caller
// has checked that `in` holds elements / blockElements · blockBytes bytes.
void dequantizeRow(GgmlType type, const unsigned char* in, float* out, std::int64_t elements);

} // namespace attnscope
