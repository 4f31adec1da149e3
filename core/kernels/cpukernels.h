#pragma once

// The CPU's hot loops behind a table of function pointers, so that one binary runs on every x86-64 CPU and
// still uses AVX2/FMA or AVX-512 where the CPU has them.
//
// The loops (attention per head, the projections' Eigen product, bias + activation, LayerNorm, RMSNorm) are
// written once, in cpukernelvariant.cpp, and compiled once per instruction-set level:
//   baseline  plain x86-64 (what Debian's amd64 requires), compiled into attnscope_core itself;
//   avx2      x86-64-v3 (AVX2, FMA, BMI2, F16C, ...), the module lib/attnscope/attnscope_cpu_avx2.so;
//   avx512    x86-64-v4 (AVX-512 F/BW/CD/DQ/VL on top of v3), the module attnscope_cpu_avx512.so.
// cpuKernels() picks the highest level the CPU has, once, and dlopen()s only that module; the environment
// variable ATTNSCOPE_CPU_KERNELS=baseline|avx2|avx512 asks for a lower one (tests, benchmarks).
//
// Why modules, and why this is free of the ODR trap: Eigen is all inline templates. Were the same
// templates instantiated in one binary by TUs compiled with different -m flags, the linker would keep one
// copy of each (they are weak, COMDAT) and baseline code could end up calling an AVX-512 copy. Here every
// variant above baseline is a separate shared object, linked with -fvisibility=hidden and a version script
// (cpukernelmodule.map) that makes every symbol except attnscope_cpu_kernels local, so all of its Eigen and
// libstdc++ template code is bound inside the module at link time and nothing outside can reach it except
// through this table. The executable and attnscope_core are compiled for plain x86-64 only.
// tests/app/tst_cpu_isa.cpp proves it on the built files: no VEX/EVEX instruction anywhere in the attnscope
// executable, none of AVX-512's EVEX encoding in the avx2 module, and one exported symbol per module.
//
// Everything crossing the table is plain data (pointers, ints, the structs below): no type with inline code
// of its own (Eigen, std::vector, std::optional) may cross, since each side has its own copy of that code.

#include "model/activation.h"

#include <cstddef>

namespace attnscope::kernels {

// Bumped whenever CpuKernels changes: a module from another build is refused rather than misread.
constexpr int kCpuKernelsAbi = 7;
constexpr const char* kCpuKernelsEntry = "attnscope_cpu_kernels";

// Which keys a query may see: the plain-data twin of AttentionOptions' causal mask, sliding window and key
// padding (AttentionOptions::isMasked); and the head's learned sink (AttentionOptions::sinks), a logit every
// row's softmax sees beside its visible keys, whose column is then dropped: the row's P sums to less than 1
// and its log-sum-exp L includes the sink, so exp(S − L) gives the same P.
struct KeyMask
{
    bool causal = false;
    int queryPositionOffset = 0; // query i sits at key position i + queryPositionOffset
    int slidingWindow = 0;       // > 0: query i sees key j only when (i + offset) − j < window
    const unsigned char* keyPadding = nullptr; // null: every key visible; else one flag per key, 0 = padding
    bool hasSink = false;
    float sink = 0.0f; // the sink logit, with hasSink (not scaled or capped: gpt-oss adds it as it is)

