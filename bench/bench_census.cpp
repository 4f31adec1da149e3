// Corpus census speed and memory (issue 17, point 5): inputs of exactly --tokens tokens (shipped corpus
// sentences joined until long enough, then cut) through
//  1. the built-in encoder (tiny-bert-en-tr), --inputs of them (target: 1,000 × 128 tokens in < 30 s);
//  2. a BERT-base-sized encoder with random F32 weights (support/randombertbase), --bert-inputs of them,
//     extrapolated to --inputs (target: < 10 min for 1,000 × 128).
//
//   bench_census [--inputs 1000] [--bert-inputs 100] [--tokens 128] [--threads 0] [--dir DIR]
//   [--forward-only]
//
// --forward-only: after each census, the same inputs through tokenizer and model.run alone (nothing summed),
// so census minus forward-only is what the statistics cost.
// Prints JSON lines: wall and process CPU seconds, per-input wall, and resident memory after 10%, 50% and
// 100% of the inputs (flat memory: the census keeps no per-input data).

#include "census/censusinput.h"
#include "census/censusrun.h"
#include "model/transformermodel.h"
#include "support/benchutil.h"
#include "support/randombertbase.h"
#include "tokenizer/tokenizer.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <cstdio>

using namespace attnscope;
using namespace attnscope::bench;

