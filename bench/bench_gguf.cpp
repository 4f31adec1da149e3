// GGUF dequantization throughput: how fast each ggml block format becomes fp32 (the cost a GGUF model pays,
// per layer, over a safetensors one). Random block bytes (every byte pattern is a valid block), rows of 4096,
// one thread; prints one JSON line per type with the median of --runs.
//
//   build/dev/bench/bench_gguf [--elements N] [--runs R]

#include "model/ggmlquants.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QStringList>
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

using namespace attnscope;

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    auto option = [&](const char* name, long fallback) {
        const int i = int(args.indexOf(QLatin1String(name)));
        return i >= 0 && i + 1 < args.size() ? args.at(i + 1).toLong() : fallback;
    };
    const long elements = option("--elements", 1L << 24);
    const int runs = int(option("--runs", 5));
    const int row = 4096;
    std::mt19937 rng(1);
    std::vector<float> out(static_cast<size_t>(row));
    for (const GgmlType type : {GgmlType::F16, GgmlType::BF16, GgmlType::Q8_0, GgmlType::Q4_0, GgmlType::Q4_1,
                                GgmlType::Q5_0, GgmlType::Q5_1, GgmlType::Q2_K, GgmlType::Q3_K, GgmlType::Q4_K,
                                GgmlType::Q5_K, GgmlType::Q6_K}) {
        const GgmlTypeTraits traits = *ggmlTypeTraits(std::uint32_t(type));
        const long rows = elements / row;
        const size_t rowBytes = size_t(row / traits.blockElements * traits.blockBytes);
        std::vector<unsigned char> data(rowBytes * size_t(rows));
        for (unsigned char& b : data)
            b = static_cast<unsigned char>(rng());
        // Keep the f16 scales finite: clear the top exponent bit of every byte (a block format's scales then
        // never encode inf or NaN; the work per element is the same).
        for (unsigned char& b : data)
            b &= 0xBF;
        std::vector<double> seconds;
        float sink = 0;
        for (int r = 0; r < runs; ++r) {
            QElapsedTimer timer;
            timer.start();
            for (long i = 0; i < rows; ++i) {
                dequantizeRow(type, data.data() + size_t(i) * rowBytes, out.data(), row);
                sink += out[size_t(i % row)];
            }
            seconds.push_back(double(timer.nsecsElapsed()) * 1e-9);
        }
        std::sort(seconds.begin(), seconds.end());
        const double median = seconds[seconds.size() / 2];
        std::printf("{\"type\":\"%s\",\"elements\":%ld,\"seconds\":%.4f,\"melements_per_s\":%.0f,\"sink\":%g}\n",
                    traits.name, rows * row, median, double(rows * row) / median * 1e-6, double(sink));
    }
    return 0;
}
