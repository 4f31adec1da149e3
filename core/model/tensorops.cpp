#include "model/tensorops.h"

#include "kernels/cpukernelselection.h"
#include "model/openblas.h"
#include "util/parallel.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

// The arithmetic is in core/kernels (one build per instruction-set level, see cpukernels.h); this file splits
// it into blocks over threads. The projections' products are the kernels' own where the level has one
// (AVX-512), else OpenBLAS's where the build has it and it loads (openblas.h), else Eigen's.

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
        return cpu.weightProduct && cpu.weightProductPacked ? &cpu : nullptr;
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
    case WeightStorage::Q4_0:
        return kernels::kWeightQ4_0;
    case WeightStorage::Q4_1:
        return kernels::kWeightQ4_1;
    case WeightStorage::Q5_0:
        return kernels::kWeightQ5_0;
    case WeightStorage::Q5_1:
        return kernels::kWeightQ5_1;
    case WeightStorage::Q8_0:
        return kernels::kWeightQ8_0;
    case WeightStorage::Q2_K:
        return kernels::kWeightQ2_K;
    case WeightStorage::Q3_K:
        return kernels::kWeightQ3_K;
    case WeightStorage::Q4_K:
        return kernels::kWeightQ4_K;
    case WeightStorage::Q5_K:
        return kernels::kWeightQ5_K;
    case WeightStorage::Q6_K:
        return kernels::kWeightQ6_K;
    case WeightStorage::F32:
        break;
    }
    return kernels::kWeightF32;
}

// A quantized W's output columns [c0, c0 + columns) into y on `threads` threads without weightProduct:
// each thread a block of columns, W unpacked by the kernels a panel at a time (unpackedWeightProduct).
void unpackedProduct(const float* x, int n, int xStride, const LinearWeight& w, int c0, int columns,
                     float* y, int yStride, const Activation* act, int threads)
{
    if (w.layout != WeightLayout::OutIn)
        throw std::logic_error("ops::linear: quantized weights must be [out, in]");
    const kernels::CpuKernels& cpu = kernels::cpuKernels();
    const int type = weightTypeOf(w.storage);
    const char* weights = static_cast<const char*>(w.stored);
    const int blockWidth = (columns + threads - 1) / threads;
    const int blocks = (columns + blockWidth - 1) / blockWidth;
    parallelFor(blocks, threads, [&](int block) {
        const int b0 = block * blockWidth;
        const int width = std::min(columns, b0 + blockWidth) - b0;
        cpu.unpackedWeightProduct(x, n, w.in, xStride,
                                  weights + kernels::weightSpanBytes(type, qint64(c0 + b0) * w.in), type,
                                  y + b0, width, yStride);
        if (w.bias || act)
            cpu.biasActivation(y + b0, n, width, yStride, w.bias ? w.bias + c0 + b0 : nullptr, act);
    });
}

// One product's part in sharedInputProduct: W's columns [c0, c0 + columns) into y.
struct SharedProductPart
{
    const LinearWeight* w = nullptr;
    const char* weights = nullptr; // as the product reads them: stored (f16/bf16) or f32
    int weightType = kernels::kWeightF32;
    int c0 = 0;
    int columns = 0;
    float* y = nullptr;
    int yStride = 0;
    const Activation* act = nullptr;
};

// The own product on `threads` threads: x packed once (in blocks of rows, at most kSharedInputBytes) into
// a copy all of them read, then the parts' output panels handed out a few at a time from one parallelFor
// counter. Before, each thread took half of the outputs and packed the whole of x for itself: the packing
// was done twice, and whenever one core ran slower (the other process's work, an interrupt, page faults on
// the mapped weights) the other finished its half and waited: one core alone for ~16% of a
// Llama-3.2-1B-shape pass at 128 tokens (perf timeline, docs/benchmarks.md). The sums are the kernel's own,
// in the same order: y is the same to the bit. The parts all read x (their weights' `in` are equal).
void sharedInputProduct(const kernels::CpuKernels& own, const float* x, int n, int xStride,
                        const SharedProductPart* parts, int partCount, int threads)
{
    constexpr size_t kSharedInputBytes = size_t(16) << 20;
    // Kept between products, one per calling thread: a fresh allocation of megabytes is a fresh mapping,
    // its pages faulted in and cleared by the kernel every time.
    thread_local std::vector<float> packed;
    const int in = parts[0].w->in;
    const int blockRows =
        int(std::max<size_t>(64, kSharedInputBytes / (sizeof(float) * size_t(std::max(1, in)))));
    // Two panels a task: within a task the kernel prefetches the next panel's weights while it computes.
    const int taskWidth = 2 * own.productPanelOutputs();
    struct Task
    {
        int part, b0;
    };
    std::vector<Task> tasks;
    for (int p = 0; p < partCount; ++p)
        for (int b0 = 0; b0 < parts[p].columns; b0 += taskWidth)
            tasks.push_back(Task{p, b0});
    const kernels::CpuKernels& cpu = kernels::cpuKernels();
    for (int r0 = 0; r0 < n; r0 += blockRows) {
        const int rows = std::min(blockRows, n - r0);
        const size_t floats = own.packedInputFloats(rows, in);
        if (packed.size() < floats) packed.resize(floats);
        // By pointer: inside the tasks `packed` would name the running thread's own (empty) buffer.
        float* const packedInput = packed.data();
        const float* xBlock = x + qint64(r0) * xStride;
        const int tiles = own.productInputTiles(rows);
        const int tilesPerTask = std::max(1, (tiles + 2 * threads - 1) / (2 * threads));
        parallelFor((tiles + tilesPerTask - 1) / tilesPerTask, threads, [&](int task) {
            own.packProductInput(xBlock, rows, in, xStride, task * tilesPerTask,
                                 std::min(tiles, (task + 1) * tilesPerTask), packedInput);
        });
        parallelFor(int(tasks.size()), threads, [&](int task) {
            const SharedProductPart& part = parts[tasks[size_t(task)].part];
            const LinearWeight& w = *part.w;
            const bool outIn = w.layout == WeightLayout::OutIn;
            const int b0 = tasks[size_t(task)].b0;
            const int width = std::min(part.columns, b0 + taskWidth) - b0;
            const qint64 first = outIn ? qint64(part.c0 + b0) * w.in : qint64(part.c0 + b0);
            float* yBlock = part.y + qint64(r0) * part.yStride;
            own.weightProductPacked(packedInput, rows, w.in,
                                    part.weights + kernels::weightSpanBytes(part.weightType, first),
                                    part.weightType, outIn ? w.in : w.out, outIn, yBlock + b0, width,
                                    part.yStride);
            if (w.bias || part.act)
                cpu.biasActivation(yBlock + b0, rows, width, part.yStride,
                                   w.bias ? w.bias + part.c0 + b0 : nullptr, part.act);
        });
    }
}

