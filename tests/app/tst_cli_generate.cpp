// `attnscope generate`, `attnscope stream` and --text-file as scripts use them: the binary on oracle folders.
//   generate   ids = prompt + generated; greedy's first token is predict's top 1; the top 5 are ordered and
//              hold the chosen token when greedy; attention rows are probability rows of the right length;
//              a seed reproduces a sampled run;
//   stream     one entry per policy, perplexity = exp(mean NLL), NLL counts, CSV with one column per policy;
//   text-file  the file's text is the --text's (stdin too, NUL kept); invalid UTF-8 names the byte offset.

#include "support/processrun.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

using namespace attnscope::testing;

namespace {

using Run = ProcessRun;

Run runAttnscope(const QStringList& arguments, const QByteArray& input = {})
{
    ProcessOptions options;
    options.input = input;
    return runProcess(QStringLiteral(ATTNSCOPE_BINARY), arguments, options);
}

QString oracle(const char* name)
{
    return QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/") + QLatin1String(name);
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(bytes);
    return path;
}

} // namespace

class TestCliGenerate : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void greedyGeneration();
    void seededSamplingIsReproducible();
    void badGenerateOptions();
    void streamPolicies();
    void streamCsv();
    void textFileIsTheText();
    void invalidUtf8NamesTheByte_data();
    void invalidUtf8NamesTheByte();

private:
    QTemporaryDir m_dir;
};

