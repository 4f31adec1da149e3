// Model runtime: a BERT-base-sized encoder (12 layers, hidden 768, 12 heads, intermediate 3072, vocab 30522,
// random F32 weights the bench writes itself) run with every attention captured.
//
//   bench_model [--tokens 128,512] [--reps 5] [--threads 0] [--dir DIR]
//
// Prints JSON lines: the time to open (map + validate) the model, and per input length the median forward
// time and the peak resident memory (the mapped F32 weights count: their pages are resident once used).

#include "model/transformermodel.h"
#include "support/benchutil.h"
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
#include <ctime>
#include <vector>

using namespace attnscope;
using namespace attnscope::bench;

namespace {

constexpr int kLayers = 12, kHidden = 768, kHeads = 12, kIntermediate = 3072, kVocab = 30522,
              kPositions = 512;

struct Spec
{
    QString name;
    std::vector<qint64> shape;
    float scale; // uniform in [-scale, scale]; 0 = ones (LayerNorm gamma)
};

std::vector<Spec> bertBaseTensors()
{
    const qint64 h = kHidden, I = kIntermediate;
    std::vector<Spec> specs = {
        {QStringLiteral("bert.embeddings.word_embeddings.weight"), {kVocab, h}, 0.05f},
        {QStringLiteral("bert.embeddings.position_embeddings.weight"), {kPositions, h}, 0.05f},
        {QStringLiteral("bert.embeddings.token_type_embeddings.weight"), {2, h}, 0.05f},
        {QStringLiteral("bert.embeddings.LayerNorm.weight"), {h}, 0.0f},
        {QStringLiteral("bert.embeddings.LayerNorm.bias"), {h}, 0.01f},
    };
    for (int l = 0; l < kLayers; ++l) {
        const QString p = QStringLiteral("bert.encoder.layer.%1.").arg(l);
        for (const char* m : {"attention.self.query.", "attention.self.key.", "attention.self.value.",
                              "attention.output.dense."}) {
            specs.push_back({p + QLatin1String(m) + QLatin1String("weight"), {h, h}, 0.06f});
            specs.push_back({p + QLatin1String(m) + QLatin1String("bias"), {h}, 0.01f});
        }
        specs.push_back({p + QStringLiteral("attention.output.LayerNorm.weight"), {h}, 0.0f});
        specs.push_back({p + QStringLiteral("attention.output.LayerNorm.bias"), {h}, 0.01f});
        specs.push_back({p + QStringLiteral("intermediate.dense.weight"), {I, h}, 0.06f});
        specs.push_back({p + QStringLiteral("intermediate.dense.bias"), {I}, 0.01f});
        specs.push_back({p + QStringLiteral("output.dense.weight"), {h, I}, 0.03f});
        specs.push_back({p + QStringLiteral("output.dense.bias"), {h}, 0.01f});
        specs.push_back({p + QStringLiteral("output.LayerNorm.weight"), {h}, 0.0f});
        specs.push_back({p + QStringLiteral("output.LayerNorm.bias"), {h}, 0.01f});
    }
    return specs;
}

// Streams the file tensor by tensor so the bench itself never holds the 420 MiB of weights.
qint64 writeModel(const QString& folder)
{
    QDir().mkpath(folder);
    const std::vector<Spec> specs = bertBaseTensors();
    QJsonObject header;
    qint64 offset = 0;
    for (const Spec& s : specs) {
        qint64 count = 1;
        QJsonArray shape;
        for (qint64 d : s.shape) {
            count *= d;
            shape.append(double(d));
        }
        header.insert(s.name, QJsonObject{{QStringLiteral("dtype"), QStringLiteral("F32")},
                                          {QStringLiteral("shape"), shape},
                                          {QStringLiteral("data_offsets"),
                                           QJsonArray{double(offset), double(offset + 4 * count)}}});
        offset += 4 * count;
    }
    QByteArray json = QJsonDocument(header).toJson(QJsonDocument::Compact);
    while (json.size() % 8)
        json += ' ';
    QFile file(folder + QStringLiteral("/model.safetensors"));
    if (!file.open(QIODevice::WriteOnly)) return -1;
    QByteArray length(8, '\0');
    for (int i = 0; i < 8; ++i)
        length[i] = char((quint64(json.size()) >> (8 * i)) & 0xff);
    file.write(length);
    file.write(json);
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    std::vector<float> buffer;
    for (const Spec& s : specs) {
        qint64 count = 1;
        for (qint64 d : s.shape)
            count *= d;
        buffer.resize(size_t(count));
        for (float& x : buffer) {
            state ^= state << 13; // xorshift64: fast, and random enough for timing
            state ^= state >> 7;
            state ^= state << 17;
            const float u = float(state >> 40) / float(1 << 24); // [0, 1)
            x = s.scale == 0.0f ? 1.0f : (2.0f * u - 1.0f) * s.scale;
        }
        file.write(reinterpret_cast<const char*>(buffer.data()), qint64(buffer.size() * sizeof(float)));
    }
    file.close();
    const QJsonObject config{
        {QStringLiteral("architectures"), QJsonArray{QStringLiteral("BertModel")}},
        {QStringLiteral("model_type"), QStringLiteral("bert")},
        {QStringLiteral("hidden_size"), kHidden},
        {QStringLiteral("num_hidden_layers"), kLayers},
        {QStringLiteral("num_attention_heads"), kHeads},
        {QStringLiteral("intermediate_size"), kIntermediate},
        {QStringLiteral("vocab_size"), kVocab},
        {QStringLiteral("max_position_embeddings"), kPositions},
        {QStringLiteral("type_vocab_size"), 2},
        {QStringLiteral("layer_norm_eps"), 1e-12},
        {QStringLiteral("hidden_act"), QStringLiteral("gelu")},
    };
    QFile configFile(folder + QStringLiteral("/config.json"));
    configFile.open(QIODevice::WriteOnly);
    configFile.write(QJsonDocument(config).toJson());
    return offset;
}

// CPU time of the whole process (all threads): on a shared machine wall time measures the neighbours too;
// CPU time / threads is what the run would take with the cores to itself.
double processCpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QStringList tokenCounts{QStringLiteral("128"), QStringLiteral("512")};
    int reps = 5, threads = 0;
    QString folder;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); ++i) {
        if (args[i] == QLatin1String("--tokens"))
            tokenCounts = args[++i].split(QLatin1Char(','));
        else if (args[i] == QLatin1String("--reps"))
            reps = args[++i].toInt();
        else if (args[i] == QLatin1String("--threads"))
            threads = args[++i].toInt();
        else if (args[i] == QLatin1String("--dir"))
            folder = args[++i];
    }
    QTemporaryDir temporary;
    if (folder.isEmpty()) folder = temporary.filePath(QStringLiteral("bert-base-random"));
    qint64 weightBytes = QFileInfo(folder + QStringLiteral("/model.safetensors")).size();
    if (weightBytes <= 0) weightBytes = writeModel(folder);
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
                    probabilitySum = c.maps->tile(kLayers - 1, 0, 0, 1, 0, n)[0];
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