// The part of sharedInputProduct that multiplies W's columns [c0, c0 + columns) into y.
SharedProductPart sharedProductPart(const LinearWeight& w, int c0, int columns, float* y, int yStride,
                                    const Activation* act)
{
    // Every weight type: as stored (F16/BF16: no f32 copy), and f32 too. Its shared-input product beat
    // OpenBLAS's SkylakeX sgemm for BERT-base at 512 tokens as a whole process (docs/benchmarks.md);
    // before it, each thread's half packed x again and the halves finished unevenly.
    const bool asStored = w.stored && w.storage != WeightStorage::F32;
    const char* weights = reinterpret_cast<const char*>(asStored ? w.stored : w.weight);
    if (!weights) throw std::logic_error("ops::linear: no weights");
    if (asStored && isQuantized(w.storage) && w.layout != WeightLayout::OutIn)
        throw std::logic_error("ops::linear: quantized weights must be [out, in]");
    return SharedProductPart{
        &w, weights, asStored ? weightTypeOf(w.storage) : kernels::kWeightF32, c0, columns, y, yStride, act};
}

} // namespace

bool isQuantized(WeightStorage storage)
{
    return kernels::isQuantizedWeight(weightTypeOf(storage));
}

bool readsStoredWeights()
{
    return ownProductKernels() != nullptr;
}

std::string productLibrary()
{
    if (const kernels::CpuKernels* own = ownProductKernels())
        return std::string("AttnScope's own product, f16/bf16 and quantized weights read as stored (") + own->variant +
               " kernels)";
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
    // Small products stay on one thread.
    const long long work = (long long)n * w.in * columns;
    const int wanted = work < (1LL << 18) ? 1 : threads;
    const kernels::CpuKernels* own = ownProductKernels();
    const kernels::CpuKernels& cpu = kernels::cpuKernels();
    const Activation* act = activation ? &*activation : nullptr;
    if (own) {
        const SharedProductPart part = sharedProductPart(w, c0, columns, y, yStride, act);
        sharedInputProduct(*own, x, n, xStride, &part, 1, wanted);
        return;
    }
    if (w.stored && isQuantized(w.storage)) {
        unpackedProduct(x, n, xStride, w, c0, columns, y, yStride, act, wanted);
        return;
    }
    if (!w.weight) throw std::logic_error("ops::linear: stored weights need the own product");
    // No own product (a CPU without AVX-512, or ATTNSCOPE_PRODUCT=library): OpenBLAS where it loaded, else
    // Eigen. One column block per thread: every block is a separate GEMM that packs the whole input again,
    // so more blocks cost more packing (measured: 3 blocks per thread spend ~6% of a BERT-base forward in
    // gemm_pack_lhs, one per thread ~2%).
    const OpenBlas* blas = openBlas();
    const int blockWidth = (columns + wanted - 1) / wanted;
    const int blocks = (columns + blockWidth - 1) / blockWidth;
    parallelFor(blocks, threads, [&](int block) {
        const int b0 = block * blockWidth;
        const int width = std::min(columns, b0 + blockWidth) - b0;
        if (blas) {
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

void linearTogether(const float* x, int n, const LinearTarget* targets, int count, int threads)
{
    if (n <= 0 || count <= 0) return;
    if (threads <= 0) threads = defaultThreadCount();
    const int in = targets[0].weight->in;
    for (int t = 1; t < count; ++t)
        if (targets[t].weight->in != in) throw std::logic_error("ops::linearTogether: the inputs differ");
    long long work = 0;
    for (int t = 0; t < count; ++t)
        work += (long long)n * in * targets[t].weight->out;
    const kernels::CpuKernels* own = ownProductKernels();
    if (!own || work < (1LL << 18)) { // one product at a time: the library path, or too small to share
        for (int t = 0; t < count; ++t)
            linear(x, n, *targets[t].weight, targets[t].y, targets[t].activation, threads);
        return;
    }
    std::vector<SharedProductPart> parts;
    for (int t = 0; t < count; ++t) {
        const LinearWeight& w = *targets[t].weight;
        if (w.out <= 0) continue;
        parts.push_back(sharedProductPart(w, 0, w.out, targets[t].y, w.out,
                                          targets[t].activation ? &*targets[t].activation : nullptr));
    }
    if (!parts.empty()) sharedInputProduct(*own, x, n, in, parts.data(), int(parts.size()), threads);
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