namespace {

// `count` lines of at least `tokens` tokens each: shipped sentences appended to each other.
bool writeCorpus(const QString& path, const Tokenizer& tokenizer, int count, int tokens)
{
    QFile in(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/corpus/census-sentences.jsonl"));
    QFile out(path);
    if (!in.open(QIODevice::ReadOnly) || !out.open(QIODevice::WriteOnly)) return false;
    QString line;
    int written = 0;
    while (written < count) {
        if (in.atEnd()) in.seek(0);
        const QString text =
            QJsonDocument::fromJson(in.readLine()).object().value(QStringLiteral("text")).toString();
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + text;
        if (tokenizer.encode(line).size() >= tokens) {
            out.write(line.toUtf8() + '\n');
            line.clear();
            ++written;
        }
    }
    return true;
}

void measure(const char* name, const TransformerModel& model, const Tokenizer& tokenizer,
             const QString& corpus, int inputs, int extrapolateTo, int tokens, int threads,
             const QString& resultPath)
{
    CensusOptions options;
    options.corpusPath = corpus;
    options.maxTokens = tokens;
    options.limit = inputs;
    options.threads = threads;
    options.resultPath = resultPath;
    double rss10 = 0, rss50 = 0;
    resetPeakResidentMemory();
    const double rssStart = residentMemoryMiB();
    const double cpu0 = processCpuSeconds();
    QElapsedTimer clock;
    clock.start();
    const CensusResult result = runCensus(
        model, tokenizer, options, std::nullopt,
        [&](const CensusProgress& p) {
            if (p.inputs == std::max(1, inputs / 10)) rss10 = residentMemoryMiB();
            if (p.inputs == std::max(1, inputs / 2)) rss50 = residentMemoryMiB();
        },
        nullptr);
    const double wall = clock.elapsed() / 1000.0, cpu = processCpuSeconds() - cpu0;
    std::printf(
        "{\"bench\":\"census\",\"model\":\"%s\",\"inputs\":%lld,\"tokens_per_input\":%.1f,\"truncated\":%lld,"
        "\"wall_s\":%.2f,\"cpu_s\":%.2f,\"wall_per_input_s\":%.4f,\"extrapolated_%d_inputs_s\":%.1f,"
        "\"rss_start_mib\":%.1f,\"rss_10pct_mib\":%.1f,\"rss_50pct_mib\":%.1f,\"rss_end_mib\":%.1f,"
        "\"peak_rss_mib\":%.1f,\"status\":\"%s\"}\n",
        name, (long long)result.inputs(),
        double(result.tokens) / double(std::max<std::int64_t>(1, result.inputs())),
        (long long)result.truncated, wall, cpu, wall / std::max<std::int64_t>(1, result.inputs()),
        extrapolateTo, wall / std::max<std::int64_t>(1, result.inputs()) * extrapolateTo, rssStart, rss10,
        rss50, residentMemoryMiB(), peakResidentMemoryMiB(), qPrintable(censusStatusName(result.status)));
    std::fflush(stdout);
}

// The census's own work apart from the forward pass: the same inputs read, tokenized and run through the
// model exactly as runCensus runs them, with nothing summed. Census minus this is the statistics' cost.
void measureForwardOnly(const char* name, const TransformerModel& model, const Tokenizer& tokenizer,
                        const QString& corpus, int inputs, int tokens, int threads)
{
    CorpusReader reader(corpus, false);
    QString error;
    if (!reader.open(&error)) return;
    RunOptions run;
    run.threads = threads;
    const double cpu0 = processCpuSeconds();
    QElapsedTimer clock;
    clock.start();
    int done = 0;
    for (; done < inputs; ++done) {
        const std::optional<CorpusInput> input = reader.next();
        if (!input) break;
        const CensusInput prepared = prepareCensusInput(tokenizer, *input, tokens);
        const AttentionCapture capture = model.run(prepared.encoding.ids, prepared.encoding.typeIds, run);
        if (capture.layers() == 0) break;
    }
    const double wall = clock.elapsed() / 1000.0, cpu = processCpuSeconds() - cpu0;
    std::printf("{\"bench\":\"forward-only\",\"model\":\"%s\",\"inputs\":%d,\"wall_s\":%.2f,\"cpu_s\":%.2f,"
                "\"wall_per_input_s\":%.4f,\"cpu_per_input_s\":%.4f}\n",
                name, done, wall, cpu, wall / std::max(1, done), cpu / std::max(1, done));
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const BenchArguments args(app.arguments());
    const bool forwardOnly = args.has("--forward-only");
    const int inputs = args.value("--inputs", QStringLiteral("1000")).toInt();
    const int bertInputs = args.value("--bert-inputs", QStringLiteral("100")).toInt();
    const int tokens = args.value("--tokens", QStringLiteral("128")).toInt();
    const int threads = args.value("--threads", QStringLiteral("0")).toInt();
    QString folder = args.value("--dir", QString());
    QTemporaryDir temporary;
    try {
        const auto encoder =
            TransformerModel::open(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-bert-en-tr"));
        const Tokenizer& tokenizer = *encoder->tokenizer();
        const QString corpus = temporary.filePath(QStringLiteral("corpus.txt"));
        if (!writeCorpus(corpus, tokenizer, std::max(inputs, bertInputs), tokens)) {
            std::fprintf(stderr, "bench_census: cannot write the corpus\n");
            return 1;
        }
        measure("tiny-bert-en-tr", *encoder, tokenizer, corpus, inputs, inputs, tokens, threads,
                temporary.filePath(QStringLiteral("tiny.json")));
        if (forwardOnly)
            measureForwardOnly("tiny-bert-en-tr", *encoder, tokenizer, corpus, inputs, tokens, threads);
        if (bertInputs <= 0) return 0;
        if (folder.isEmpty()) folder = temporary.filePath(QStringLiteral("bert-base-random"));
        if (QFileInfo(folder + QStringLiteral("/model.safetensors")).size() <= 0 &&
            writeRandomBertBase(folder) <= 0) {
            std::fprintf(stderr, "bench_census: cannot write the model into %s\n", qPrintable(folder));
            return 1;
        }
        // Its vocabulary (30,522) holds the built-in tokenizer's 8,000 ids: the tokens are the same inputs.
        const auto bertBase = TransformerModel::open(folder);
        measure("bert-base (random F32)", *bertBase, tokenizer, corpus, bertInputs, inputs, tokens, threads,
                temporary.filePath(QStringLiteral("base.json")));
        if (forwardOnly)
            measureForwardOnly("bert-base (random F32)", *bertBase, tokenizer, corpus, bertInputs, tokens,
                               threads);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_census: %s\n", e.what());
        return 1;
    }
    return 0;
}