void TestCliGenerate::greedyGeneration()
{
    const QString text = QStringLiteral("The quick brown fox");
    const Run run =
        runAttnscope({QStringLiteral("generate"), QStringLiteral("--model"), oracle("gpt2_s0"),
                      QStringLiteral("--text"), text, QStringLiteral("--max-new-tokens"), QStringLiteral("6"),
                      QStringLiteral("--temperature"), QStringLiteral("0"), QStringLiteral("--ignore-eos"),
                      QStringLiteral("--json"), QStringLiteral("--attention")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject o = QJsonDocument::fromJson(run.out).object();
    const int promptTokens = o.value(QLatin1String("prompt_tokens")).toInt();
    const QJsonArray ids = o.value(QLatin1String("ids")).toArray(),
                     generated = o.value(QLatin1String("generated")).toArray(),
                     probabilities = o.value(QLatin1String("probabilities")).toArray(),
                     top = o.value(QLatin1String("top")).toArray(),
                     attention = o.value(QLatin1String("attention")).toArray();
    QVERIFY(promptTokens > 0);
    QCOMPARE(generated.size(), 6);
    QCOMPARE(ids.size(), promptTokens + 6);
    QCOMPARE(o.value(QLatin1String("tokens")).toArray().size(), ids.size());
    QCOMPARE(o.value(QLatin1String("stop")).toString(), QStringLiteral("max-tokens"));
    QVERIFY(o.value(QLatin1String("sampling")).toObject().value(QLatin1String("greedy")).toBool());
    const int layers = o.value(QLatin1String("layers")).toInt(),
              heads = o.value(QLatin1String("heads")).toInt();
    QVERIFY(layers > 0 && heads > 0);
    QCOMPARE(attention.size(), 6);
    for (int i = 0; i < 6; ++i) {
        QCOMPARE(ids[promptTokens + i].toInt(), generated[i].toInt());
        const QJsonArray five = top[i].toArray();
        QCOMPARE(five.size(), 5);
        // Greedy: the chosen token is the most probable, with the probability reported.
        QCOMPARE(five[0].toObject().value(QLatin1String("id")).toInt(), generated[i].toInt());
        QCOMPARE(five[0].toObject().value(QLatin1String("probability")).toDouble(),
                 probabilities[i].toDouble());
        for (int r = 1; r < 5; ++r)
            QVERIFY(five[r - 1].toObject().value(QLatin1String("probability")).toDouble() >=
                    five[r].toObject().value(QLatin1String("probability")).toDouble());
        const QJsonArray step = attention[i].toArray();
        QCOMPARE(step.size(), layers);
        for (const QJsonValue& layer : step) {
            QCOMPARE(layer.toArray().size(), heads);
            for (const QJsonValue& row : layer.toArray()) {
                QCOMPARE(row.toArray().size(), promptTokens + i); // keys up to the query that chose it
                double sum = 0;
                for (const QJsonValue& p : row.toArray())
                    sum += p.toDouble();
                QVERIFY(std::abs(sum - 1.0) < 1e-5);
            }
        }
    }
    // The first greedy token is predict's top 1.
    const Run predict = runAttnscope({QStringLiteral("predict"), QStringLiteral("--model"), oracle("gpt2_s0"),
                                      QStringLiteral("--text"), text, QStringLiteral("--json")});
    QCOMPARE(predict.exitCode, 0);
    const QJsonObject first = QJsonDocument::fromJson(predict.out)
                                  .array()[0]
                                  .toObject()
                                  .value(QLatin1String("top"))
                                  .toArray()[0]
                                  .toObject();
    QCOMPARE(first.value(QLatin1String("id")).toInt(), generated[0].toInt());
    QVERIFY(std::abs(first.value(QLatin1String("probability")).toDouble() - probabilities[0].toDouble()) <
            1e-6);
}

void TestCliGenerate::seededSamplingIsReproducible()
{
    auto sample = [](const QString& seed) {
        const Run run = runAttnscope(
            {QStringLiteral("generate"), QStringLiteral("--model"), oracle("llama_s0"),
             QStringLiteral("--ids"), QStringLiteral("1,5,9,20"), QStringLiteral("--max-new-tokens"),
             QStringLiteral("20"), QStringLiteral("--top-k"), QStringLiteral("50"), QStringLiteral("--top-p"),
             QStringLiteral("0.95"), QStringLiteral("--seed"), seed, QStringLiteral("--json")});
        return QJsonDocument::fromJson(run.out).object().value(QLatin1String("generated")).toArray();
    };
    const QJsonArray a = sample(QStringLiteral("3"));
    QCOMPARE(a.size(), 20);
    QCOMPARE(sample(QStringLiteral("3")), a);
    QVERIFY(sample(QStringLiteral("4")) != a);
}

void TestCliGenerate::badGenerateOptions()
{
    auto error = [](const QStringList& extra) {
        QStringList arguments{QStringLiteral("generate"), QStringLiteral("--model"), oracle("llama_s0"),
                              QStringLiteral("--ids"), QStringLiteral("1,2")};
        const Run run = runAttnscope(arguments + extra);
        return run.exitCode != 0 ? QString::fromUtf8(run.err) : QString();
    };
    QVERIFY(error({QStringLiteral("--temperature"), QStringLiteral("-1")})
                .contains(QStringLiteral("--temperature")));
    QVERIFY(error({QStringLiteral("--top-p"), QStringLiteral("1.5")}).contains(QStringLiteral("--top-p")));
    QVERIFY(error({QStringLiteral("--max-new-tokens"), QStringLiteral("x")})
                .contains(QStringLiteral("--max-new-tokens")));
    const Run bert = runAttnscope({QStringLiteral("generate"), QStringLiteral("--model"), oracle("bert_s0"),
                                   QStringLiteral("--text"), QStringLiteral("a b")});
    QVERIFY(bert.exitCode != 0 && bert.err.contains("only decoders generate text"));
}

void TestCliGenerate::streamPolicies()
{
    QStringList ids;
    for (int i = 0; i < 50; ++i)
        ids << QString::number((i * 37 + 11) % 128);
    const Run run = runAttnscope({QStringLiteral("stream"), QStringLiteral("--model"), oracle("llama_s0"),
                                  QStringLiteral("--ids"), ids.join(QLatin1Char(',')),
                                  QStringLiteral("--cache"), QStringLiteral("16"), QStringLiteral("--sinks"),
                                  QStringLiteral("0,4"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.err.contains("sinks+window (4 + 12) 49/49 (100%)")); // progress on stderr
    const QJsonObject o = QJsonDocument::fromJson(run.out).object();
    QCOMPARE(o.value(QLatin1String("tokens")).toInt(), 50);
    const QJsonArray policies = o.value(QLatin1String("policies")).toArray();
    QCOMPARE(policies.size(), 4);
    const QStringList names{QStringLiteral("full"), QStringLiteral("recompute"),
                            QStringLiteral("sinks+window"), QStringLiteral("sinks+window")};
    for (int i = 0; i < 4; ++i) {
        const QJsonObject p = policies[i].toObject();
        QCOMPARE(p.value(QLatin1String("policy")).toString(), names[i]);
        const QJsonArray nll = p.value(QLatin1String("nll")).toArray();
        QCOMPARE(nll.size(), 49);
        double sum = 0;
        for (const QJsonValue& v : nll)
            sum += v.toDouble();
        QVERIFY(std::abs(std::exp(sum / 49) / p.value(QLatin1String("perplexity")).toDouble() - 1) < 1e-5);
        QCOMPARE(p.value(QLatin1String("full_cache_from")).toInt(), i == 0 ? -1 : 15);
    }
    QCOMPARE(policies[2].toObject().value(QLatin1String("sinks")).toInt(), 0);
    QCOMPARE(policies[2].toObject().value(QLatin1String("window")).toInt(), 16);
    QCOMPARE(policies[3].toObject().value(QLatin1String("sinks")).toInt(), 4);
    QCOMPARE(policies[3].toObject().value(QLatin1String("window")).toInt(), 12);

    const Run tooBig =
        runAttnscope({QStringLiteral("stream"), QStringLiteral("--model"), oracle("llama_s0"),
                      QStringLiteral("--ids"), ids.join(QLatin1Char(',')), QStringLiteral("--cache"),
                      QStringLiteral("100"), QStringLiteral("--policies"), QStringLiteral("sinks")});
    QVERIFY(tooBig.exitCode != 0 && tooBig.err.contains("it must hold 2 to 64"));
}

void TestCliGenerate::streamCsv()
{
    const QString file = writeFile(m_dir, QStringLiteral("stream.txt"),
                                   "The quick brown fox jumps over the lazy dog.\nA second paragraph, longer "
                                   "than the first one, so that the cache fills.\n");
    const Run run = runAttnscope({QStringLiteral("stream"), QStringLiteral("--model"), oracle("gpt2_s0"),
                                  QStringLiteral("--text-file"), file, QStringLiteral("--cache"),
                                  QStringLiteral("8"), QStringLiteral("--sinks"), QStringLiteral("2"),
                                  QStringLiteral("--csv"), QStringLiteral("--quiet")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.err.isEmpty());
    const QList<QByteArray> lines = run.out.trimmed().split('\n');
    QCOMPARE(lines[0], QByteArray("target,full,recompute,sinks2+window6"));
    QVERIFY(lines.size() > 20);
    for (int i = 1; i < lines.size(); ++i) {
        const QList<QByteArray> cells = lines[i].split(',');
        QCOMPARE(cells.size(), 4);
        QCOMPARE(cells[0].toInt(), i);
        // gpt2_s0 takes 64 positions: full attention predicts targets 1 .. 63 only.
        QVERIFY(i < 64 ? cells[1].toDouble() > 0 : cells[1].isEmpty());
        for (int c = 2; c < 4; ++c)
            QVERIFY(cells[c].toDouble() > 0);
    }
}

void TestCliGenerate::textFileIsTheText()
{
    const QString text = QStringLiteral("Kupa bavula sığmadı 😀\tçünkü çok büyüktü.\n");
    const QString file = writeFile(m_dir, QStringLiteral("text.txt"), text.toUtf8());
    for (const char* command : {"tokenize", "predict", "attention"}) {
        QStringList common{QLatin1String(command), QStringLiteral("--model"), oracle("gpt2_s0")};
        if (QLatin1String(command) == QLatin1String("attention"))
            common << QStringLiteral("--backend") << QStringLiteral("cpu");
        const Run given = runAttnscope(common + QStringList{QStringLiteral("--text"), text});
        const Run fromFile = runAttnscope(common + QStringList{QStringLiteral("--text-file"), file});
        const Run fromStdin = runAttnscope(
            common + QStringList{QStringLiteral("--text-file"), QStringLiteral("-")}, text.toUtf8());
        QVERIFY2(given.exitCode == 0, given.err.constData());
        QCOMPARE(fromFile.out, given.out);
        QCOMPARE(fromStdin.out, given.out);
    }
    // NUL, which no argument can carry, reaches the tokenizer.
    const QString nul = writeFile(m_dir, QStringLiteral("nul.txt"), QByteArray("ab\0cd", 5));
    const Run withNul = runAttnscope({QStringLiteral("tokenize"), QStringLiteral("--model"),
                                      oracle("gpt2_s0"), QStringLiteral("--text-file"), nul});
    QCOMPARE(withNul.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(withNul.out).object().value(QLatin1String("ids")).toArray().size(), 5);

    const Run both =
        runAttnscope({QStringLiteral("tokenize"), QStringLiteral("--model"), oracle("gpt2_s0"),
                      QStringLiteral("--text"), QStringLiteral("a"), QStringLiteral("--text-file"), file});
    QVERIFY(both.exitCode != 0 && both.err.contains("not both"));
    const Run missing =
        runAttnscope({QStringLiteral("tokenize"), QStringLiteral("--model"), oracle("gpt2_s0"),
                      QStringLiteral("--text-file"), m_dir.filePath(QStringLiteral("none.txt"))});
    QVERIFY(missing.exitCode != 0 && missing.err.contains("none.txt: file not found"));
}

void TestCliGenerate::invalidUtf8NamesTheByte_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected"); // empty = valid
    QTest::newRow("0xff") << QByteArray("ab\xff"
                                        "cd")
                          << QStringLiteral("invalid UTF-8 at byte 2 (0xff)");
    QTest::newRow("lone continuation") << QByteArray("abc\x80") << QStringLiteral("at byte 3 (0x80)");
    QTest::newRow("overlong /") << QByteArray("\xc0\xaf") << QStringLiteral("at byte 0 (0xc0)");
    QTest::newRow("overlong 3-byte") << QByteArray("x\xe0\x80\xaf") << QStringLiteral("at byte 1 (0xe0)");
    QTest::newRow("surrogate") << QByteArray("xy\xed\xa0\x80") << QStringLiteral("at byte 2 (0xed)");
    QTest::newRow("above U+10FFFF") << QByteArray("\xf4\x90\x80\x80") << QStringLiteral("at byte 0 (0xf4)");
    QTest::newRow("truncated") << QByteArray("abc\xe2\x82") << QStringLiteral("at byte 3 (0xe2)");
    QTest::newRow("valid 4-byte") << QByteArray("\xf0\x9f\x98\x80 ok") << QString();
}

void TestCliGenerate::invalidUtf8NamesTheByte()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const QString file = writeFile(m_dir, QStringLiteral("bad.txt"), bytes);
    const Run run = runAttnscope({QStringLiteral("tokenize"), QStringLiteral("--model"), oracle("gpt2_s0"),
                                  QStringLiteral("--text-file"), file});
    if (expected.isEmpty()) {
        QCOMPARE(run.exitCode, 0);
        return;
    }
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(expected.toUtf8()) && run.err.contains("bad.txt"), run.err.constData());
    QCOMPARE(run.err.count('\n'), 1); // one line
}

QTEST_GUILESS_MAIN(TestCliGenerate)
#include "tst_cli_generate.moc"