    bool any() const { return causal || slidingWindow > 0 || keyPadding; }
    bool masked(int query, int key) const
    {
        return (causal && key > query + queryPositionOffset) ||
               (slidingWindow > 0 && query + queryPositionOffset - key >= slidingWindow) ||
               (keyPadding && keyPadding[key] == 0);
    }
};

// `rows` vectors of `dim` floats, the first at data, consecutive ones `stride` floats apart: one head's
// slice of a HeadTensor [tokens, heads, dim] has stride heads·dim.
struct ConstRows
{
    const float* data = nullptr;
    int rows = 0;
    int dim = 0;
    int stride = 0;
};
struct Rows
{
    float* data = nullptr;
    int rows = 0;
    int dim = 0;
    int stride = 0;
};

// How weightProduct's weights are stored: what a safetensors file holds for them (F32, F16, BF16), or one
// of llama.cpp's block-quantized types as a GGUF file holds them (model/ggmlquants.h has the layouts).
enum : int {
    kWeightF32 = 0,
    kWeightF16 = 1,
    kWeightBF16 = 2,
    kWeightQ4_0 = 3,
    kWeightQ4_1 = 4,
    kWeightQ5_0 = 5,
    kWeightQ5_1 = 6,
    kWeightQ8_0 = 7,
    kWeightQ2_K = 8,
    kWeightQ3_K = 9,
    kWeightQ4_K = 10,
    kWeightQ5_K = 11,
    kWeightQ6_K = 12,
    kWeightTypeCount = 13
};

// A weight type's storage unit: `elements` weights in `bytes` bytes (1 weight for F32/F16/BF16, a block of
// 32 or 256 for the quantized types). A quantized row holds a whole number of blocks, and products read
// it [out, in] only (GGUF's order), in spans of whole blocks.
struct WeightBlock
{
    int elements = 1;
    int bytes = 4;
};
constexpr WeightBlock weightBlock(int type)
{
    switch (type) {
    case kWeightF16:
    case kWeightBF16:
        return {1, 2};
    case kWeightQ4_0:
        return {32, 18};
    case kWeightQ4_1:
        return {32, 20};
    case kWeightQ5_0:
        return {32, 22};
    case kWeightQ5_1:
        return {32, 24};
    case kWeightQ8_0:
        return {32, 34};
    case kWeightQ2_K:
        return {256, 84};
    case kWeightQ3_K:
        return {256, 110};
    case kWeightQ4_K:
        return {256, 144};
    case kWeightQ5_K:
        return {256, 176};
    case kWeightQ6_K:
        return {256, 210};
    default:
        return {1, 4};
    }
}
constexpr bool isQuantizedWeight(int type)
{
    return type >= kWeightQ4_0 && type < kWeightTypeCount;
}
// Bytes of `elements` consecutive weights (a whole number of blocks for a quantized type).
constexpr long long weightSpanBytes(int type, long long elements)
{
    return elements / weightBlock(type).elements * weightBlock(type).bytes;
}

struct CpuKernels
{
    int abi = 0;              // kCpuKernelsAbi of the code that filled the table
    const char* variant = ""; // "baseline", "avx2", "avx512", or "native" (an -march=native build)

    // Every attention kernel scores S = q·kᵀ·scale, then, when softCap > 0, S = softCap·tanh(S/softCap)
    // (Gemma 2), then masks.
    // One head of attentionFull. q (n_q, d), k and v (n_k, d).
    // probabilities (n_q × n_k, contiguous) = softmax(S, masked) row by row, a row that sees no key all 0;
    // out (n_q, d) = probabilities · v.
    void (*fullAttentionHead)(ConstRows q, ConstRows k, ConstRows v, float scale, float softCap,
                              const KeyMask* mask, float* probabilities, Rows out) = nullptr;
    // One (head, query block) task of attentionTiled: queries q (query positions firstQuery..) against keys
    // [0, k.rows) in blocks of keyBlock with the online softmax. out (q.rows, d) = O; logSumExp[r] = L of
    // row r (-inf for a row that sees no key).
    void (*tiledAttentionBlock)(ConstRows q, int firstQuery, ConstRows k, ConstRows v, int keyBlock,
                                float scale, float softCap, const KeyMask* mask, Rows out,
                                double* logSumExp) = nullptr;
    // A rectangle of P recomputed as exp(S − L): tile (q.rows × k.rows, contiguous) for query positions
    // firstQuery.. and key positions firstKey..; logSumExp[r] is row r's L (rows with L = -inf stay 0).
    void (*probabilityTile)(ConstRows q, int firstQuery, ConstRows k, int firstKey, const double* logSumExp,
                            float scale, float softCap, const KeyMask* mask, float* tile) = nullptr;

