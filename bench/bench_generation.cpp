// Generation and the StreamingLLM evaluation on the built-in decoder (tiny-llama-en-tr), issue 16:
//
//   bench_generation [--context 512] [--tokens 64] [--stream-tokens 4000] [--cache 256]
//                    [--policies recompute,window,sinks4,full] [--threads 2]
//
// Per generated token: a Generation over a prompt of `context` tokens (the held-out text), the median time of
// the steps after the prompt pass (attention rows kept, as the Generate view keeps them). The built-in
// decoder takes 256 positions today: the bench runs a copy whose config.json says 1024 (the 1,024-position
// retrain has the same shape; its speed does not depend on the weights). Streaming: the first
// `stream-tokens` tokens of resources/corpus/stream-en.txt in the training format (<s> p1 </s> p2 ...), one
// evaluateStream() per policy, wall time. Prints JSON lines.

#include "generation/generation.h"
#include "generation/streamingevaluation.h"
#include "model/transformermodel.h"
#include "tokenizer/tokenizer.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdio>

using namespace attnscope;

namespace {

QString argument(const QStringList& args, const QString& name, const QString& fallback)
{
    const int i = args.indexOf(QStringLiteral("--") + name);
    return i >= 0 && i + 1 < args.size() ? args[i + 1] : fallback;
}

void print(const QJsonObject& o)
{
    std::printf("%s\n", QJsonDocument(o).toJson(QJsonDocument::Compact).constData());
    std::fflush(stdout);
}

// The held-out text as the decoder was trained: <s> p1 </s> p2 </s> ...
std::vector<int> heldOutIds(const Tokenizer& tokenizer)
{
    QFile f(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/corpus/stream-en.txt"));
    if (!f.open(QIODevice::ReadOnly)) return {};
    std::vector<int> ids{*tokenizer.bosId()};
    for (const QString& line : QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'))) {
        if (line.trimmed().isEmpty()) continue;
        const std::vector<int> e = tokenizer.encode(line.trimmed(), std::nullopt, false).ids;
        ids.insert(ids.end(), e.begin(), e.end());
        ids.push_back(*tokenizer.eosId());
    }
    return ids;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int context = argument(args, QStringLiteral("context"), QStringLiteral("512")).toInt();
    const int tokens = argument(args, QStringLiteral("tokens"), QStringLiteral("64")).toInt();
    const int streamTokens = argument(args, QStringLiteral("stream-tokens"), QStringLiteral("4000")).toInt();
    const int cache = argument(args, QStringLiteral("cache"), QStringLiteral("256")).toInt();
    const int threads = argument(args, QStringLiteral("threads"), QStringLiteral("2")).toInt();
    const QStringList policies =
        argument(args, QStringLiteral("policies"), QStringLiteral("recompute,window,sinks4,full"))
            .split(QLatin1Char(','));

    const QString builtin = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-llama-en-tr");
    QTemporaryDir dir;
    for (const QString& name : QDir(builtin).entryList(QDir::Files))
        QFile::link(builtin + QLatin1Char('/') + name, dir.filePath(name));
    {
        QFile in(builtin + QStringLiteral("/config.json"));
        in.open(QIODevice::ReadOnly);
        QJsonObject config = QJsonDocument::fromJson(in.readAll()).object();
        config[QStringLiteral("max_position_embeddings")] = 1024;
        QFile::remove(dir.filePath(QStringLiteral("config.json")));
        QFile out(dir.filePath(QStringLiteral("config.json")));
        out.open(QIODevice::WriteOnly);
        out.write(QJsonDocument(config).toJson());
    }
    const auto model = TransformerModel::open(dir.path());
    const std::vector<int> text = heldOutIds(*model->tokenizer());

    if (tokens > 0) {
        GenerationOptions options;
        options.maxNewTokens = tokens + 1;
        options.sampling.temperature = 0;
        options.threads = threads;
        Generation generation(*model, std::vector<int>(text.begin(), text.begin() + context), options);
        QElapsedTimer timer;
        timer.start();
        generation.step(); // the prompt pass
        const double promptSeconds = double(timer.nsecsElapsed()) * 1e-9;
        std::vector<double> perToken;
        for (int i = 0; i < tokens && generation.stopped() == GenerationStop::Running; ++i) {
            timer.restart();
            generation.step();
            perToken.push_back(double(timer.nsecsElapsed()) * 1e-6);
        }
        std::vector<double> sorted = perToken;
        std::sort(sorted.begin(), sorted.end());
        print({{QStringLiteral("bench"), QStringLiteral("generate")},
               {QStringLiteral("context"), context},
               {QStringLiteral("tokens"), int(perToken.size())},
               {QStringLiteral("threads"), threads},
               {QStringLiteral("prompt_seconds"), promptSeconds},
               {QStringLiteral("ms_per_token_median"), sorted[sorted.size() / 2]},
               {QStringLiteral("ms_per_token_p90"), sorted[sorted.size() * 9 / 10]}});
    }

    const std::vector<int> ids(text.begin(),
                               text.begin() + std::min<size_t>(text.size(), size_t(streamTokens)));
    for (const QString& name : policies) {
        CachePolicy policy;
        if (name == QLatin1String("recompute"))
            policy = CachePolicy::recompute(cache);
        else if (name == QLatin1String("full"))
            policy = CachePolicy::full();
        else if (name == QLatin1String("window"))
            policy = CachePolicy::sinksWindow(cache, 0);
        else if (name.startsWith(QLatin1String("sinks")))
            policy = CachePolicy::sinksWindow(cache, name.mid(5).toInt());
        else
            continue;
        StreamOptions options;
        options.threads = threads;
        const StreamEvaluation e = evaluateStream(*model, ids, policy, options);
        print({{QStringLiteral("bench"), QStringLiteral("stream")},
               {QStringLiteral("policy"), name},
               {QStringLiteral("tokens"), int(ids.size())},
               {QStringLiteral("cache"), cache},
               {QStringLiteral("predictions"), int(e.nll.size())},
               {QStringLiteral("perplexity"), e.perplexity()},
               {QStringLiteral("threads"), threads},
               {QStringLiteral("seconds"), e.seconds}});
    }
    return 0;
}
