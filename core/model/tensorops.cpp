#include "model/tensorops.h"

#include "kernels/cpukernelselection.h"
#include "model/openblas.h"
#include "util/parallel.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

// The arithmetic is in core/kernels (one build per instruction-set level, see cpukernels.h); this file splits
// it into blocks over threads. OpenBLAS, where the build has it and it loads, computes the products
// (openblas.h).

namespace attnscope::ops {

namespace {

// y (n × width, row-major, stride yStride) = x (n × in, stride xStride) · W-block, via column-major sgemm
// on the transposes: yᵀ = Wᵀ-block · xᵀ. OutIn: W is [out, in], the block is its rows [col, col+width).
// InOut: W is [in, out], the block is its columns [col, col+width).
// (OpenBLAS runs single-threaded: each column block already has a thread of its own, see openblas.cpp.)
void blasProduct(const OpenBlas& blas, const float* x, int n, int xStride, const LinearWeight& w, int col,
                 int width, float* y, int yStride)
{
    const float one = 1.0f, zero = 0.0f;
    const int in = w.in;
    if (w.layout == WeightLayout::OutIn) {
        const int lda = w.in;
        blas.sgemm("T", "N", &width, &n, &in, &one, w.weight + qint64(col) * w.in, &lda, x, &xStride, &zero,
                   y, &yStride);
    } else {
        const int lda = w.out;
        blas.sgemm("N", "N", &width, &n, &in, &one, w.weight + col, &lda, x, &xStride, &zero, y, &yStride);
    }
}

// The kernels' weightProduct, unless absent or ATTNSCOPE_PRODUCT=library asks for the library path.
const kernels::CpuKernels* ownProductKernels()
{
    static const kernels::CpuKernels* const chosen = []() -> const kernels::CpuKernels* {
        const char* choice = std::getenv("ATTNSCOPE_PRODUCT");
        if (choice && std::strcmp(choice, "library") == 0) return nullptr;
        const kernels::CpuKernels& cpu = kernels::cpuKernels();
        return cpu.weightProduct ? &cpu : nullptr;
    }();
    return chosen;
}

int weightTypeOf(WeightStorage storage)
{
    switch (storage) {
    case WeightStorage::F16:
        return kernels::kWeightF16;
    case WeightStorage::BF16:
        return kernels::kWeightBF16;
    case WeightStorage::F32:
        break;
    }
    return kernels::kWeightF32;
}

} // namespace

bool readsStoredWeights()
{
    return ownProductKernels() != nullptr;
}

std::string productLibrary()
{
    if (const kernels::CpuKernels* own = ownProductKernels())
        return std::string("f16/bf16 weights: AttnScope's own product, as stored (") + own->variant +
               " kernels); f32 weights: " + (openBlas() ? openBlasDescription() : "the same product");
    return openBlasDescription();
}

void activate(float* x, qint64 count, Activation activation)
{
    // One row of `count` values for the kernel; longer runs go in int-sized pieces.
    const kernels::CpuKernels& cpu = kernels::cpuKernels();
    for (qint64 done = 0; done < count;) {
        const int piece = int(std::min<qint64>(count - done, 1 << 30));
        cpu.biasActivation(x + done, 1, piece, piece, nullptr, &activation);
        done += piece;
    }
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
    const OpenBlas* blas = openBlas();
    const kernels::CpuKernels* own = ownProductKernels();
    // The own kernel for weights as stored (F16/BF16); f32 weights go to OpenBLAS where it loaded: its
    // SkylakeX sgemm is faster than ours at 512 rows and as fast at 128 (bench_gemm), ours wins where it
    // saves the conversion, and over Eigen.
    const bool asStored = own && w.stored && w.storage != WeightStorage::F32;
    if (own && !asStored && blas) own = nullptr;
    const int granule = 16; // own: its last panel of a block may be 16 or 32 of its 48 outputs wide
    int blockWidth = std::max(granule, (columns + wanted - 1) / wanted);
    blockWidth = (blockWidth + granule - 1) / granule * granule;
    const int blocks = (columns + blockWidth - 1) / blockWidth;
    const kernels::CpuKernels& cpu = kernels::cpuKernels();
    const Activation* act = activation ? &*activation : nullptr;
    // The weights the own kernel reads, and their element size.
    const char* ownWeights = reinterpret_cast<const char*>(asStored ? w.stored : w.weight);
    const int ownType = asStored ? weightTypeOf(w.storage) : kernels::kWeightF32;
    const qint64 elementBytes = ownType == kernels::kWeightF32 ? 4 : 2;
    if (!ownWeights && !w.weight) throw std::logic_error("ops::linear: no weights");
    if (!own && !w.weight) throw std::logic_error("ops::linear: stored weights need the own product");

    parallelFor(blocks, threads, [&](int block) {
        const int b0 = block * blockWidth;
        const int width = std::min(columns, b0 + blockWidth) - b0;
        if (own) {
            const bool outIn = w.layout == WeightLayout::OutIn;
            const qint64 first = outIn ? qint64(c0 + b0) * w.in : qint64(c0 + b0);
            own->weightProduct(x, n, w.in, xStride, ownWeights + first * elementBytes, ownType,
                               outIn ? w.in : w.out, outIn, y + b0, width, yStride);
        } else if (blas) {
            blasProduct(*blas, x, n, xStride, w, c0 + b0, width, y + b0, yStride);
        } else if (w.layout == WeightLayout::OutIn) { // W is [out, in]: rows c0+b0 .. of W, transposed
            cpu.product(x, n, w.in, xStride, w.weight + qint64(c0 + b0) * w.in, w.in, true, y + b0, width,
                        yStride);
        } else {
            cpu.product(x, n, w.in, xStride, w.weight + (c0 + b0), w.out, false, y + b0, width, yStride);
        }
        if (w.bias || act)
            cpu.biasActivation(y + b0, n, width, yStride, w.bias ? w.bias + c0 + b0 : nullptr, act);
    });
}

void layerNorm(const float* x, float* y, int n, int width, const float* gamma, const float* beta, double eps,
               int threads)
{
    const int rowsPerTask = 16;
    const kernels::CpuKernels& cpu = kernels::cpuKernels();
    parallelFor((n + rowsPerTask - 1) / rowsPerTask, threads, [&](int task) {
        const int r0 = task * rowsPerTask, rows = std::min(n, r0 + rowsPerTask) - r0;
        cpu.layerNormRows(x + qint64(r0) * width, y + qint64(r0) * width, rows, width, gamma, beta, eps);
    });
}

void rmsNorm(const float* x, float* y, int n, int width, const float* gamma, double eps, int threads,
             float gammaOffset)
{
    const int rowsPerTask = std::max(16, 4096 / std::max(1, width)); // QK-norm: many short rows
    const kernels::CpuKernels& cpu = kernels::cpuKernels();
    parallelFor((n + rowsPerTask - 1) / rowsPerTask, threads, [&](int task) {
        const int r0 = task * rowsPerTask, rows = std::min(n, r0 + rowsPerTask) - r0;
        cpu.rmsNormRows(x + qint64(r0) * width, y + qint64(r0) * width, rows, width, gamma, eps, gammaOffset);
    });
}

} // namespace attnscope::ops
