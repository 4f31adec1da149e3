// The CPU kernels, compiled once per instruction-set level (see cpukernels.h): into attnscope_core for
// plain x86-64, and into one module per higher level (ATTNSCOPE_CPU_KERNEL_MODULE, -march=x86-64-v3/v4).
// Everything here but the entry point has internal linkage, and this file includes no Qt: a module holds
// only this code, Eigen's and libstdc++'s templates instantiated by it, all bound inside the module.
//
// The callers (core/attention/attention.cpp, core/model/tensorops.cpp) check arguments, allocate results
// and split the work over threads; a kernel computes one piece of it on one thread.

#include "kernels/cpukernels.h"
#include "kernels/weightblocks.h"  // unpackWeightRows
#include "kernels/weightproduct.h" // weightProduct, where the module has AVX-512
#include "kernels/weightproductavx2.h" // the quantized product, where AVX2 but no weightProduct

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>
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

// S = (Q·scale)·Kᵀ, Q·scale in float (the same values on every path).
void scoresOf(RowMatrix& scores, const RowMatrix& scaledQueries, ConstRows k)
{
    scores.noalias() = scaledQueries * view(k).transpose();
}

// Keys that carry more than this share of a row's probability get their score again, exactly (exactScore).
// A float score is off by an ulp or two (1e-6 relative at |s| ≈ 10), and that error is P's relative error;
// below this share it moves P by under 2e-7 at |s| ≈ 10 (a share of 1/64 cost twice the time in
// bench_attention: more keys pass it).
constexpr double kExactScoreShare = 1.0 / 16;

// One score in double, rounded once to float. The GEMM's float dot products are summed in an order that
// follows the cell's place in Eigen's register blocking (the SSE2 kernels keep two accumulators on some rows
// and one on others), so the same score came out up to 2 ulps apart in the full pass, the tiled pass and a
// probability tile of another shape: P = exp(S − L) of a tile then disagreed with the full P by 1.5e-6 on a
// dominant key (tst_attention::probabilityTileMatchesFull on the baseline kernels). Here each product of two
// floats is exact and the double sum's rounding far below a float's half ulp, so a key that matters has the
// same score on every path, shape and level. A double product of the whole block took 2.5 to 3 times as long
// (bench_attention); a row has at most 16 keys above the share.
float exactScore(const float* scaledQuery, const float* key, int dim)
{
    // Eight running sums (lane c mod 8), added pairwise at the end: a fixed order, so the same on every
    // path, and eight independent chains instead of one (this was 15% of a tiled pass with a single one).
    double lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int c = 0;
    for (; c + 8 <= dim; c += 8)
        for (int l = 0; l < 8; ++l)
            lanes[l] += double(scaledQuery[c + l]) * double(key[c + l]);
    for (int l = 0; c < dim; ++c, ++l)
        lanes[l] += double(scaledQuery[c]) * double(key[c]);
    double s =
        ((lanes[0] + lanes[4]) + (lanes[2] + lanes[6])) + ((lanes[1] + lanes[5]) + (lanes[3] + lanes[7]));
    return float(s);
}

// Row r of `exps` holds exp(s − shift) of the row's keys and *sum their sum: the keys above
// kExactScoreShare of `total` get exp(exactScore − shift), and *sum follows.
void exactDominantScores(RowMatrix& exps, int r, const float* scaledQuery, ConstRows k, float softCap,
                         double shift, double total, double* sum)
{
    // No exp exceeds exp(0) = 1: a row spread over more than 1/kExactScoreShare of that has no key to look at
    // (the scan below cost a quarter of a pass on such rows). Soft-capped scores keep their float values:
    // the cap's vectorised float tanh errs alike on every key, which the softmax cancels; an exact score
    // next to them would not share that error (gemma2_s1 went from 0.9 to 1.9 times upstream's error).
    if (kExactScoreShare * total >= 1.0 || softCap > 0.0f) return;
    const float threshold = float(kExactScoreShare * total);
    float* row = &exps(r, 0);
    for (int c = 0; c < exps.cols(); ++c) {
        if (!(row[c] > threshold)) continue;
        const float before = row[c];
        row[c] = float(
            std::exp(double(exactScore(scaledQuery, k.data + std::ptrdiff_t(c) * k.stride, k.dim)) - shift));
        *sum += double(row[c]) - double(before);
    }
}

