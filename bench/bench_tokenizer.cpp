// Tokenizer throughput: time to tokenize 10,000 words with bert-base-uncased (WordPiece) and GPT-2 (byte-level
// BPE), using the real vocabularies in tests/data/tokenizers. Median of --reps runs after one warm-up run (BPE's
// word cache is warm then, as in a running app); the first, cold-cache encode and the load time are reported too.
//
//   bench_tokenizer [--json] [--reps 7] [--words 10000] [--data DIR] [--dump-text FILE]

#include "support/benchutil.h"
#include "tokenizer/tokenizer.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QStringList>

#include <cstdio>

using namespace attnscope;
using namespace attnscope::bench;

namespace {

// Deterministic mixed text: mostly English prose, some Turkish, German, punctuation, digits and an emoji.
QString makeText(int words)
{
    const QStringList vocabulary = QStringLiteral(
        "The quick brown fox jumps over the lazy dog while attention heads in every layer of the transformer "
        "look at the tokens of the sentence , and some of them attend to the previous token , others to "
        "the first one . Kupa bavula sığmadı çünkü çok büyüktü . Die Straße ist groß . In 2024 , 3.14 "
        "people said : \" it's what we're doing \" ! Tokenization splits unbelievably long words like "
        "internationalization and counterrevolutionaries into pieces 🤗 .")
                                       .split(QLatin1Char(' '));
    QStringList out;
    out.reserve(words);
    quint32 state = 12345;
    for (int i = 0; i < words; ++i) {
        state = state * 1664525u + 1013904223u;
        out << vocabulary[int((state >> 8) % quint32(vocabulary.size()))];
    }
    return out.join(QLatin1Char(' '));
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    auto option = [&args](const QString& name, const QString& fallback) {
        const qsizetype i = args.indexOf(name);
        return i >= 0 && i + 1 < args.size() ? args[i + 1] : fallback;
    };
    const bool json = args.contains(QStringLiteral("--json"));
    const int reps = option(QStringLiteral("--reps"), QStringLiteral("7")).toInt();
    const int words = option(QStringLiteral("--words"), QStringLiteral("10000")).toInt();
    const QString defaultData = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/tests/data/tokenizers");
    const QString data = option(QStringLiteral("--data"), defaultData);
    const QString text = makeText(words);
    const QString dump = option(QStringLiteral("--dump-text"), QString());
    if (!dump.isEmpty()) {
        QFile f(dump);
        if (f.open(QIODevice::WriteOnly))
            f.write(text.toUtf8());
    }

    for (const char* name : {"bert-base-uncased", "gpt2"}) {
        const QString folder = data + QLatin1Char('/') + QLatin1String(name);
        try {
            QElapsedTimer timer;
            timer.start();
            const auto tokenizer = Tokenizer::fromFolder(folder);
            const double loadSeconds = double(timer.nsecsElapsed()) * 1e-9;
            timer.restart();
            int tokens = tokenizer->encode(text).size();
            const double coldSeconds = double(timer.nsecsElapsed()) * 1e-9;
            const double seconds = medianSeconds([&] { tokens = tokenizer->encode(text).size(); }, reps);
            if (json)
                std::printf("{\"bench\":\"tokenizer\",\"tokenizer\":\"%s\",\"model\":\"%s\",\"words\":%d,\"tokens\":%d,"
                            "\"seconds\":%.6f,\"cold_seconds\":%.6f,\"load_seconds\":%.4f,\"reps\":%d}\n",
                            name, qPrintable(tokenizer->modelType()), words, tokens, seconds, coldSeconds, loadSeconds,
                            reps);
            else
                std::printf("%-18s %-9s %d words -> %d tokens: median %.2f ms (first run %.2f ms), load %.0f ms, "
                            "%.1f M words/s\n",
                            name, qPrintable(tokenizer->modelType()), words, tokens, seconds * 1e3, coldSeconds * 1e3,
                            loadSeconds * 1e3, words / seconds * 1e-6);
        } catch (const TokenizerError& e) {
            std::fprintf(stderr, "bench_tokenizer: %s\n", e.what());
            return 1;
        }
    }
    return 0;
}
