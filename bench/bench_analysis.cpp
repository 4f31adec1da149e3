// The analysis layer's cost (issue 14), against the forward pass it reads:
//   value norms    ‖f_h(x_j)‖ of every head plus the contribution shares' row sums (core/analysis/
//                  contributions), on a BERT-base-shaped encoder (12 layers, hidden 768, 12 heads, random F32
//                  weights written by the bench) at --tokens; target: < 30% of the plain forward pass.
//   ablation scan  every head ablated alone (AblationStudy::scan, zero) on --scan-model (default the built-in
//                  encoder, 6 × 8) at --scan-tokens with one [MASK]; reported in units of single-layer passes
//                  (forward time / layers): target < 2 × layers × heads. Both methods side by side: batched
//                  (a layer's heads as copies of one pass, the default) and one pass per head (the reference).
//                  --scan-bert also scans BERT-base.
//
//   bench_analysis [--tokens 128] [--reps 5] [--threads 0] [--scan-tokens 64] [--scan-model DIR]
//   [--scan-bert]
//
// Prints JSON lines (docs/benchmarks.md).

#include "analysis/contributions.h"
#include "analysis/headablation.h"
#include "model/safetensorswriter.h"
#include "model/transformermodel.h"
#include "support/benchutil.h"
#include "support/randombertbase.h"

#include <QCoreApplication>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>

using namespace attnscope;
using namespace attnscope::bench;