// The sum of n floats in double, in 16 running sums (lane i mod 16) added pairwise at the end: a fixed order
// (the same wherever the floats lie), and the compiler keeps the lanes in vector registers (with 4 lanes it
// used two and the loop waited on them). In float the sum's rounding grows with n (about 1e-6 relative over a
// few hundred keys).
double sumInDouble(const float* x, int n)
{
    constexpr int kLanes = 16;
    double lanes[kLanes] = {};
    int i = 0;
    for (; i + kLanes <= n; i += kLanes)
        for (int l = 0; l < kLanes; ++l)
            lanes[l] += double(x[i + l]);
    for (int l = 0; i < n; ++i, ++l)
        lanes[l] += double(x[i]);
    for (int width = kLanes / 2; width > 0; width /= 2)
        for (int l = 0; l < width; ++l)
            lanes[l] += lanes[l + width];
    return lanes[0];
}

// Gemma 2's soft cap on scaled scores, applied before the mask: S = c · tanh(S / c).
void softCapScores(RowMatrix& scores, float cap)
{
    if (cap > 0.0f) scores = ((scores.array() / cap).tanh() * cap).matrix();
}

// Writes `fill` into the masked cells of the block whose top-left cell is (q0, k0): the cells KeyMask::masked
// names. The causal and sliding-window rules leave each row one visible run of keys, so a row is two fills
// (a cell-by-cell test of masked() took a fifth of a decoder's pass); padding goes by cell.
// -inf into the scores before the softmax, 0 into its exps after: Eigen 3.4's SSE2 exp clamps its argument
// to about -88.4, so exp(-inf) comes out as a denormal (2.9e-39), not 0, and a masked key would keep a
// weight.
void maskCells(RowMatrix& scores, int q0, int k0, const KeyMask& mask, float fill)
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
        std::fill(row, row + begin, fill);
        std::fill(row + end, row + cols, fill);
        if (mask.keyPadding)
            for (int c = 0; c < cols; ++c)
                if (mask.keyPadding[k0 + c] == 0) row[c] = fill;
    }
}

