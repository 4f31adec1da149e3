// The analysis commands (issue 14) as a script sees them: run the attnscope binary and check its output
// against the float64 references of transformers (analysis.json, hidden.npy) and numpy (rollout.json), and
// its bad-input behaviour (one line on stderr, exit code 2 for usage, 1 for the input, nothing on stdout).

#include "core/support/modelfixtures.h"
#include "io/npy.h"
#include "support/processrun.h"
#include "support/testdata.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

using Result = ProcessRun;

Result run(QStringList arguments, const QString& workingDirectory = QString())
{
    // The CPU backend: no GPU probe (and its platform chatter) in these tests.
    if (arguments.first() != QLatin1String("stats") && !arguments.contains(QStringLiteral("--backend")))
        arguments << QStringLiteral("--backend") << QStringLiteral("cpu");
    ProcessOptions options;
    options.environment = withRuntimeDir();
    options.workingDirectory = workingDirectory;
    return runProcess(QStringLiteral(ATTNSCOPE_BINARY), arguments, options);
}

QString headsArgument(const QJsonArray& heads)
{
    QStringList parts;
    for (const QJsonValue& pair : heads)
        parts << QStringLiteral("%1.%2").arg(pair[0].toInt()).arg(pair[1].toInt());
    return parts.join(QLatin1Char(','));
}

} // namespace

class TestCliAnalysis : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void ablateMatchesTransformers_data();
    void ablateMatchesTransformers();
    void attentionNormMatchesTransformers_data();
    void attentionNormMatchesTransformers();
    void rolloutMatchesNumpy();
    void rolloutNormAndNpy();
    void residualMatchesHiddenStates();
    void statsGainsContributionsCensusAndScan();
    void textInput();
    void errors_data();
    void errors();
};

void TestCliAnalysis::ablateMatchesTransformers_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QString>("mode");
    for (const char* name : {"bert_s0", "gpt2_s0", "llama_s0"})
        for (const char* mode : {"zero", "mean"})
            QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(name), QLatin1String(mode))))
                << QString::fromLatin1(name) << QString::fromLatin1(mode);
}

// Every reference set of the mode in one call (one --heads per set).
void TestCliAnalysis::ablateMatchesTransformers()
{
    QFETCH(QString, caseName);
    QFETCH(QString, mode);
    const QJsonObject reference =
        readRequiredJsonObject(oracleFolder(caseName) + QStringLiteral("/analysis.json"));
    QStringList arguments{QStringLiteral("ablate"),
                          QStringLiteral("--model"),
                          oracleFolder(caseName),
                          QStringLiteral("--ids"),
                          idsArgument(reference[QStringLiteral("input_ids")].toArray()),
                          QStringLiteral("--mode"),
                          mode,
                          QStringLiteral("--json")};
    QJsonArray expected;
    for (const QJsonValue& a : reference[QStringLiteral("ablations")].toArray())
        if (a[QStringLiteral("mode")].toString() == mode) {
            expected.append(a);
            arguments << QStringLiteral("--heads") << headsArgument(a[QStringLiteral("heads")].toArray());
        }
    const Result r = run(arguments);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject json = r.json();
    QCOMPARE(json[QStringLiteral("mode")].toString(), mode);
    QCOMPARE(json[QStringLiteral("positions")].toArray(), reference[QStringLiteral("positions")].toArray());
    const QJsonArray ablations = json[QStringLiteral("ablations")].toArray();
    QCOMPARE(ablations.size(), expected.size());
    for (int s = 0; s < ablations.size(); ++s) {
        const QJsonObject got = ablations[s].toObject(), want = expected[s].toObject();
        QCOMPARE(got[QStringLiteral("heads")].toArray(), want[QStringLiteral("heads")].toArray());
        QVERIFY2(std::abs(got[QStringLiteral("kl")].toDouble() - want[QStringLiteral("kl")].toDouble()) <=
                     1e-5,
                 qPrintable(QString::number(got[QStringLiteral("kl")].toDouble())));
        const QJsonArray deltas = got[QStringLiteral("top_prob_delta")].toArray();
        const QJsonArray tops = got[QStringLiteral("top")].toArray();
        QCOMPARE(deltas.size(), want[QStringLiteral("top_prob_delta")].toArray().size());
        for (int p = 0; p < deltas.size(); ++p) {
            QVERIFY(std::abs(deltas[p].toDouble() - want[QStringLiteral("top_prob_delta")][p].toDouble()) <=
                    1e-5);
            const QJsonArray top = tops[p].toArray(), wantTop = want[QStringLiteral("top")][p].toArray();
            QCOMPARE(top.size(), 5);
            for (int k = 0; k < 5; ++k) {
                QCOMPARE(top[k][QStringLiteral("id")].toInt(), wantTop[k][0].toInt());
                QVERIFY(std::abs(top[k][QStringLiteral("probability")].toDouble() -
                                 wantTop[k][1].toDouble()) <= 1e-5);
            }
        }
    }
}

