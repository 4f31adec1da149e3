#pragma once

// The fp32 building blocks of the forward pass. Matrices are row-major, one row per token.

#include "model/activation.h"

#include <QtGlobal>
#include <optional>
#include <string>

namespace attnscope::ops {

// How a projection's weight is stored: nn.Linear [out, in], GPT-2 Conv1D [in, out].
enum class WeightLayout { OutIn, InOut };

// How the weights are stored where `stored` points: a safetensors (or GGUF) file's F16 or BF16 data, or a
// GGUF file's ggml blocks ([out, in] only, each row a whole number of blocks; ggmlquants.h).
enum class WeightStorage { F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K };
// The quantized ones: linear() multiplies them as stored at every kernel level, unpacking panels of W.
bool isQuantized(WeightStorage storage);

struct LinearWeight
{
    const float* weight = nullptr; // f32; may be null when `stored` is set and readsStoredWeights()
    const float* bias = nullptr;   // may be null
    int in = 0;
    int out = 0;
    WeightLayout layout = WeightLayout::OutIn;
    const void* stored = nullptr; // the same weights as the file holds them (`storage`), or null
    WeightStorage storage = WeightStorage::F32;
};

// Whether linear() multiplies F16/BF16 weights as they are stored (LinearWeight::stored), converting them
// while it packs them: the CPU kernels have a weightProduct (AVX-512) and ATTNSCOPE_PRODUCT is not
// "library". When false, F16/BF16/F32 weights must come as f32 (LinearWeight::weight). Quantized weights
// are always read as stored: by weightProduct where there is one, else a panel of W at a time unpacked
// to f32 (CpuKernels::unpackedWeightProduct), never the whole matrix.
bool readsStoredWeights();

// y[:, 0:c1-c0] = act(x · W[:, c0:c1] + b[c0:c1]) for the output columns [c0, c1) of the projection.
// x is n × w.in with row stride xStride; y is n × (c1−c0) with row stride yStride.
// Where the CPU kernels have their own product (AVX-512): x is packed once and `threads` threads take W's
// output panels in turn, reading F16/BF16 weights as stored and f32 ones as they are (y is the same to the
// bit as the kernel's weightProduct on one thread). Else one block of output columns per thread, each one
// GEMM: OpenBLAS's sgemm where the build has it and it runs on this CPU, else the CPU kernels' Eigen
// product. ATTNSCOPE_PRODUCT=library skips the own product (to compare; the weights must then be f32).
void linear(const float* x, int n, int xStride, const LinearWeight& w, int c0, int c1, float* y, int yStride,
            std::optional<Activation> activation, int threads);
inline void linear(const float* x, int n, const LinearWeight& w, float* y,
                   std::optional<Activation> activation, int threads)
{
    linear(x, n, w.in, w, 0, w.out, y, w.out, activation, threads);
}

// One product of linearTogether: all of W's columns into y (n × w.out, row stride w.out).
struct LinearTarget
{
    const LinearWeight* weight = nullptr;
    float* y = nullptr;
    std::optional<Activation> activation;
};

// linear(x, n, *t.weight, t.y, t.activation, threads) for every target, which all read the same x (n × in,
// every weight's `in`): Llama's q, k and v projections, a gated MLP's gate and up. With the own product, x
// is packed once for all of them and the threads take output panels from one list, so one product's last
// panels overlap the next one's first instead of one core waiting at the end of each. Each y is the same to
// the bit as its own linear() call's.
void linearTogether(const float* x, int n, const LinearTarget* targets, int count, int threads);

// In place over n rows of `width`: x = act(x).
void activate(float* x, qint64 count, Activation activation);

// y = LayerNorm(x) · gamma + beta, statistics per row in double. y may equal x.
void layerNorm(const float* x, float* y, int n, int width, const float* gamma, const float* beta, double eps,
               int threads);
// y = x / sqrt(mean(x²) + eps) · (gammaOffset + gamma): Llama's RMSNorm (offset 0), Gemma's (1 + w) (offset
// 1). Statistics per row in double. y may equal x.
void rmsNorm(const float* x, float* y, int n, int width, const float* gamma, double eps, int threads,
             float gammaOffset = 0.0f);

// What computes linear's products here: "OpenBLAS (SkylakeX kernels; how they were chosen)", or Eigen
// with the reason OpenBLAS is not used (openblas.h).
std::string productLibrary();

} // namespace attnscope::ops