    // y (rows × width, row stride yStride) = x (rows × in, stride xStride) · the weight block, which is
    // width × in (stride wStride) read transposed when weightIsOutIn (nn.Linear [out, in]), else in × width
    // (GPT-2 Conv1D [in, out]).
    void (*product)(const float* x, int rows, int in, int xStride, const float* w, int wStride,
                    bool weightIsOutIn, float* y, int width, int yStride) = nullptr;
    // The same product with the weights as stored (weightType: kWeightF32/F16/BF16), converted to f32 while
    // they are packed (kernels/weightproduct.h): no f32 copy of the weights, accumulation in f32. w points at
    // the block's first weight, wStride counts weights. Null in the modules that have no such kernel (the
    // baseline and avx2 ones): the callers then convert and use `product`.
    void (*weightProduct)(const float* x, int rows, int in, int xStride, const void* w, int weightType,
                          int wStride, bool weightIsOutIn, float* y, int width, int yStride) = nullptr;
    // weightProduct (and weightProductPacked) also take the quantized types, [out, in] only, unpacking each
    // panel from the blocks while they pack it.
    // weightProduct in two steps, so that the threads of one product share one packed copy of x and take
    // its output panels one at a time (a half each left one core idle while the other finished, and each
    // half packed the whole of x again). packedInputFloats(rows, in) is the packed copy's size;
    // packProductInput packs x's row tiles [firstTile, lastTile) of kernel-chosen height into it (the
    // tiles may be packed by different threads at once); weightProductPacked then computes any column
    // block of y from it, reading W as weightProduct does, with the same sums in the same order (y is the
    // same to the bit).
    size_t (*packedInputFloats)(int rows, int in) = nullptr;
    int (*productInputTiles)(int rows) = nullptr;
    int (*productPanelOutputs)() = nullptr; // column blocks that are multiples of it run whole panels
    void (*packProductInput)(const float* x, int rows, int in, int xStride, int firstTile, int lastTile,
                             float* packed) = nullptr;
    void (*weightProductPacked)(const float* packed, int rows, int in, const void* w, int weightType,
                                int wStride, bool weightIsOutIn, float* y, int width, int yStride) = nullptr;
    // y = act(y + bias) over rows × width (stride yStride); bias (width) and activation may be null.
    void (*biasActivation)(float* y, int rows, int width, int yStride, const float* bias,
                           const Activation* activation) = nullptr;
    // Per row of `width`, statistics in double: y = (x − mean)/sqrt(var + eps)·gamma + beta (beta may be
    // null), and y = x/sqrt(mean(x²) + eps)·(gammaOffset + gamma) (Gemma's RMSNorm: offset 1). y may
    // equal x.
    void (*layerNormRows)(const float* x, float* y, int rows, int width, const float* gamma,
                          const float* beta, double eps) = nullptr;
    void (*rmsNormRows)(const float* x, float* y, int rows, int width, const float* gamma, double eps,
                        float gammaOffset) = nullptr;
    // Marks the upper halves of the vector registers clean (vzeroupper) in the modules that use AVX; does
    // nothing in the baseline. Plain x86-64 code run while they are dirty can be several times slower on
    // some CPUs: the per-head statistics (a libm log per cell, stats/headstatsaccumulator.cpp) ran 5x slower
    // on the 2-core dev VM (Intel Xeon, AVX-512) until they called this first (docs/bench-census.md).
    void (*clearUpperVectorState)() = nullptr;
    // Weights [k0, k0 + kc) of rows [0, rowCount) of a [out, in] matrix stored as `weightType` (row r at
    // w + r·weightSpanBytes(type, in)) as f32 into out[r·outStride + k]; for a quantized type k0 and kc are
    // whole blocks. The values are ggml's dequantize_row_* ones, bit for bit (kernels/weightblocks.h). At
    // every level.
    void (*unpackWeightRows)(const void* w, int weightType, int in, int rowCount, int k0, int kc, float* out,
                             int outStride) = nullptr;
    // y (rows × width) = x · Wᵀ for W [width, in] stored as `weightType` (row stride in weights), W unpacked
    // by unpackWeightRows a panel of outputs at a time into a buffer of the calling thread and multiplied by
    // `product`: no f32 copy of W. The product of the levels without weightProduct (baseline, avx2) for the
    // quantized types; at every level. On the avx2 level it is its own register-blocked product instead
    // (kernels/weightproductavx2.h), y within float32 rounding of the same.
    void (*unpackedWeightProduct)(const float* x, int rows, int in, int xStride, const void* w,
                                  int weightType, float* y, int width, int yStride) = nullptr;
};

} // namespace attnscope::kernels

// The baseline table, compiled into attnscope_core. A module's table comes from its only exported symbol,
// `const CpuKernels* attnscope_cpu_kernels()` (kCpuKernelsEntry), found with dlsym.
extern "C" const attnscope::kernels::CpuKernels* attnscope_cpu_kernels_builtin();
