#pragma once

// The fp32 building blocks of the forward pass. Matrices are row-major, one row per token.

#include "model/activation.h"

#include <QtGlobal>
#include <optional>
#include <string>

namespace attnscope::ops {

// How a projection's weight is stored: nn.Linear [out, in], GPT-2 Conv1D [in, out].
enum class WeightLayout { OutIn, InOut };

struct LinearWeight
{
    const float* weight = nullptr;
    const float* bias = nullptr; // may be null
    int in = 0;
    int out = 0;
    WeightLayout layout = WeightLayout::OutIn;
};

// y[:, 0:c1-c0] = act(x · W[:, c0:c1] + b[c0:c1]) for the output columns [c0, c1) of the projection.
// x is n × w.in with row stride xStride; y is n × (c1−c0) with row stride yStride.
// Work is split over output columns on `threads` threads (each block one GEMM: OpenBLAS's sgemm where the
// build has it and it runs on this CPU, else the CPU kernels' Eigen product).
void linear(const float* x, int n, int xStride, const LinearWeight& w, int c0, int c1, float* y, int yStride,
            std::optional<Activation> activation, int threads);
inline void linear(const float* x, int n, const LinearWeight& w, float* y,
                   std::optional<Activation> activation, int threads)
{
    linear(x, n, w.in, w, 0, w.out, y, w.out, activation, threads);
}

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