namespace {

struct Random
{
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    float next()
    {
        state ^= state << 13; // xorshift64: fast, and random enough for timing
        state ^= state >> 7;
        state ^= state << 17;
        return float(state >> 40) / float(1 << 24);
    }
};

// BertForMaskedLM, BERT-base shape, random F32 weights (LayerNorm gains 1); the decoder is tied.
void writeBertBase(const QString& folder)
{
    const qint64 h = kBertHidden, I = kBertIntermediate;
    std::vector<std::pair<QString, std::vector<qint64>>> shapes{
        {QStringLiteral("bert.embeddings.word_embeddings.weight"), {kBertVocab, h}},
        {QStringLiteral("bert.embeddings.position_embeddings.weight"), {kBertPositions, h}},
        {QStringLiteral("bert.embeddings.token_type_embeddings.weight"), {2, h}},
        {QStringLiteral("bert.embeddings.LayerNorm.weight"), {h}},
        {QStringLiteral("bert.embeddings.LayerNorm.bias"), {h}},
        {QStringLiteral("cls.predictions.transform.dense.weight"), {h, h}},
        {QStringLiteral("cls.predictions.transform.dense.bias"), {h}},
        {QStringLiteral("cls.predictions.transform.LayerNorm.weight"), {h}},
        {QStringLiteral("cls.predictions.transform.LayerNorm.bias"), {h}},
        {QStringLiteral("cls.predictions.bias"), {kBertVocab}},
    };
    for (int l = 0; l < kBertLayers; ++l) {
        const QString p = QStringLiteral("bert.encoder.layer.%1.").arg(l);
        for (const char* m : {"attention.self.query.", "attention.self.key.", "attention.self.value.",
                              "attention.output.dense."}) {
            shapes.push_back({p + QLatin1String(m) + QLatin1String("weight"), {h, h}});
            shapes.push_back({p + QLatin1String(m) + QLatin1String("bias"), {h}});
        }
        shapes.push_back({p + QStringLiteral("attention.output.LayerNorm.weight"), {h}});
        shapes.push_back({p + QStringLiteral("attention.output.LayerNorm.bias"), {h}});
        shapes.push_back({p + QStringLiteral("intermediate.dense.weight"), {I, h}});
        shapes.push_back({p + QStringLiteral("intermediate.dense.bias"), {I}});
        shapes.push_back({p + QStringLiteral("output.dense.weight"), {h, I}});
        shapes.push_back({p + QStringLiteral("output.dense.bias"), {h}});
        shapes.push_back({p + QStringLiteral("output.LayerNorm.weight"), {h}});
        shapes.push_back({p + QStringLiteral("output.LayerNorm.bias"), {h}});
    }
    Random random;
    std::vector<TensorToWrite> tensors;
    for (const auto& [name, shape] : shapes) {
        qint64 count = 1;
        for (qint64 d : shape)
            count *= d;
        const bool gain = name.endsWith(QLatin1String("LayerNorm.weight"));
        const float scale = shape.size() == 1                              ? 0.01f
                            : name.contains(QLatin1String("output.dense")) ? 0.03f
                                                                           : 0.06f;
        std::vector<float> values(static_cast<size_t>(count));
        for (float& x : values)
            x = gain ? 1.0f : (2.0f * random.next() - 1.0f) * scale;
        tensors.push_back({name, TensorDtype::F32, shape, floatBytes(values)});
    }
    writeSafetensors(folder + QStringLiteral("/model.safetensors"), tensors);
    if (!writeBertBaseConfig(folder, QStringLiteral("BertForMaskedLM")))
        throw ModelError(folder + QStringLiteral("/config.json"), QStringLiteral("cannot write"));
}

std::vector<int> inputIds(int n, int vocab, int mask)
{
    std::vector<int> ids(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
        ids[size_t(i)] = 5 + (i * 7919) % (vocab - 10);
    if (mask >= 0) ids[size_t(n / 2)] = mask;
    return ids;
}

void benchValueNorms(const TransformerModel& model, int n, int reps, int threads)
{
    RunOptions options;
    options.threads = threads;
    const std::vector<int> ids = inputIds(n, model.config().vocabSize, -1);
    const double forward = medianSeconds([&] { model.run(ids, {}, options); }, reps);
    const AttentionCapture capture = model.run(ids, {}, options);
    const double norms = medianSeconds([&] { valueNorms(capture, nullptr, threads); }, reps);
    const double shares =
        medianSeconds([&] { contributionMaps(capture, ContributionScale::Share, nullptr, threads); }, reps);
    std::printf("{\"bench\":\"value_norms\",\"model\":\"%s\",\"tokens\":%d,\"forward_median_s\":%.4f,"
                "\"value_norms_median_s\":%.4f,\"contribution_shares_median_s\":%.4f,\"extra_norms\":%.3f,"
                "\"extra_shares\":%.3f}\n",
                qPrintable(model.info().name), n, forward, norms, shares, norms / forward, shares / forward);
    std::fflush(stdout);
}

void benchScan(const TransformerModel& model, int n, int reps, int threads)
{
    const int layers = model.config().layers, heads = model.config().heads;
    const std::vector<int> ids = inputIds(n, model.config().vocabSize, model.maskTokenId());
    RunOptions options;
    options.threads = threads;
    const double forward = medianSeconds([&] { model.run(ids, {}, options); }, reps);
    AblationStudyOptions studyOptions;
    studyOptions.threads = threads;
    const double baseline = medianSeconds([&] { AblationStudy(model, ids, {}, studyOptions); }, reps);
    const AblationStudy study(model, ids, {}, studyOptions);
    const double scan = medianSeconds([&] { study.scan(AblationMode::Zero); }, reps);
    const double scanPerHead =
        medianSeconds([&] { study.scan(AblationMode::Zero, {}, ScanMethod::OnePassPerHead); }, reps);
    const double firstLayer = medianSeconds([&] { study.ablate({{0, 0, AblationMode::Zero}}); }, reps);
    const double lastLayer = medianSeconds(
        [&] {
            study.ablate({{layers - 1, 0, AblationMode::Zero}});
        },
        reps);
    const double singleLayer = forward / layers;
    // Layers run by the scan: head h of layer l runs layers l .. L-1.
    const double layersRun = double(heads) * layers * (layers + 1) / 2.0;
    // The same ratios taken rep by rep (forward, batched scan, one pass per head back to back), median of
    // the reps: a shared machine's load drifts less within a rep than across the runs above.
    // Also in process CPU time, which another process's load does not stretch (single thread: the wall
    // time of a long run is stretched more by preemption than a short one's).
    std::vector<double> batchedUnits, perHeadUnits, batchedCpuUnits, perHeadCpuUnits;
    const auto cpuSeconds = [](const std::function<void()>& fn) {
        const double start = processCpuSeconds();
        fn();
        return processCpuSeconds() - start;
    };
    for (int r = 0; r < reps; ++r) {
        const double f = medianSeconds([&] { model.run(ids, {}, options); }, 1) / layers;
        batchedUnits.push_back(medianSeconds([&] { study.scan(AblationMode::Zero); }, 1) / f);
        perHeadUnits.push_back(
            medianSeconds([&] { study.scan(AblationMode::Zero, {}, ScanMethod::OnePassPerHead); }, 1) / f);
        const double fc = cpuSeconds([&] { model.run(ids, {}, options); }) / layers;
        batchedCpuUnits.push_back(cpuSeconds([&] { study.scan(AblationMode::Zero); }) / fc);
        perHeadCpuUnits.push_back(
            cpuSeconds([&] { study.scan(AblationMode::Zero, {}, ScanMethod::OnePassPerHead); }) / fc);
    }
    const auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    std::printf(
        "{\"bench\":\"ablation_scan\",\"model\":\"%s\",\"tokens\":%d,\"layers\":%d,\"heads\":%d,"
        "\"forward_median_s\":%.4f,\"baseline_s\":%.4f,\"ablate_layer0_s\":%.4f,\"ablate_last_layer_s\":%.4f,"
        "\"scan_median_s\":%.4f,\"scan_one_pass_per_head_median_s\":%.4f,"
        "\"scan_in_single_layer_passes\":%.1f,\"scan_one_pass_per_head_in_single_layer_passes\":%.1f,"
        "\"paired_scan_in_single_layer_passes\":%.1f,\"paired_one_pass_per_head_in_single_layer_passes\":%.1f,"
        "\"cpu_time_scan_in_single_layer_passes\":%.1f,"
        "\"cpu_time_one_pass_per_head_in_single_layer_passes\":%.1f,"
        "\"target_single_layer_passes\":%d,"
        "\"layers_run_by_scan\":%.0f,\"scan_over_layers_x_heads_passes\":%.2f}\n",
        qPrintable(model.info().name), n, layers, heads, forward, baseline, firstLayer, lastLayer, scan,
        scanPerHead, scan / singleLayer, scanPerHead / singleLayer, median(batchedUnits), median(perHeadUnits),
        median(batchedCpuUnits), median(perHeadCpuUnits), 2 * layers * heads, layersRun,
        scan / (singleLayer * layers * heads));
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    int tokens = 128, reps = 5, threads = 0, scanTokens = 64;
    bool scanBert = false, skipBert = false;
    QString scanModel = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-bert-en-tr");
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        const bool hasValue = i + 1 < args.size();
        if (args[i] == QLatin1String("--tokens") && hasValue)
            tokens = args[++i].toInt();
        else if (args[i] == QLatin1String("--reps") && hasValue)
            reps = args[++i].toInt();
        else if (args[i] == QLatin1String("--threads") && hasValue)
            threads = args[++i].toInt();
        else if (args[i] == QLatin1String("--scan-tokens") && hasValue)
            scanTokens = args[++i].toInt();
        else if (args[i] == QLatin1String("--scan-model") && hasValue)
            scanModel = args[++i];
        else if (args[i] == QLatin1String("--scan-bert"))
            scanBert = true;
        else if (args[i] == QLatin1String("--skip-bert"))
            skipBert = true;
    }
    try {
        const auto small = TransformerModel::open(scanModel);
        benchValueNorms(*small, scanTokens, reps, threads);
        benchScan(*small, scanTokens, reps, threads);
        if (skipBert) return 0;
        QTemporaryDir folder;
        writeBertBase(folder.path());
        const auto bert = TransformerModel::open(folder.path());
        benchValueNorms(*bert, tokens, reps, threads);
        if (scanBert) benchScan(*bert, tokens, 1, threads);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_analysis: %s\n", e.what());
        return 1;
    }
    return 0;
}