void TestCliAnalysis::attentionNormMatchesTransformers_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::newRow("gpt2_s0") << QStringLiteral("gpt2_s0");
    QTest::newRow("llama_s0 (GQA)") << QStringLiteral("llama_s0");
}

void TestCliAnalysis::attentionNormMatchesTransformers()
{
    QFETCH(QString, caseName);
    const QJsonObject reference =
        readRequiredJsonObject(oracleFolder(caseName) + QStringLiteral("/analysis.json"));
    const Result r =
        run({QStringLiteral("attention"), QStringLiteral("--model"), oracleFolder(caseName),
             QStringLiteral("--ids"), idsArgument(reference[QStringLiteral("input_ids")].toArray()),
             QStringLiteral("--measure"), QStringLiteral("norm")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject json = r.json();
    QCOMPARE(json[QStringLiteral("measure")].toString(), QStringLiteral("norm"));
    const QJsonArray got = json[QStringLiteral("attentions")].toArray();
    const QJsonArray want = reference[QStringLiteral("value_norms")].toArray();
    QCOMPARE(got.size(), want.size());
    double worst = 0;
    for (int l = 0; l < got.size(); ++l)
        for (int h = 0; h < got[l].toArray().size(); ++h)
            for (int i = 0; i < got[l][h].toArray().size(); ++i)
                for (int j = 0; j < got[l][h][i].toArray().size(); ++j) {
                    const double e = want[l][h][i][j].toDouble();
                    worst = std::max(worst, std::abs(got[l][h][i][j].toDouble() - e) / std::max(1.0, e));
                }
    QVERIFY2(worst <= 1e-5, qPrintable(QString::number(worst)));
}

void TestCliAnalysis::rolloutMatchesNumpy()
{
    for (const QString& caseName : {QStringLiteral("gpt2_s0"), QStringLiteral("llama_s0")}) {
        const QJsonObject reference =
            readRequiredJsonObject(oracleFolder(caseName) + QStringLiteral("/rollout.json"));
        const QJsonArray ids =
            readRequiredJsonObject(oracleFolder(caseName) +
                                   QStringLiteral("/case.json"))[QStringLiteral("input_ids")]
                .toArray();
        for (int layer : {0, 1}) {
            const Result r = run({QStringLiteral("rollout"), QStringLiteral("--model"),
                                  oracleFolder(caseName), QStringLiteral("--ids"), idsArgument(ids),
                                  QStringLiteral("--layer"), QString::number(layer)});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            const QJsonObject json = r.json();
            QCOMPARE(json[QStringLiteral("measure")].toString(), QStringLiteral("weight"));
            QCOMPARE(json[QStringLiteral("layer")].toInt(), layer);
            const QJsonArray got = json[QStringLiteral("rollout")].toArray();
            const QJsonArray want = reference[QStringLiteral("rollout")][layer].toArray();
            QCOMPARE(got.size(), ids.size());
            for (int i = 0; i < got.size(); ++i)
                for (int j = 0; j < got.size(); ++j)
                    QVERIFY(std::abs(got[i][j].toDouble() - want[i][j].toDouble()) <= 1e-5);
        }
    }
}

void TestCliAnalysis::rolloutNormAndNpy()
{
    const QString model = oracleFolder(QStringLiteral("llama_s1"));
    const QString ids = idsArgument(
        readRequiredJsonObject(model + QStringLiteral("/case.json"))[QStringLiteral("input_ids")].toArray());
    QTemporaryDir dir;
    const QString weightPath = dir.filePath(QStringLiteral("w.npy")),
                  normPath = dir.filePath(QStringLiteral("n.npy"));
    const QStringList base{
        QStringLiteral("rollout"),  QStringLiteral("--model"), model, QStringLiteral("--ids"), ids,
        QStringLiteral("--format"), QStringLiteral("npy")};
    Result r = run(base + QStringList{QStringLiteral("--out"), weightPath});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    r = run(base + QStringList{QStringLiteral("--out"), normPath, QStringLiteral("--measure"),
                               QStringLiteral("norm")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const NpyArray weight = readNpyFile(weightPath), norm = readNpyFile(normPath);
    QCOMPARE(weight.shape, (std::vector<qint64>{12, 12}));
    QCOMPARE(norm.shape, weight.shape);
    double difference = 0;
    for (int i = 0; i < 12; ++i) {
        double sumWeight = 0, sumNorm = 0;
        for (int j = 0; j < 12; ++j) {
            sumWeight += weight.values[size_t(i * 12 + j)];
            sumNorm += norm.values[size_t(i * 12 + j)];
            difference = std::max(
                difference, std::abs(weight.values[size_t(i * 12 + j)] - norm.values[size_t(i * 12 + j)]));
            if (j > i) QCOMPARE(weight.values[size_t(i * 12 + j)], 0.0); // causal: nothing from later tokens
        }
        QVERIFY(std::abs(sumWeight - 1) < 1e-9 && std::abs(sumNorm - 1) < 1e-9);
    }
    QVERIFY(difference > 1e-3); // the value norms change the picture
    // An existing file is kept.
    r = run(base + QStringList{QStringLiteral("--out"), weightPath});
    QCOMPARE(r.exitCode, 1);
    // The policy's words, as every command's (io/outputfile.h).
    QVERIFY2(r.err.contains(weightPath.toUtf8() +
                            ": the file exists and was not overwritten (use --force to overwrite)"),
             r.err.constData());
    // "--out -" is standard output (the same bytes), never a file named "-".
    QFile written(weightPath);
    QVERIFY(written.open(QIODevice::ReadOnly));
    r = run(base + QStringList{QStringLiteral("--out"), QStringLiteral("-")}, dir.path());
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(r.out, written.readAll());
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("-"))));
}

// The residual stream's norms against transformers' hidden_states (the input of every layer; the last entry
// of hidden.npy is after the final norm, so boundaries 0 .. L−1 are compared).
void TestCliAnalysis::residualMatchesHiddenStates()
{
    const QString caseName = QStringLiteral("llama_linear_s0");
    const QJsonArray ids = readRequiredJsonObject(oracleFolder(caseName) +
                                                  QStringLiteral("/case.json"))[QStringLiteral("input_ids")]
                               .toArray();
    const Result r = run({QStringLiteral("residual"), QStringLiteral("--model"), oracleFolder(caseName),
                          QStringLiteral("--ids"), idsArgument(ids), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject json = r.json();
    const NpyArray hidden = readNpyFile(oracleFolder(caseName) + QStringLiteral("/hidden.npy"));
    const int boundaries = int(hidden.shape[0]), n = int(hidden.shape[1]), width = int(hidden.shape[2]);
    QCOMPARE(json[QStringLiteral("boundaries")].toInt(), boundaries);
    QCOMPARE(json[QStringLiteral("median_abs")].toArray().size(), boundaries);
    for (int b = 0; b + 1 < boundaries; ++b)
        for (int t = 0; t < n; ++t) {
            double sum = 0, largest = 0;
            for (int c = 0; c < width; ++c) {
                const double x = hidden.values[(size_t(b) * n + size_t(t)) * size_t(width) + size_t(c)];
                sum += x * x;
                largest = std::max(largest, std::abs(x));
            }
            QVERIFY(std::abs(json[QStringLiteral("norm")][b][t].toDouble() - std::sqrt(sum)) <=
                    1e-5 * std::sqrt(sum) + 1e-6);
            QVERIFY(std::abs(json[QStringLiteral("max_abs")][b][t].toDouble() - largest) <=
                    1e-5 * largest + 1e-6);
        }
    // The table names the largest activation's token.
    const Result table = run({QStringLiteral("residual"), QStringLiteral("--model"), oracleFolder(caseName),
                              QStringLiteral("--ids"), idsArgument(ids)});
    QVERIFY2(table.exitCode == 0, table.err.constData());
    QVERIFY(table.out.contains("x median"));
}

// stats --json: per head the contribution shares of the first token (against transformers' value norms), the
// Gu sink score per token (against numpy), and with --ablate-scan each head's KL (against head_mask).
void TestCliAnalysis::statsGainsContributionsCensusAndScan()
{
    const QString caseName = QStringLiteral("gpt2_s0");
    const QJsonObject reference =
        readRequiredJsonObject(oracleFolder(caseName) + QStringLiteral("/analysis.json"));
    const QJsonArray ids = reference[QStringLiteral("input_ids")].toArray();
    const Result r = run({QStringLiteral("stats"), QStringLiteral("--model"), oracleFolder(caseName),
                          QStringLiteral("--ids"), idsArgument(ids), QStringLiteral("--json"),
                          QStringLiteral("--ablate-scan")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject json = r.json();
    const QJsonArray norms = reference[QStringLiteral("value_norms")].toArray();
    const int n = ids.size();
    for (const QJsonValue& value : json[QStringLiteral("heads")].toArray()) {
        const QJsonObject head = value.toObject();
        const int l = head[QStringLiteral("layer")].toInt(), h = head[QStringLiteral("head")].toInt();
        // No special tokens among these ids: every row counts.
        double sink = 0;
        for (int i = 0; i < n; ++i) {
            double rowSum = 0;
            for (int j = 0; j < n; ++j)
                rowSum += norms[l][h][i][j].toDouble();
            sink += norms[l][h][i][0].toDouble() / rowSum / n;
        }
        QVERIFY2(std::abs(head[QStringLiteral("sink_mass_norm")].toDouble() - sink) <= 1e-5,
                 qPrintable(QStringLiteral("%1.%2").arg(l).arg(h)));
        QCOMPARE(head[QStringLiteral("sep_mass_norm")].toDouble(), 0.0); // no [SEP]/EOS in the input
        QVERIFY(head.contains(QStringLiteral("ablation_kl")));
        for (const QJsonValue& a : reference[QStringLiteral("ablations")].toArray()) {
            const QJsonArray heads = a[QStringLiteral("heads")].toArray();
            if (a[QStringLiteral("mode")].toString() == QLatin1String("zero") && heads.size() == 1 &&
                heads[0][0].toInt() == l && heads[0][1].toInt() == h)
                QVERIFY(std::abs(head[QStringLiteral("ablation_kl")].toDouble() -
                                 a[QStringLiteral("kl")].toDouble()) <= 1e-5);
        }
    }
    const QJsonArray sink =
        readRequiredJsonObject(oracleFolder(caseName) +
                               QStringLiteral("/rollout.json"))[QStringLiteral("sink_score")]
            .toArray();
    QCOMPARE(json[QStringLiteral("sink_score")].toArray(), sink);
    QCOMPARE(json[QStringLiteral("sink_score_epsilon")].toDouble(), 0.3);
}

// --text goes through the tokenizer; on an encoder pair, [SEP] gets contribution shares too.
void TestCliAnalysis::textInput()
{
    const Result r =
        run({QStringLiteral("stats"), QStringLiteral("--model"), oracleFolder(QStringLiteral("bert_s0")),
             QStringLiteral("--text"), QStringLiteral("the quick brown fox"), QStringLiteral("--text-b"),
             QStringLiteral("jumps over the lazy dog"), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    for (const QJsonValue& head : r.json()[QStringLiteral("heads")].toArray()) {
        const double sep = head[QStringLiteral("sep_mass_norm")].toDouble();
        QVERIFY(sep > 0 && sep < 1);
    }
    const Result ablate =
        run({QStringLiteral("ablate"), QStringLiteral("--model"), oracleFolder(QStringLiteral("gpt2_s0")),
             QStringLiteral("--text"), QStringLiteral("the quick brown fox"), QStringLiteral("--heads"),
             QStringLiteral("1")});
    QVERIFY2(ablate.exitCode == 0, ablate.err.constData());
    QVERIFY(ablate.out.contains("zero ablation of 1.0,1.1,1.2,1.3: KL"));
}

void TestCliAnalysis::errors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QString bert = oracleFolder(QStringLiteral("bert_s0")),
                  gpt2 = oracleFolder(QStringLiteral("gpt2_s0"));
    auto args = [](const QString& command, const QString& model, std::initializer_list<const char*> rest) {
        QStringList list{command};
        if (!model.isEmpty()) list << QStringLiteral("--model") << model;
        for (const char* a : rest)
            list << QString::fromUtf8(a);
        return list;
    };
    const QString ablate = QStringLiteral("ablate"), rollout = QStringLiteral("rollout"),
                  residual = QStringLiteral("residual"), attention = QStringLiteral("attention"),
                  stats = QStringLiteral("stats");
    QTest::newRow("ablate: no model")
        << args(ablate, {}, {"--ids", "1", "--heads", "0.0"}) << 2 << "--model is required";
    QTest::newRow("ablate: no heads") << args(ablate, gpt2, {"--ids", "1,2"}) << 2 << "--heads is required";
    QTest::newRow("ablate: head outside") << args(ablate, gpt2, {"--ids", "1,2", "--heads", "2.0"}) << 2
                                          << "'2.0' is outside the model's layers 0..1 and heads 0..3";
    QTest::newRow("ablate: not a head")
        << args(ablate, gpt2, {"--ids", "1,2", "--heads", "x"}) << 2 << "'x' is not a head";
    QTest::newRow("ablate: bad mode")
        << args(ablate, gpt2, {"--ids", "1,2", "--heads", "0.0", "--mode", "half"}) << 2
        << "--mode must be zero or mean";
    QTest::newRow("ablate: no [MASK]")
        << args(ablate, bert, {"--ids", "2,16,3", "--heads", "0.0"}) << 1 << "no [MASK] token to predict";
    QTest::newRow("ablate: id outside vocabulary")
        << args(ablate, gpt2, {"--ids", "1,5000", "--heads", "0.0"}) << 1
        << "token id 5000 at position 1 is outside the vocabulary";
    QTest::newRow("ablate: both inputs")
        << args(ablate, gpt2, {"--ids", "1", "--text", "a", "--heads", "0.0"}) << 2
        << "exactly one of --text or --ids";
    QTest::newRow("rollout: bad measure") << args(rollout, gpt2, {"--ids", "1,2", "--measure", "flow"}) << 2
                                          << "--measure must be weight or norm";
    QTest::newRow("rollout: npy without out")
        << args(rollout, gpt2, {"--ids", "1,2", "--format", "npy"}) << 2 << "--format npy needs --out FILE";
    QTest::newRow("rollout: layer outside")
        << args(rollout, gpt2, {"--ids", "1,2", "--layer", "2"}) << 2 << "--layer 2 is outside 0..1";
    QTest::newRow("rollout: missing model")
        << args(rollout, QStringLiteral("/nonexistent/model"), {"--ids", "1"}) << 1
        << "/nonexistent/model: no such model folder";
    QTest::newRow("residual: no input") << args(residual, gpt2, {}) << 2 << "exactly one of --text or --ids";
    QTest::newRow("residual: bad ids")
        << args(residual, gpt2, {"--ids", "1,x"}) << 1 << "'x' is not a non-negative integer";
    QTest::newRow("attention: bad measure") << args(attention, gpt2, {"--ids", "1,2", "--measure", "flow"})
                                            << 2 << "--measure must be weight or norm";
    QTest::newRow("stats: scan of the worked example")
        << args(stats, QStringLiteral("worked-example"), {"--ablate-scan"}) << 2
        << "neither --ids nor --ablate-scan";
    QTest::newRow("stats: text-b on a decoder")
        << args(stats, gpt2, {"--text", "a", "--text-b", "b"}) << 2 << "--text-b needs an encoder";
    QTest::newRow("stats: scan without [MASK]")
        << args(stats, bert, {"--ids", "2,16,3", "--ablate-scan"}) << 1 << "no [MASK] token to predict";
}

void TestCliAnalysis::errors()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const Result r = run(arguments);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    QVERIFY2(r.err.count('\n') == 1, r.err.constData());
    QVERIFY(r.out.isEmpty());
}

QTEST_GUILESS_MAIN(TestCliAnalysis)
#include "tst_cli_analysis.moc"