void fullAttentionHead(ConstRows q, ConstRows k, ConstRows v, float scale, float softCap, const KeyMask* mask,
                       float* probabilitiesOut, Rows out)
{
    // Scale folded into Q, exactly as the tiled path does, so both see the same scores.
    const RowMatrix queries = view(q) * scale;
    RowMatrix scores(q.rows, k.rows); // S, (n_q, n_k)
    if (k.rows > 0) scoresOf(scores, queries, k);
    softCapScores(scores, softCap);
    const bool masked = mask && mask->any();
    if (masked) maskCells(scores, 0, 0, *mask, kNegativeInfinity);

    Eigen::Map<RowMatrix> probabilities(probabilitiesOut, q.rows, k.rows);
    Eigen::VectorXf rowMax(q.rows);
    const bool sink = mask && mask->hasSink;
    for (int i = 0; i < q.rows; ++i) {
        rowMax[i] = k.rows > 0 ? scores.row(i).maxCoeff() : kNegativeInfinity;
        if (sink) rowMax[i] = std::max(rowMax[i], mask->sink);
        if (rowMax[i] == kNegativeInfinity)
            scores.row(i).setZero(); // the row sees no key: P is 0
        else
            scores.row(i) = (scores.row(i).array() - rowMax[i]).exp().matrix();
    }
    if (masked) maskCells(scores, 0, 0, *mask, 0.0f);
    for (int i = 0; i < q.rows; ++i) {
        double sum = sumInDouble(&scores(i, 0), int(k.rows));
        if (sink) sum += std::exp(double(mask->sink) - double(rowMax[i])); // the sink's dropped column
        if (sum == 0.0) { // the row sees no key (a NaN sum goes on: the caller's finite check sees it)
            probabilities.row(i).setZero();
            continue;
        }
        exactDominantScores(scores, i, &queries(i, 0), k, softCap, rowMax[i], sum, &sum);
        probabilities.row(i) = scores.row(i) * float(1.0 / sum);
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
    const RowMatrix queries = view(q) * scale;
    // A sink starts every row as one more key seen first, its exp(sink − sink) = 1 in the sum and nothing in
    // the output (its column is dropped).
    const bool sink = mask && mask->hasSink;
    Eigen::VectorXf runningMax = Eigen::VectorXf::Constant(rows, sink ? mask->sink : kNegativeInfinity);
    // In double, as the full path's row sums.
    Eigen::VectorXd runningSum = Eigen::VectorXd::Constant(rows, sink ? 1.0 : 0.0);
    RowMatrix accumulator = RowMatrix::Zero(rows, q.dim);
    Eigen::VectorXd rescales(rows); // per row, exp(old max − new max) of the block at hand
    RowMatrix scores;
    const bool paddedOrWindowed = mask && (mask->keyPadding || mask->slidingWindow > 0);
    const bool causal = mask && mask->causal;

    for (int k0 = 0; k0 < k.rows; k0 += keyBlock) {
        const int k1 = std::min(k.rows, k0 + keyBlock);
        const ConstRows keys = firstRows(k, k0, k1 - k0);
        scoresOf(scores, queries, keys);
        softCapScores(scores, softCap);
        // Blocks left of the diagonal need no causal mask.
        const bool masked = paddedOrWindowed || (causal && k1 - 1 > firstQuery + mask->queryPositionOffset);
        if (masked) maskCells(scores, firstQuery, k0, *mask, kNegativeInfinity);

        for (int r = 0; r < rows; ++r) {
            const float blockMax = scores.row(r).maxCoeff();
            const float newMax = std::max(runningMax[r], blockMax);
            if (newMax == kNegativeInfinity) { // nothing visible yet in this row
                scores.row(r).setZero();
                rescales[r] = 1.0;
                continue;
            }
            rescales[r] =
                runningMax[r] == kNegativeInfinity ? 0.0 : std::exp(double(runningMax[r]) - double(newMax));
            scores.row(r) = (scores.row(r).array() - newMax).exp();
            runningMax[r] = newMax;
        }
        if (masked) maskCells(scores, firstQuery, k0, *mask, 0.0f);
        for (int r = 0; r < rows; ++r) {
            double blockSum = sumInDouble(&scores(r, 0), int(scores.cols()));
            // A key's share of the row so far bounds its share of the whole row (the total only grows), so
            // every key above kExactScoreShare of the finished row gets its exact score here.
            const double total = runningSum[r] * rescales[r] + blockSum;
            if (total > 0.0)
                exactDominantScores(scores, r, &queries(r, 0), keys, softCap, runningMax[r], total,
                                    &blockSum);
            runningSum[r] = runningSum[r] * rescales[r] + blockSum;
            accumulator.row(r) *= float(rescales[r]);
        }
        accumulator.noalias() += scores * view(firstRows(v, k0, k1 - k0));
    }

    View output = view(out);
    for (int r = 0; r < rows; ++r) {
        if (runningSum[r] > 0.0) {
            output.row(r) = accumulator.row(r) / float(runningSum[r]);
            logSumExp[r] = double(runningMax[r]) + std::log(runningSum[r]);
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
    const RowMatrix queries = view(q) * scale;
    RowMatrix scores;
    scoresOf(scores, queries, k);
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
        // The keys that matter with their exact scores, as the passes that made the log-sum-exp had them
        // (from half the share on: a key at the share's edge may sit on either side of it in either pass).
        if (softCap == 0.0f && run.maxCoeff() > 0.5 * kExactScoreShare)
            for (int c = 0; c < width; ++c)
                if (run[c] > 0.5 * kExactScoreShare)
                    run[c] = std::exp(double(exactScore(&queries(r, 0),
                                                        k.data + std::ptrdiff_t(c0 + c) * k.stride, k.dim)) -
                                      lse);
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

// Outputs a time: a panel of 64 rows of W unpacked (2 MiB at 8,192 inputs) stays in L2 while the product
// reads it.
constexpr int kUnpackedPanelOutputs = 64;

void unpackedWeightProduct(const float* x, int rows, int in, int xStride, const void* w, int weightType,
                           float* y, int width, int yStride)
{
#ifdef ATTNSCOPE_QUANTIZED_PRODUCT_AVX2
    ymm::quantizedProduct(x, rows, in, xStride, w, weightType, y, width, yStride);
#else
    thread_local std::vector<float> unpacked; // kept: a fresh buffer each call would be faulted in anew
    unpacked.resize(size_t(kUnpackedPanelOutputs) * size_t(in));
    const auto* base = static_cast<const unsigned char*>(w);
    for (int c0 = 0; c0 < width; c0 += kUnpackedPanelOutputs) {
        const int count = std::min(kUnpackedPanelOutputs, width - c0);
        unpackWeightRows(base + weightSpanBytes(weightType, (long long)c0 * in), weightType, in, count, 0, in,
                         unpacked.data(), in);
        product(x, rows, in, xStride, unpacked.data(), in, true, y + c0, count, yStride);
    }
#endif
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
    &unpackWeightRows,  &unpackedWeightProduct,
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
