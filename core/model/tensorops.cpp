#include "model/tensorops.h"

#include "util/parallel.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <mutex>
#include <unsupported/Eigen/SpecialFunctions>

#ifdef ATTNSCOPE_HAVE_OPENBLAS
// The Fortran BLAS interface (column-major), declared here so that no cblas header is needed.
extern "C" void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                       const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
                       const float* beta, float* c, const int* ldc);
extern "C" void openblas_set_num_threads(int threads);
#endif

namespace attnscope::ops {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Stride = Eigen::OuterStride<>;
using ConstRowView = Eigen::Map<const RowMatrix, 0, Stride>;
using RowView = Eigen::Map<RowMatrix, 0, Stride>;

void activateBlock(RowView block, Activation activation)
{
    auto a = block.array();
    switch (activation) {
    case Activation::GeluErf: // 0.5·x·(1 + erf(x/√2))
        a = 0.5f * a * (1.0f + (a * float(M_SQRT1_2)).erf());
        break;
    case Activation::GeluTanh: // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
        a = 0.5f * a * (1.0f + (0.7978845608028654f * (a + 0.044715f * a.cube())).tanh());
        break;
    case Activation::Relu:
        a = a.max(0.0f);
        break;
    case Activation::Silu: // x·σ(x)
        a = a * (1.0f + (-a).exp()).inverse();
        break;
    }
}

#ifdef ATTNSCOPE_HAVE_OPENBLAS
// y (n × width, row-major, stride yStride) = x (n × in, stride xStride) · W-block, via column-major sgemm
// on the transposes: yᵀ = Wᵀ-block · xᵀ. OutIn: W is [out, in], the block is its rows [col, col+width).
// InOut: W is [in, out], the block is its columns [col, col+width).
void blasProduct(const float* x, int n, int xStride, const LinearWeight& w, int col, int width, float* y,
                 int yStride)
{
    // Each column block already runs on its own thread (parallelFor): OpenBLAS must not start more.
    static std::once_flag singleThreaded;
    std::call_once(singleThreaded, [] { openblas_set_num_threads(1); });
    const float one = 1.0f, zero = 0.0f;
    const int in = w.in;
    if (w.layout == WeightLayout::OutIn) {
        const int lda = w.in;
        sgemm_("T", "N", &width, &n, &in, &one, w.weight + qint64(col) * w.in, &lda, x, &xStride, &zero, y,
               &yStride);
    } else {
        const int lda = w.out;
        sgemm_("N", "N", &width, &n, &in, &one, w.weight + col, &lda, x, &xStride, &zero, y, &yStride);
    }
}
#endif

} // namespace

void activate(float* x, qint64 count, Activation activation)
{
    activateBlock(RowView(x, 1, Eigen::Index(count), Stride(Eigen::Index(count))), activation);
}

void linear(const float* x, int n, int xStride, const LinearWeight& w, int c0, int c1, float* y, int yStride,
            std::optional<Activation> activation, int threads)
{
    const int columns = c1 - c0;
    if (n <= 0 || columns <= 0) return;
    if (threads <= 0) threads = defaultThreadCount();
    // One column block per thread: every block is a separate GEMM that packs the whole input again,
    // so more blocks cost more packing (measured: 3 blocks per thread spend ~6% of a BERT-base forward in
    // gemm_pack_lhs, one per thread ~2%). Small products stay on one thread.
    const long long work = (long long)n * w.in * columns;
    const int wanted = work < (1LL << 18) ? 1 : threads;
    int blockWidth = std::max(16, (columns + wanted - 1) / wanted);
    blockWidth = (blockWidth + 15) / 16 * 16;
    const int blocks = (columns + blockWidth - 1) / blockWidth;

    parallelFor(blocks, threads, [&](int block) {
        const int b0 = block * blockWidth;
        const int width = std::min(columns, b0 + blockWidth) - b0;
        RowView out(y + b0, n, width, Stride(yStride));
#ifdef ATTNSCOPE_HAVE_OPENBLAS
        blasProduct(x, n, xStride, w, c0 + b0, width, y + b0, yStride);
#else
        const ConstRowView input(x, n, w.in, Stride(xStride));
        if (w.layout == WeightLayout::OutIn) {
            // W is [out, in]: rows c0+b0 .. of W, transposed.
            const ConstRowView weight(w.weight + qint64(c0 + b0) * w.in, width, w.in, Stride(w.in));
            out.noalias() = input * weight.transpose();
        } else {
            const ConstRowView weight(w.weight + (c0 + b0), w.in, width, Stride(w.out));
            out.noalias() = input * weight;
        }
#endif
        if (w.bias) out.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(w.bias + c0 + b0, width);
        if (activation) activateBlock(out, *activation);
    });
}

void layerNorm(const float* x, float* y, int n, int width, const float* gamma, const float* beta, double eps,
               int threads)
{
    const int rowsPerTask = 16;
    parallelFor((n + rowsPerTask - 1) / rowsPerTask, threads, [&](int task) {
        for (int r = task * rowsPerTask; r < std::min(n, (task + 1) * rowsPerTask); ++r) {
            const float* in = x + qint64(r) * width;
            float* out = y + qint64(r) * width;
            double mean = 0;
            for (int c = 0; c < width; ++c)
                mean += in[c];
            mean /= width;
            double variance = 0;
            for (int c = 0; c < width; ++c)
                variance += (in[c] - mean) * (in[c] - mean);
            variance /= width;
            const double inverse = 1.0 / std::sqrt(variance + eps);
            for (int c = 0; c < width; ++c)
                out[c] = float((in[c] - mean) * inverse) * gamma[c] + (beta ? beta[c] : 0.0f);
        }
    });
}

void rmsNorm(const float* x, float* y, int n, int width, const float* gamma, double eps, int threads,
             float gammaOffset)
{
    const int rowsPerTask = std::max(16, 4096 / std::max(1, width)); // QK-norm: many short rows
    parallelFor((n + rowsPerTask - 1) / rowsPerTask, threads, [&](int task) {
        for (int r = task * rowsPerTask; r < std::min(n, (task + 1) * rowsPerTask); ++r) {
            const float* in = x + qint64(r) * width;
            float* out = y + qint64(r) * width;
            double sumSquares = 0;
            for (int c = 0; c < width; ++c)
                sumSquares += double(in[c]) * in[c];
            const double inverse = 1.0 / std::sqrt(sumSquares / width + eps);
            for (int c = 0; c < width; ++c)
                out[c] = (gammaOffset + gamma[c]) * float(in[c] * inverse);
        }
    });
}

} // namespace attnscope::ops
