// The quantized GGUF types multiplied as stored (issue 32): at every kernel level this build has and this
// CPU runs, CpuKernels::unpackWeightRows gives the values of the GGUF reader's dequantizer
// (model/ggmlquants.cpp, checked against hand-computed blocks in tst_gguf) bit for bit, and
// unpackedWeightProduct and weightProduct (where the level has it) give y within float32 rounding of a
// float64 product of those dequantized weights. Activations stay float32: nothing is quantized but W.

#include "core/support/kernelvariantrows.h"
#include "core/support/productcheck.h"
#include "kernels/cpukernelselection.h"
#include "model/ggmlquants.h"

#include <QtTest>
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

using namespace attnscope;
using namespace attnscope::kernels;

namespace {

struct QuantType
{
    int kernelType;
    GgmlType ggml;
    const char* name;
    std::vector<int> halfOffsets; // where a block keeps its f16 scales
};

const std::vector<QuantType>& quantTypes()
{
    static const std::vector<QuantType> types = {
        {kWeightQ4_0, GgmlType::Q4_0, "Q4_0", {0}},    {kWeightQ4_1, GgmlType::Q4_1, "Q4_1", {0, 2}},
        {kWeightQ5_0, GgmlType::Q5_0, "Q5_0", {0}},    {kWeightQ5_1, GgmlType::Q5_1, "Q5_1", {0, 2}},
        {kWeightQ8_0, GgmlType::Q8_0, "Q8_0", {0}},    {kWeightQ2_K, GgmlType::Q2_K, "Q2_K", {80, 82}},
        {kWeightQ3_K, GgmlType::Q3_K, "Q3_K", {108}},  {kWeightQ4_K, GgmlType::Q4_K, "Q4_K", {0, 2}},
        {kWeightQ5_K, GgmlType::Q5_K, "Q5_K", {0, 2}}, {kWeightQ6_K, GgmlType::Q6_K, "Q6_K", {208}},
    };
    return types;
}

// rows × in weights of random blocks: random quant bytes, f16 scales of magnitude 2^-10..2^-4.
std::vector<unsigned char> randomBlocks(const QuantType& t, int rows, int in, std::mt19937& random)
{
    const WeightBlock block = weightBlock(t.kernelType);
    const size_t blocks = size_t(rows) * size_t(in / block.elements);
    std::vector<unsigned char> bytes(blocks * size_t(block.bytes));
    std::uniform_int_distribution<int> byte(0, 255), exponent(5, 11), mantissa(0, 1023), sign(0, 1);
    for (unsigned char& b : bytes)
        b = static_cast<unsigned char>(byte(random));
    for (size_t i = 0; i < blocks; ++i)
        for (const int offset : t.halfOffsets) {
            const auto h = std::uint16_t(sign(random) << 15 | exponent(random) << 10 | mantissa(random));
            std::memcpy(&bytes[i * size_t(block.bytes) + size_t(offset)], &h, 2);
        }
    return bytes;
}

std::vector<float> readerValues(const QuantType& t, const std::vector<unsigned char>& bytes, int rows, int in)
{
    std::vector<float> values(size_t(rows) * size_t(in));
    const long long rowBytes = weightSpanBytes(t.kernelType, in);
    for (int r = 0; r < rows; ++r)
        dequantizeRow(t.ggml, bytes.data() + r * rowBytes, values.data() + size_t(r) * size_t(in), in);
    return values;
}

} // namespace

class TestQuantizedProduct : public QObject
{
    Q_OBJECT
private slots:
    void levels_data()
    {
        addKernelVariantRows();
    }

    void unpacksAsTheReaderDequantizes_data() { levels_data(); }
    void unpacksAsTheReaderDequantizes()
    {
        FETCH_KERNELS_OR_SKIP(kernels);
        QVERIFY(kernels->unpackWeightRows);
        std::mt19937 random(32);
        for (const QuantType& t : quantTypes()) {
            const int rows = 5, in = 1536; // 6 K-blocks, 48 small blocks a row
            const std::vector<unsigned char> bytes = randomBlocks(t, rows, in, random);
            const std::vector<float> truth = readerValues(t, bytes, rows, in);
            // The whole rows, then a span inside them (k0, kc whole blocks), into a padded buffer.
            const int block = weightBlock(t.kernelType).elements;
            for (const auto& [k0, kc] : {std::pair{0, in}, std::pair{2 * 256, 256 + block}}) {
                const int outStride = kc + 3;
                std::vector<float> out(size_t(rows) * size_t(outStride), 777.0f);
                kernels->unpackWeightRows(bytes.data(), t.kernelType, in, rows, k0, kc, out.data(),
                                          outStride);
                for (int r = 0; r < rows; ++r)
                    for (int k = 0; k < outStride; ++k) {
                        const float got = out[size_t(r) * size_t(outStride) + size_t(k)];
                        const float want = k < kc ? truth[size_t(r) * size_t(in) + size_t(k0 + k)] : 777.0f;
                        if (std::memcmp(&got, &want, sizeof got) != 0)
                            QFAIL(qPrintable(QStringLiteral("%1 row %2 element %3: %4, the reader %5")
                                                 .arg(QLatin1String(t.name))
                                                 .arg(r)
                                                 .arg(k0 + k)
                                                 .arg(double(got), 0, 'g', 9)
                                                 .arg(double(want), 0, 'g', 9)));
                    }
            }
        }
    }

