// The CPU kernels, compiled once per instruction-set level (see cpukernels.h): into attnscope_core for
// plain x86-64, and into one module per higher level (ATTNSCOPE_CPU_KERNEL_MODULE, -march=x86-64-v3/v4).
// Everything here but the entry point has internal linkage, and this file includes no Qt: a module holds
// only this code, Eigen's and libstdc++'s templates instantiated by it, all bound inside the module.
//
// The callers (core/attention/attention.cpp, core/model/tensorops.cpp) check arguments, allocate results
// and split the work over threads; a kernel computes one piece of it on one thread.

#include "kernels/cpukernels.h"
#include "kernels/weightproduct.h" // weightProduct, where the module has AVX-512

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <unsupported/Eigen/SpecialFunctions>
#if defined(__AVX__)
#include <immintrin.h>
#endif

#ifndef ATTNSCOPE_CPU_KERNEL_VARIANT
#error "ATTNSCOPE_CPU_KERNEL_VARIANT (baseline, avx2, avx512, native) is set by the build"
#endif

namespace attnscope::kernels {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Stride = Eigen::OuterStride<>;
using ConstView = Eigen::Map<const RowMatrix, 0, Stride>;
using View = Eigen::Map<RowMatrix, 0, Stride>;

constexpr float kNegativeInfinity = -std::numeric_limits<float>::infinity();

ConstView view(ConstRows x)
{
    return ConstView(x.data, x.rows, x.dim, Stride(x.stride));
}

View view(Rows x)
{
    return View(x.data, x.rows, x.dim, Stride(x.stride));
}

ConstRows firstRows(ConstRows x, int first, int count)
{
    return {x.data + std::ptrdiff_t(first) * x.stride, count, x.dim, x.stride};
}

// Gemma 2's soft cap on scaled scores, applied before the mask: S = c · tanh(S / c).
void softCapScores(RowMatrix& scores, float cap)
{
    if (cap > 0.0f) scores = ((scores.array() / cap).tanh() * cap).matrix();
}

// Writes -inf into the masked cells of the score block whose top-left cell is (q0, k0): the cells
// KeyMask::masked names. The causal and sliding-window rules leave each row one visible run of keys, so a row
// is two fills (a cell-by-cell test of masked() took a fifth of a decoder's pass); padding goes by cell.
void maskScores(RowMatrix& scores, int q0, int k0, const KeyMask& mask)
{
    const int cols = int(scores.cols());
    for (int r = 0; r < scores.rows(); ++r) {
        const long long query = (long long)q0 + r + mask.queryPositionOffset; // its position among the keys
        // Visible keys of this row, relative to k0: [begin, end).
        long long begin = 0, end = cols;
        if (mask.causal) end = std::clamp<long long>(query - k0 + 1, 0, cols);
        if (mask.slidingWindow > 0)
            begin = std::clamp<long long>(query - mask.slidingWindow + 1 - k0, 0, cols);
        float* row = &scores(r, 0);
        std::fill(row, row + begin, kNegativeInfinity);
        std::fill(row + end, row + cols, kNegativeInfinity);
        if (mask.keyPadding)
            for (int c = 0; c < cols; ++c)
                if (mask.keyPadding[k0 + c] == 0) row[c] = kNegativeInfinity;
    }
}

void fullAttentionHead(ConstRows q, ConstRows k, ConstRows v, float scale, float softCap, const KeyMask* mask,
                       float* probabilitiesOut, Rows out)
{
    RowMatrix scores(q.rows, k.rows); // S, (n_q, n_k)
    if (k.rows > 0)
        // Scale folded into Q, exactly as the tiled path does, so both see bit-identical scores.
        scores.noalias() = RowMatrix(view(q) * scale) * view(k).transpose();
    softCapScores(scores, softCap);
    if (mask && mask->any()) maskScores(scores, 0, 0, *mask);

    Eigen::Map<RowMatrix> probabilities(probabilitiesOut, q.rows, k.rows);
    for (int i = 0; i < q.rows; ++i) {
        const float rowMax = k.rows > 0 ? scores.row(i).maxCoeff() : kNegativeInfinity;
        if (rowMax == kNegativeInfinity) {
            probabilities.row(i).setZero(); // the row sees no key: P is 0
            continue;
        }
        // Summed in `scores` (Eigen's own, aligned storage), not in the caller's buffer: a vectorised sum
        // starts with the elements before the first aligned packet, so its rounding would follow where the
        // caller's allocation happened to land, and two runs of the same input could differ in the last bit.
        scores.row(i) = (scores.row(i).array() - rowMax).exp().matrix();
        probabilities.row(i) = scores.row(i) / scores.row(i).sum();
    }
    if (k.rows > 0)
        view(out).noalias() = probabilities * view(v);
    else
        view(out).setZero();
}

// FlashAttention's inner loop: per query row the running max m, the running sum l of exp(s − m) and the
// unnormalised output; only a (rows, keyBlock) score tile exists at a time.
void tiledAttentionBlock(ConstRows q, int firstQuery, ConstRows k, ConstRows v, int keyBlock, float scale,
                         float softCap, const KeyMask* mask, Rows out, double* logSumExp)
{
    const int rows = q.rows;
    const RowMatrix scaledQueries = view(q) * scale;
    Eigen::VectorXf runningMax = Eigen::VectorXf::Constant(rows, kNegativeInfinity);
    Eigen::VectorXf runningSum = Eigen::VectorXf::Zero(rows);
    RowMatrix accumulator = RowMatrix::Zero(rows, q.dim);
    RowMatrix scores;
    const bool paddedOrWindowed = mask && (mask->keyPadding || mask->slidingWindow > 0);
    const bool causal = mask && mask->causal;

    for (int k0 = 0; k0 < k.rows; k0 += keyBlock) {
        const int k1 = std::min(k.rows, k0 + keyBlock);
        scores.noalias() = scaledQueries * view(firstRows(k, k0, k1 - k0)).transpose();
        softCapScores(scores, softCap);
        // Blocks left of the diagonal need no causal mask.
        if (paddedOrWindowed || (causal && k1 - 1 > firstQuery + mask->queryPositionOffset))
            maskScores(scores, firstQuery, k0, *mask);

        for (int r = 0; r < rows; ++r) {
            const float blockMax = scores.row(r).maxCoeff();
            const float newMax = std::max(runningMax[r], blockMax);
            if (newMax == kNegativeInfinity) { // nothing visible yet in this row
                scores.row(r).setZero();
                continue;
            }
            const float rescale =
                runningMax[r] == kNegativeInfinity ? 0.0f : std::exp(runningMax[r] - newMax);
            scores.row(r) = (scores.row(r).array() - newMax).exp();
            runningSum[r] = runningSum[r] * rescale + scores.row(r).sum();
            accumulator.row(r) *= rescale;
            runningMax[r] = newMax;
        }
        accumulator.noalias() += scores * view(firstRows(v, k0, k1 - k0));
    }

    View output = view(out);
    for (int r = 0; r < rows; ++r) {
        if (runningSum[r] > 0.0f) {
            output.row(r) = accumulator.row(r) / runningSum[r];
            logSumExp[r] = double(runningMax[r]) + std::log(double(runningSum[r]));
        } else {
            output.row(r).setZero();
            logSumExp[r] = -std::numeric_limits<double>::infinity();
        }
    }
}

void probabilityTile(ConstRows q, int firstQuery, ConstRows k, int firstKey, const double* logSumExp,
                     float scale, float softCap, const KeyMask* mask, float* tileOut)
{
    const int rows = q.rows, cols = k.rows;
    Eigen::Map<RowMatrix> tile(tileOut, rows, cols);
    tile.setZero();
    if (rows == 0 || cols == 0) return;
    const RowMatrix scaledQueries = view(q) * scale;
    RowMatrix scores = scaledQueries * view(k).transpose();
    softCapScores(scores, softCap);
    // exp in double, as before, but a row at a time through Eigen's vectorised exp (a libm call per cell was
    // 14% of a BERT-base pass at 512 tokens), and only over the columns the causal mask and the sliding
    // window leave visible: they are one contiguous run per row.
    Eigen::ArrayXd shifted(cols);
    for (int r = 0; r < rows; ++r) {
        const double lse = logSumExp[r];
        if (std::isinf(lse)) continue;
        int c0 = 0, c1 = cols; // visible columns [c0, c1)
        if (mask) {
            const int position = firstQuery + r + mask->queryPositionOffset;
            if (mask->causal) c1 = std::min(c1, position - firstKey + 1);
            if (mask->slidingWindow > 0) c0 = std::max(c0, position - mask->slidingWindow + 1 - firstKey);
        }
        if (c1 <= c0) continue;
        const int width = c1 - c0;
        auto run = shifted.head(width);
        run = scores.row(r).segment(c0, width).transpose().array().cast<double>() - lse;
        run = run.exp();
        tile.row(r).segment(c0, width) = run.cast<float>().transpose().matrix();
        if (mask && mask->keyPadding)
            for (int c = c0; c < c1; ++c)
                if (mask->keyPadding[firstKey + c] == 0) tile(r, c) = 0.0f;
    }
}

void product(const float* x, int rows, int in, int xStride, const float* w, int wStride, bool weightIsOutIn,
             float* y, int width, int yStride)
{
    const ConstView input(x, rows, in, Stride(xStride));
    View out(y, rows, width, Stride(yStride));
    if (weightIsOutIn)
        out.noalias() = input * ConstView(w, width, in, Stride(wStride)).transpose();
    else
        out.noalias() = input * ConstView(w, in, width, Stride(wStride));
}

void biasActivation(float* y, int rows, int width, int yStride, const float* bias,
                    const Activation* activation)
{
    // Row by row as contiguous arrays: on the strided block (`block.rowwise() += bias`) Eigen added
    // the bias one float at a time, 80% of this function's samples and 5% of a BERT-base pass (perf).
    // The sums are the same either way; only the instructions differ.
    const Eigen::Map<const Eigen::ArrayXf> biasRow(bias, bias ? width : 0);
    if (!activation || *activation == Activation::Relu) {
        if (bias)
            for (int r = 0; r < rows; ++r)
                Eigen::Map<Eigen::ArrayXf>(y + std::ptrdiff_t(r) * yStride, width) += biasRow;
        if (activation)
            for (int r = 0; r < rows; ++r) {
                Eigen::Map<Eigen::ArrayXf> row(y + std::ptrdiff_t(r) * yStride, width);
                row = row.max(0.0f);
            }
        return;
    }
    // The transcendental activations run on a copy of the row in Eigen's own, aligned storage: on the
    // caller's rows Eigen would compute the elements before the first aligned packet with the scalar
    // exp/erf/tanh and the rest with the vectorised ones, which round differently, so the result would
    // follow where the allocation happened to land and two runs of one input could differ in the last bit.
    Eigen::ArrayXf row(width);
    for (int r = 0; r < rows; ++r) {
        float* values = y + std::ptrdiff_t(r) * yStride;
        if (bias)
            row = Eigen::Map<const Eigen::ArrayXf>(values, width) + biasRow;
        else
            row = Eigen::Map<const Eigen::ArrayXf>(values, width);
        switch (*activation) {
        case Activation::GeluErf: // 0.5·x·(1 + erf(x/√2))
            row = 0.5f * row * (1.0f + (row * float(M_SQRT1_2)).erf());
            break;
        case Activation::GeluTanh: // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
            row = 0.5f * row * (1.0f + (0.7978845608028654f * (row + 0.044715f * row.cube())).tanh());
            break;
        case Activation::Silu: // x·σ(x)
            row = row * (1.0f + (-row).exp()).inverse();
            break;
        case Activation::Relu:
            break;
        }
        Eigen::Map<Eigen::ArrayXf>(values, width) = row;
    }
}

void layerNormRows(const float* x, float* y, int rows, int width, const float* gamma, const float* beta,
                   double eps)
{
    Eigen::ArrayXd values(width); // the row in double (y may be x: layerNormHeads normalises in place)
    for (int r = 0; r < rows; ++r) {
        const float* in = x + std::ptrdiff_t(r) * width;
        float* out = y + std::ptrdiff_t(r) * width;
        // The statistics in double as before, but as Eigen's vectorised sums: one double at a time they
        // were 2.3% of a BERT-base pass (perf). Only the order of the double additions changed.
        values = Eigen::Map<const Eigen::ArrayXf>(in, width).cast<double>();
        const double mean = values.sum() / width;
        const double variance = (values - mean).square().sum() / width;
        const double inverse = 1.0 / std::sqrt(variance + eps);
        for (int c = 0; c < width; ++c)
            out[c] = float((values[c] - mean) * inverse) * gamma[c] + (beta ? beta[c] : 0.0f);
    }
}

void rmsNormRows(const float* x, float* y, int rows, int width, const float* gamma, double eps,
                 float gammaOffset)
{
    for (int r = 0; r < rows; ++r) {
        const float* in = x + std::ptrdiff_t(r) * width;
        float* out = y + std::ptrdiff_t(r) * width;
        double sumSquares = 0;
        for (int c = 0; c < width; ++c)
            sumSquares += double(in[c]) * in[c];
        const double inverse = 1.0 / std::sqrt(sumSquares / width + eps);
        for (int c = 0; c < width; ++c)
            out[c] = (gammaOffset + gamma[c]) * float(in[c] * inverse);
    }
}

void clearUpperVectorState()
{
#if defined(__AVX__)
    _mm256_zeroupper();
#endif
}

// Constant-initialised (no constructor runs when a module is loaded).
constexpr CpuKernels kTable = {
    kCpuKernelsAbi,     ATTNSCOPE_CPU_KERNEL_VARIANT,
    &fullAttentionHead, &tiledAttentionBlock,
    &probabilityTile,   &product,
#ifdef ATTNSCOPE_WEIGHT_PRODUCT
    &weightProduct,     &packedInputFloats,
    &productInputTiles, &productPanelOutputs,
    &packProductInput,  &weightProductPacked,
#else
    nullptr,            nullptr,
    nullptr,            nullptr,
    nullptr,            nullptr,
#endif
    &biasActivation,    &layerNormRows,
    &rmsNormRows,       &clearUpperVectorState,
};

} // namespace

} // namespace attnscope::kernels

#ifdef ATTNSCOPE_CPU_KERNEL_MODULE
extern "C" __attribute__((visibility("default"))) const attnscope::kernels::CpuKernels*
attnscope_cpu_kernels()
#else
extern "C" const attnscope::kernels::CpuKernels* attnscope_cpu_kernels_builtin()
#endif
{
    return &attnscope::kernels::kTable;
}
