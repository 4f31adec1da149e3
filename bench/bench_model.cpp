// Model runtime: a BERT-base-sized encoder (12 layers, hidden 768, 12 heads, intermediate 3072, vocab 30522,
// random F32 weights the bench writes itself) run with every attention captured.
//
//   bench_model [--tokens 128,512] [--reps 5] [--threads 0] [--dir DIR]
//
// Prints JSON lines: the time to open (map + validate) the model, and per input length the median forward
// time and the peak resident memory (the mapped F32 weights count: their pages are resident once used).

#include "model/transformermodel.h"
#include "support/benchutil.h"
#include "support/randombertbase.h"
#include "util/parallel.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

using namespace attnscope;
using namespace attnscope::bench;

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const BenchArguments args(app.arguments());
    const QStringList tokenCounts = args.value("--tokens", QStringLiteral("128,512")).split(QLatin1Char(','));
    const int reps = args.value("--reps", QStringLiteral("5")).toInt();
    const int threads = args.value("--threads", QStringLiteral("0")).toInt();
    QString folder = args.value("--dir", QString());
    QTemporaryDir temporary;
    if (folder.isEmpty()) folder = temporary.filePath(QStringLiteral("bert-base-random"));
    qint64 weightBytes = QFileInfo(folder + QStringLiteral("/model.safetensors")).size();
    if (weightBytes <= 0) weightBytes = writeRandomBertBase(folder);
    if (weightBytes <= 0) {
        std::fprintf(stderr, "bench_model: cannot write the model into %s\n", qPrintable(folder));
        return 1;
    }
    const double weightsMiB = double(weightBytes) / (1024.0 * 1024.0);

    try {
        const double openSeconds = medianSeconds([&] { TransformerModel::open(folder); }, reps);
        std::printf("{\"bench\":\"model_open\",\"model\":\"bert-base (random "
                    "F32)\",\"weights_mib\":%.1f,\"median_s\":%.5f}\n",
                    weightsMiB, openSeconds);
        std::fflush(stdout);
        const auto model = TransformerModel::open(folder);
        RunOptions options;
        options.threads = threads;
        for (const QString& countText : tokenCounts) {
            const int n = countText.toInt();
            std::vector<int> ids(static_cast<size_t>(n));
            for (int i = 0; i < n; ++i)
                ids[size_t(i)] = 1000 + (i * 7919) % 29000;
            resetPeakResidentMemory();
            double probabilitySum = 0;
            std::vector<double> cpuSeconds;
            const double seconds = medianSeconds(
                [&] {
                    const double cpu0 = processCpuSeconds();
                    const AttentionCapture c = model->run(ids, {}, options);
                    probabilitySum = c.maps->tile(c.layers() - 1, 0, 0, 1, 0, n)[0];
                    cpuSeconds.push_back(processCpuSeconds() - cpu0);
                },
                reps);
            std::sort(cpuSeconds.begin(), cpuSeconds.end());
            const double cpuMedian = cpuSeconds[cpuSeconds.size() / 2];
            std::printf(
                "{\"bench\":\"bert_base_forward_all_attentions\",\"tokens\":%d,\"threads\":%d,\"reps\":%d,"
                "\"median_s\":%.4f,\"median_cpu_s\":%.4f,\"peak_rss_mib\":%.1f,\"weights_mib\":%.1f,\"peak_"
                "over_weights\":%.3f,\"check\":%.4g}\n",
                n, threads > 0 ? threads : defaultThreadCount(), reps, seconds, cpuMedian,
                peakResidentMemoryMiB(), weightsMiB, peakResidentMemoryMiB() / weightsMiB, probabilitySum);
            std::fflush(stdout);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_model: %s\n", e.what());
        return 1;
    }
    return 0;
}