    // weightProduct's panels unpacked from the blocks hold the reader's values: y is the same to the bit as
    // weightProduct's y for the reader's dequantized weights stored as F32 (the same panels, the same sums
    // in the same order). Shapes cross the 16-output groups the blocks are unpacked in, the 48-wide panels,
    // the 256-input staging and the 1,024-deep k blocks.
    void weightProductPanelsHoldTheReaderValues_data() { levels_data(); }
    void weightProductPanelsHoldTheReaderValues()
    {
        QFETCH(QString, variant);
        QString error;
        const CpuKernelChoice choice = loadCpuKernelVariant(variant, &error);
        if (!choice.kernels) QSKIP("this CPU lacks the level");
        const CpuKernels& cpu = *choice.kernels;
        if (!cpu.weightProduct)
            QSKIP("the level has no weightProduct (its quantized product is tested below)");
        std::mt19937 random(3232);
        for (const QuantType& t : quantTypes())
            for (const auto& [rows, in, width] :
                 {std::tuple{9, 1280, 49}, std::tuple{70, 2304, 130}, std::tuple{1, 256, 17}}) {
                const std::vector<unsigned char> w = randomBlocks(t, width, in, random);
                const std::vector<float> values = readerValues(t, w, width, in);
                std::normal_distribution<float> normal(0.0f, 1.0f);
                std::vector<float> x(size_t(rows) * size_t(in));
                for (float& v : x)
                    v = normal(random);
                std::vector<float> fromBlocks(size_t(rows) * size_t(width)), fromValues(fromBlocks.size());
                cpu.weightProduct(x.data(), rows, in, in, w.data(), t.kernelType, in, true, fromBlocks.data(),
                                  width, width);
                cpu.weightProduct(x.data(), rows, in, in, values.data(), kWeightF32, in, true,
                                  fromValues.data(), width, width);
                for (size_t i = 0; i < fromBlocks.size(); ++i)
                    if (std::memcmp(&fromBlocks[i], &fromValues[i], sizeof(float)) != 0)
                        QFAIL(qPrintable(QStringLiteral("%1 rows %2 in %3 width %4: y[%5][%6] = %7 from the "
                                                        "blocks, %8 from the reader's values")
                                             .arg(QLatin1String(t.name))
                                             .arg(rows)
                                             .arg(in)
                                             .arg(width)
                                             .arg(i / size_t(width))
                                             .arg(i % size_t(width))
                                             .arg(double(fromBlocks[i]), 0, 'g', 9)
                                             .arg(double(fromValues[i]), 0, 'g', 9)));
            }
    }

    // y = x · Wᵀ, W [width, in] quantized, against Σ x·w in double over the reader's values: within
    // float32 rounding (the bound tst_weightproduct uses: 1e-6·√in·Σ|x·w|). Shapes cross the 8-row tiles,
    // the 48- and 64-wide panels and the 1,024-deep k blocks.
    void productMatchesDequantizedProduct_data() { levels_data(); }
    void productMatchesDequantizedProduct()
    {
        FETCH_KERNELS_OR_SKIP(kernels);
        const CpuKernels& cpu = *kernels;
        if (variant == QLatin1String("avx512")) QVERIFY(cpu.weightProduct);
        std::mt19937 random(2032);
        int cases = 0;
        for (const QuantType& t : quantTypes())
            for (const int rows : {1, 9, 70})
                for (const int in : {256, 1280})
                    for (const int width : {1, 49, 130}) {
                        const std::vector<unsigned char> w = randomBlocks(t, width, in, random);
                        const std::vector<float> values = readerValues(t, w, width, in);
                        const int xStride = in + 3, yStride = width + 5;
                        std::normal_distribution<float> normal(0.0f, 1.0f);
                        std::vector<float> x(size_t(rows) * size_t(xStride));
                        for (float& v : x)
                            v = normal(random);
                        // Each product the level has: unpackedWeightProduct, weightProduct.
                        for (int which = 0; which < 2; ++which) {
                            if (which == 1 && !cpu.weightProduct) continue;
                            std::vector<float> y(size_t(rows) * size_t(yStride), 12345.0f);
                            if (which == 0)
                                cpu.unpackedWeightProduct(x.data(), rows, in, xStride, w.data(), t.kernelType,
                                                          y.data(), width, yStride);
                            else
                                cpu.weightProduct(x.data(), rows, in, xStride, w.data(), t.kernelType, in,
                                                  true, y.data(), width, yStride);
                            const QString kernel = QString::fromLatin1(t.name) +
                                                   QLatin1String(which == 0 ? " unpacked" : " weightProduct");
                            const QString miss = testing::productMiss(
                                kernel, x, rows, in, xStride, y, width, yStride, 12345.0f,
                                [&](int c, int i) { return values[size_t(c) * size_t(in) + size_t(i)]; });
                            QVERIFY2(miss.isEmpty(), qPrintable(miss));
                            ++cases;
                        }
                    }
        QVERIFY(cases >= 180);
    }
};

QTEST_GUILESS_MAIN(TestQuantizedProduct)
#include "tst_quantizedproduct.moc"
