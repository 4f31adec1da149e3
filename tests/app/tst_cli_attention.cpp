// The attention/models/predict commands as a script sees them: run the attnscope binary and check its
// output against the oracle's attentions.npy, its files and its exit codes.

#include "core/support/modelfixtures.h"
#include "io/npy.h"
#include "support/ggufwriter.h"
#include "support/privatemount.h"
#include "support/processrun.h"
#include "support/testdata.h"

#include <QDir>
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

QJsonObject caseJson(const QString& name)
{
    QFile file(oracleFolder(name) + QStringLiteral("/case.json"));
    file.open(QIODevice::ReadOnly);
    return QJsonDocument::fromJson(file.readAll()).object();
}

using Result = ProcessRun;

Result run(const QStringList& arguments,
           const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
           const QString& workingDirectory = QString())
{
    // attention/predict start a QGuiApplication (GPU backends need the platform); without XDG_RUNTIME_DIR Qt
    // prints a warning line of its own on stderr, which is not the command's error. Give it a runtime dir.
    ProcessOptions options;
    options.environment = withRuntimeDir(env);
    options.workingDirectory = workingDirectory;
    options.timeoutMs = 60000;
    return runProcess(QStringLiteral(ATTNSCOPE_BINARY), arguments, options);
}

// A copy of an oracle Llama with its positions raised (RoPE has no position table, so any length is the
// same model); its config, or an empty object when the copy failed.
QJsonObject copyWithPositions(const QString& name, const QString& to, int positions)
{
    if (!QDir().mkpath(to)) return {};
    for (const QString& file : QDir(oracleFolder(name)).entryList(QDir::Files))
        if (!QFile::copy(oracleFolder(name) + QLatin1Char('/') + file, to + QLatin1Char('/') + file))
            return {};
    QFile configFile(to + QStringLiteral("/config.json"));
    if (!configFile.open(QIODevice::ReadOnly)) return {};
    QJsonObject config = QJsonDocument::fromJson(configFile.readAll()).object();
    configFile.close();
    config.insert(QStringLiteral("max_position_embeddings"), positions);
    if (!configFile.setPermissions(QFile::ReadOwner | QFile::WriteOwner) ||
        !configFile.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    configFile.write(QJsonDocument(config).toJson());
    return config;
}

// n token ids spread over the vocabulary ((i · step + offset) mod vocabulary), as text for --ids.
QStringList spreadIds(int n, int vocabulary, int step, int offset)
{
    QStringList ids;
    for (int i = 0; i < n; ++i)
        ids << QString::number((i * step + offset) % vocabulary);
    return ids;
}

// The largest |P − oracle| over the last query (10) of layer 1, head 3 in `attention`'s JSON for gpt2_s1's
// sentence (11 tokens, 4 heads a layer); +inf where that row is not 11 weights.
double gpt2s1LastRowError(const QJsonObject& json)
{
    const NpyArray expected =
        readNpyFile(oracleFolder(QStringLiteral("gpt2_s1")) + QStringLiteral("/attentions.npy"));
    const QJsonArray lastRow =
        json.value(QLatin1String("attentions")).toArray()[1].toArray()[3].toArray()[10].toArray();
    if (lastRow.size() != 11) return INFINITY;
    double worst = 0;
    for (int k = 0; k < 11; ++k)
        worst = std::max(worst, std::abs(lastRow[k].toDouble() -
                                         expected.values[size_t((1 * 4 + 3) * 121 + 10 * 11 + k)]));
    return worst;
}

// llama_s0 copied into dir/llama with `positions` positions (copyWithPositions), its shape, and n token ids
// spread over its vocabulary (spreadIds): the long inputs of the large-dump tests. folder is empty when the
// copy failed.
struct LongLlama
{
    QString folder;
    int layers = 0, heads = 0;
    QStringList ids;
};
LongLlama longLlama(const QTemporaryDir& dir, int positions, int n, int step, int offset)
{
    const QString folder = dir.filePath(QStringLiteral("llama"));
    const QJsonObject config = copyWithPositions(QStringLiteral("llama_s0"), folder, positions);
    if (config.isEmpty()) return {};
    return {folder, config.value(QLatin1String("num_hidden_layers")).toInt(),
            config.value(QLatin1String("num_attention_heads")).toInt(),
            spreadIds(n, config.value(QLatin1String("vocab_size")).toInt(), step, offset)};
}

// `attention` on the first `tokens` of ids, written as npy to out ("-": standard output); `extra` goes before
// --format (--layer 1).
Result dumpNpy(const QString& model, const QStringList& ids, int tokens, const QString& out,
               const QStringList& extra = {})
{
    return run(QStringList{QStringLiteral("attention"), QStringLiteral("--model"), model,
                           QStringLiteral("--ids"), ids.mid(0, tokens).join(QLatin1Char(','))} +
               extra +
               QStringList{QStringLiteral("--format"), QStringLiteral("npy"), QStringLiteral("--out"), out});
}

// A causal dump of `maps` attention maps of n × n read against the dump of its first `prefix` tokens: the
// worst |row sum − 1| and the worst difference on the prefix (query i sees tokens ≤ i only, so the first
// queries' rows do not depend on the tokens after them), and the first weight above the diagonal, if any.
struct CausalDumpCheck
{
    double worstSum = 0, worstPrefix = 0;
    QString aboveDiagonal; // empty when every weight above the diagonal is 0
};
template <typename T>
CausalDumpCheck checkCausalDump(const T* values, int maps, int n, const NpyArray& prefixDump, int prefix);

// What is wrong with such a dump: a weight above the diagonal, a row sum off 1 by more than 1e-4, or a
// prefix row off the prefix's own dump by more than 1e-5; empty when it holds.
template <typename T>
QString causalDumpProblem(const T* values, int maps, int n, const NpyArray& prefixDump, int prefix)
{
    const CausalDumpCheck check = checkCausalDump(values, maps, n, prefixDump, prefix);
    if (!check.aboveDiagonal.isEmpty()) return check.aboveDiagonal;
    if (!(check.worstSum <= 1e-4)) return QStringLiteral("a row sums to 1 ± %1").arg(check.worstSum);
    if (!(check.worstPrefix <= 1e-5))
        return QStringLiteral("the prefix's rows differ by %1").arg(check.worstPrefix);
    return {};
}

template <typename T>
CausalDumpCheck checkCausalDump(const T* values, int maps, int n, const NpyArray& prefixDump, int prefix)
{
    CausalDumpCheck check;
    for (int m = 0; m < maps; ++m) {
        for (int q = 0; q < n; ++q) {
            const T* row = values + (size_t(m) * n + size_t(q)) * n;
            double sum = 0;
            for (int k = 0; k <= q; ++k)
                sum += double(row[k]);
            check.worstSum = std::max(check.worstSum, std::abs(sum - 1.0));
            for (int k = q + 1; k < n && check.aboveDiagonal.isEmpty(); ++k)
                if (row[k] != T(0))
                    check.aboveDiagonal =
                        QStringLiteral("map %1, query %2: key %3 above the diagonal holds %4")
                            .arg(m)
                            .arg(q)
                            .arg(k)
                            .arg(double(row[k]));
            if (q < prefix)
                for (int k = 0; k < prefix; ++k)
                    check.worstPrefix =
                        std::max(check.worstPrefix,
                                 std::abs(double(row[k]) -
                                          prefixDump.values[(size_t(m) * prefix + size_t(q)) * prefix + k]));
        }
    }
    return check;
}

} // namespace

class TestCliAttention : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void jsonMatchesOracle_data();
    void jsonMatchesOracle();
    void textMatchesOracle();
    void ggufFile();
    void maskPrediction();
    void npySubset();
    void npyMatchesOracle_data();
    void npyMatchesOracle();
    void npyPastTheStreamedSize();
    void largeNpyOnBlockBoundaries();
    void largeNpyWhereDirectWritesAreRefused();
    void outFileIsNotOverwritten();
    void outDashIsStandardOutput();
    void errors_data();
    void errors();
    void modelsListsCache();
    void modelsListsTypes();
    void predictNextToken();
};

void TestCliAttention::jsonMatchesOracle_data()
{
    addOracleCaseRows({"bert_s0", "bert_s1", "gpt2_s0", "gpt2_s1", "llama_s0", "llama_s1", "llama3_s1",
                       "gemma2_s0", "gemma3_s1", "qwen3_s1", "phi3_s1", "gpt_neox_s0", "roberta_s1",
                       "distilbert_s1"});
}

void TestCliAttention::jsonMatchesOracle()
{
    QFETCH(QString, caseName);
    const QJsonObject c = caseJson(caseName);
    const Result r =
        run({QStringLiteral("attention"), QStringLiteral("--model"), oracleFolder(caseName),
             QStringLiteral("--ids"), idsArgument(c.value(QLatin1String("input_ids")).toArray())});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QJsonParseError parseError;
    const QJsonObject json = QJsonDocument::fromJson(r.out, &parseError).object();
    QCOMPARE(parseError.error, QJsonParseError::NoError);
    QCOMPARE(json.value(QLatin1String("ids")).toArray(), c.value(QLatin1String("input_ids")).toArray());
    if (c.value(QLatin1String("tokens")).isArray()) // the vocabulary entries of the ids
        QCOMPARE(json.value(QLatin1String("tokens")).toArray(), c.value(QLatin1String("tokens")).toArray());
    const NpyArray expected = readNpyFile(oracleFolder(caseName) + QStringLiteral("/attentions.npy"));
    QCOMPARE(json.value(QLatin1String("layers")).toInt(), int(expected.shape[0]));
    QCOMPARE(json.value(QLatin1String("heads")).toInt(), int(expected.shape[1]));
    const QJsonArray layers = json.value(QLatin1String("attentions")).toArray();
    QCOMPARE(layers.size(), qsizetype(expected.shape[0]));
    double worst = 0;
    size_t index = 0;
    for (const QJsonValue& layer : layers)
        for (const QJsonValue& head : layer.toArray())
            for (const QJsonValue& row : head.toArray()) {
                QCOMPARE(row.toArray().size(), qsizetype(expected.shape[3]));
                for (const QJsonValue& p : row.toArray())
                    worst = std::max(worst, std::abs(p.toDouble() - expected.values[index++]));
            }
    QCOMPARE(index, expected.values.size());
    QVERIFY2(worst <= 1e-5, qPrintable(QString::number(worst)));
}

// --text goes through the folder's tokenizer: the same ids and attention as the oracle.
void TestCliAttention::textMatchesOracle()
{
    const QJsonObject c = caseJson(QStringLiteral("gpt2_s1"));
    const Result r =
        run({QStringLiteral("attention"), QStringLiteral("--model"), oracleFolder(QStringLiteral("gpt2_s1")),
             QStringLiteral("--text"), c.value(QLatin1String("text")).toString()});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject json = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(json.value(QLatin1String("ids")).toArray(), c.value(QLatin1String("input_ids")).toArray());
    QCOMPARE(json.value(QLatin1String("tokens")).toArray(), c.value(QLatin1String("tokens")).toArray());
    const double lastRowError = gpt2s1LastRowError(json);
    QVERIFY2(lastRowError <= 1e-5, qPrintable(QString::number(lastRowError)));
    // A model folder without tokenizer files says so.
    const Result noTokenizer =
        run({QStringLiteral("attention"), QStringLiteral("--model"), oracleFolder(QStringLiteral("llama_s0")),
             QStringLiteral("--text"), QStringLiteral("hello")});
    QCOMPARE(noTokenizer.exitCode, 1);
    QVERIFY2(noTokenizer.err.contains("no tokenizer files"), noTokenizer.err.constData());
}

// --model takes a llama.cpp .gguf file: gpt2_s1 (F16 weights) as an F16 GGUF gives the oracle's ids (through
// the tokenizer in its metadata) and attention; `tokenize` reads the same tokenizer.
void TestCliAttention::ggufFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("gpt2_s1-F16.gguf"));
    writeGgufFromFolder(oracleFolder(QStringLiteral("gpt2_s1")), path, GgmlType::F16);
    const QJsonObject c = caseJson(QStringLiteral("gpt2_s1"));
    const Result r = run({QStringLiteral("attention"), QStringLiteral("--model"), path,
                          QStringLiteral("--text"), c.value(QLatin1String("text")).toString()});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject json = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(json.value(QLatin1String("ids")).toArray(), c.value(QLatin1String("input_ids")).toArray());
    const double lastRowError = gpt2s1LastRowError(json);
    QVERIFY2(lastRowError <= 1e-5, qPrintable(QString::number(lastRowError)));
    const Result tokens = run({QStringLiteral("tokenize"), QStringLiteral("--model"), path,
                               QStringLiteral("--text"), c.value(QLatin1String("text")).toString()});
    QVERIFY2(tokens.exitCode == 0, tokens.err.constData());
    QCOMPARE(QJsonDocument::fromJson(tokens.out).object().value(QLatin1String("ids")).toArray(),
             c.value(QLatin1String("input_ids")).toArray());
    // A damaged file: one line naming it.
    QFile damaged(dir.filePath(QStringLiteral("bad.gguf")));
    QVERIFY(damaged.open(QIODevice::WriteOnly));
    damaged.write("GGUF\x03\0\0\0");
    damaged.close();
    const Result bad = run({QStringLiteral("attention"), QStringLiteral("--model"), damaged.fileName(),
                            QStringLiteral("--ids"), QStringLiteral("1,2")});
    QCOMPARE(bad.exitCode, 1);
    QVERIFY2(bad.err.contains("bad.gguf: ") && bad.err.count('\n') == 1, bad.err.constData());
}

void TestCliAttention::maskPrediction()
{
    const Result r =
        run({QStringLiteral("predict"), QStringLiteral("--model"), oracleFolder(QStringLiteral("bert_s0")),
             QStringLiteral("--text"), QStringLiteral("the quick [MASK] fox"), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonArray predictions = QJsonDocument::fromJson(r.out).array();
    QCOMPARE(predictions.size(), 1);
    QCOMPARE(predictions[0].toObject().value(QLatin1String("position")).toInt(), 3); // [CLS] the quick [MASK]
    QCOMPARE(predictions[0].toObject().value(QLatin1String("token")).toString(), QStringLiteral("[MASK]"));
    QCOMPARE(predictions[0].toObject().value(QLatin1String("top")).toArray().size(), 5);
}

void TestCliAttention::npySubset()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("a.npy"));
    const QJsonObject c = caseJson(QStringLiteral("llama_s1"));
    const Result r =
        run({QStringLiteral("attention"), QStringLiteral("--model"), oracleFolder(QStringLiteral("llama_s1")),
             QStringLiteral("--ids"), idsArgument(c.value(QLatin1String("input_ids")).toArray()),
             QStringLiteral("--layer"), QStringLiteral("1"), QStringLiteral("--head"), QStringLiteral("2"),
             QStringLiteral("--format"), QStringLiteral("npy"), QStringLiteral("--out"), out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.isEmpty());
    const NpyArray a = readNpyFile(out);
    QCOMPARE(a.type, NpyArray::Type::Float32);
    QCOMPARE(a.shape, (std::vector<qint64>{1, 1, 12, 12}));
    const NpyArray expected =
        readNpyFile(oracleFolder(QStringLiteral("llama_s1")) + QStringLiteral("/attentions.npy"));
    const size_t offset = (size_t(1) * 4 + 2) * 144;
    for (size_t i = 0; i < 144; ++i)
        QVERIFY(std::abs(a.values[i] - expected.values[offset + i]) <= 1e-5);
}

void TestCliAttention::npyMatchesOracle_data()
{
    addOracleCaseRows({"bert_s1", "gpt2_s1", "llama_s1", "gemma2_s1", "qwen3_s1", "gpt_neox_s1"});
}

// The whole npy dump (every layer's P streamed from the pass as it is computed) against the oracle.
void TestCliAttention::npyMatchesOracle()
{
    QFETCH(QString, caseName);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("a.npy"));
    const QJsonObject c = caseJson(caseName);
    const Result r = run({QStringLiteral("attention"), QStringLiteral("--model"), oracleFolder(caseName),
                          QStringLiteral("--ids"), idsArgument(c.value(QLatin1String("input_ids")).toArray()),
                          QStringLiteral("--format"), QStringLiteral("npy"), QStringLiteral("--out"), out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const NpyArray a = readNpyFile(out);
    const NpyArray expected = readNpyFile(oracleFolder(caseName) + QStringLiteral("/attentions.npy"));
    QCOMPARE(a.type, NpyArray::Type::Float32);
    QCOMPARE(a.shape, expected.shape);
    QCOMPARE(a.values.size(), expected.values.size());
    double worst = 0;
    for (size_t i = 0; i < a.values.size(); ++i)
        worst = std::max(worst, std::abs(double(a.values[i]) - double(expected.values[i])));
    QVERIFY2(worst <= 1e-5, qPrintable(QString::number(worst)));
}

// A layer whose P passes 256 MiB is not streamed from the pass: the tiled pass keeps Q, K and each row's
// logsumexp L, and P = exp(S − L) is recomputed head by head as it is written (cmd_attention.cpp). The tiny
// Llama (4 heads, its positions raised: RoPE has no position table) at 4,100 tokens: 4 × 4,100² floats =
// 269 MB for one layer. Checked on the dump: every row sums to 1 (L is right for every row), nothing above
// the diagonal (causal), and the first 64 queries' rows equal those of the first 64 tokens alone, written by
// the streamed dense path (in a causal model, query i sees tokens ≤ i only).
void TestCliAttention::npyPastTheStreamedSize()
{
    QTemporaryDir dir;
    const int n = 4100, prefix = 64;
    const LongLlama llama = longLlama(dir, 8192, n, 37, 11);
    QVERIFY(!llama.folder.isEmpty());
    const QString& model = llama.folder;
    const QStringList& ids = llama.ids;
    const int heads = llama.heads;
    QCOMPARE(heads, 4);
    QVERIFY(qint64(heads) * n * n * qint64(sizeof(float)) > (qint64(256) << 20)); // past the streamed size
    const QStringList layerOne{QStringLiteral("--layer"), QStringLiteral("1")};
    const QString bigPath = dir.filePath(QStringLiteral("big.npy")),
                  smallPath = dir.filePath(QStringLiteral("small.npy"));
    const Result big = dumpNpy(model, ids, n, bigPath, layerOne);
    QVERIFY2(big.exitCode == 0, big.err.constData());
    const Result small = dumpNpy(model, ids, prefix, smallPath, layerOne);
    QVERIFY2(small.exitCode == 0, small.err.constData());

    // The big dump read in place: its header as the writer makes it, then [1, heads, n, n] float32. A dump
    // of a MiB or more has its header padded to 4 KiB, so that the values sit on the file's blocks.
    QFile bigFile(bigPath);
    QVERIFY(bigFile.open(QIODevice::ReadOnly));
    const QByteArray header = npyHeader({1, heads, n, n}, false, 4096);
    QCOMPARE(bigFile.size(), qint64(header.size()) + qint64(heads) * n * n * qint64(sizeof(float)));
    QCOMPARE(bigFile.read(header.size()), header);
    const uchar* mapped = bigFile.map(0, bigFile.size());
    QVERIFY(mapped);
    const float* p = reinterpret_cast<const float*>(mapped + header.size()); // 4 KiB header: aligned
    const NpyArray expected = readNpyFile(smallPath);
    QCOMPARE(expected.shape, (std::vector<qint64>{1, heads, prefix, prefix}));
    const QString problem = causalDumpProblem(p, heads, n, expected, prefix);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

// A dump of a MiB or more has its header padded to 4 KiB, so that its values go out from the pass's
// page-aligned buffers uncopied (io/directwriter.h). Padded or not, it reads back as the same values: every
// row sums to 1, nothing is above the diagonal, and the first 16 queries equal the dump of the first 16
// tokens (a small dump, 64-byte header). Standard output gets the same bytes as the file: the padding follows
// the shape, not the target.
void TestCliAttention::largeNpyOnBlockBoundaries()
{
    QTemporaryDir dir;
    const int n = 300, prefix = 16;
    const LongLlama llama = longLlama(dir, 512, n, 53, 5);
    QVERIFY(!llama.folder.isEmpty());
    const QString& model = llama.folder;
    const QStringList& ids = llama.ids;
    const int layers = llama.layers, heads = llama.heads;
    QVERIFY(qint64(layers) * heads * n * n * qint64(sizeof(float)) >= (qint64(1) << 20));
    const QString bigPath = dir.filePath(QStringLiteral("big.npy")),
                  smallPath = dir.filePath(QStringLiteral("small.npy"));
    const Result big = dumpNpy(model, ids, n, bigPath);
    QVERIFY2(big.exitCode == 0, big.err.constData());
    const Result toStandardOutput = dumpNpy(model, ids, n, QStringLiteral("-"));
    QVERIFY2(toStandardOutput.exitCode == 0, toStandardOutput.err.constData());
    const Result small = dumpNpy(model, ids, prefix, smallPath);
    QVERIFY2(small.exitCode == 0, small.err.constData());

    const QByteArray bytes = readFileBytes(bigPath); // unreadable: empty, unlike standard output's
    QCOMPARE(toStandardOutput.out.size(), bytes.size());
    QVERIFY(toStandardOutput.out == bytes);
    const int bigHeader = 10 + (quint8(bytes[8]) | (quint8(bytes[9]) << 8));
    QCOMPARE(bigHeader % 4096, 0);
    QCOMPARE(qint64(bytes.size()),
             qint64(bigHeader) + qint64(layers) * heads * n * n * qint64(sizeof(float)));
    QFile smallFile(smallPath);
    QVERIFY(smallFile.open(QIODevice::ReadOnly));
    const QByteArray smallBytes = smallFile.read(10);
    const int smallHeader = 10 + (quint8(smallBytes[8]) | (quint8(smallBytes[9]) << 8));
    QVERIFY2(smallHeader < 4096 && smallHeader % 64 == 0, qPrintable(QString::number(smallHeader)));

    const NpyArray all = readNpyFile(bigPath);
    QCOMPARE(all.shape, (std::vector<qint64>{layers, heads, n, n}));
    const NpyArray expected = readNpyFile(smallPath);
    QCOMPARE(expected.shape, (std::vector<qint64>{layers, heads, prefix, prefix}));
    const QString problem = causalDumpProblem(all.values.data(), layers * heads, n, expected, prefix);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

// A file system that refuses O_DIRECT (ramfs here; FUSE and others for users): the dump goes through the
// page cache (io/directwriter.h), byte for byte what it is on a disk, and --verbose does not claim
// otherwise. ramfs is mounted in a mount namespace of the test's own (tests/support/privatemount.h, root
// only): where that is not allowed the test is skipped, saying so.
void TestCliAttention::largeNpyWhereDirectWritesAreRefused()
{
    QTemporaryDir dir;
    // 300 tokens, 2.9 MB of P: a 4 KiB header, then rows from page-aligned memory.
    const LongLlama llama = longLlama(dir, 512, 300, 53, 5);
    QVERIFY(!llama.folder.isEmpty());
    const QString& model = llama.folder;
    const QString ids = llama.ids.join(QLatin1Char(','));
    const QStringList command{QStringLiteral("attention"),
                              QStringLiteral("--model"),
                              model,
                              QStringLiteral("--ids"),
                              ids,
                              QStringLiteral("--format"),
                              QStringLiteral("npy"),
                              QStringLiteral("--verbose"),
                              QStringLiteral("--out")};

    const QString onDisk = dir.filePath(QStringLiteral("disk.npy"));
    const Result disk = run(command + QStringList{onDisk});
    QVERIFY2(disk.exitCode == 0, disk.err.constData());

    // ramfs in a mount namespace of this test process's own (tests/support/privatemount.h); the binary
    // started afterwards sees it.
    if (const QString why = enterPrivateMountNamespace(); !why.isEmpty())
        QSKIP(qPrintable(QStringLiteral("no ramfs can be mounted here: ") + why));
    const ScratchMount ramfs(dir.filePath(QStringLiteral("ramfs")), QStringLiteral("ramfs"), QString());
    QVERIFY2(ramfs.error().isEmpty(), qPrintable(ramfs.error()));
    ProcessOptions probeOptions; // the test needs a file system that refuses O_DIRECT
    probeOptions.timeoutMs = 60000;
    const ProcessRun probe = runProcess(
        QStringLiteral("dd"),
        {QStringLiteral("if=/dev/zero"), QStringLiteral("of=") + ramfs.filePath(QStringLiteral("probe")),
         QStringLiteral("bs=4096"), QStringLiteral("count=1"), QStringLiteral("oflag=direct")},
        probeOptions);
    QVERIFY(probe.finished);
    QVERIFY2(probe.exitCode != 0, "ramfs took an O_DIRECT write: the test needs a file system that refuses");
    const QString copied = ramfs.filePath(QStringLiteral("dump.npy"));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_RUNTIME_DIR"), dir.path());
    const Result toRamfs = run(command + QStringList{copied}, environment);
    QVERIFY(toRamfs.finished);
    QVERIFY2(toRamfs.exitCode == 0, toRamfs.err.constData());
    QVERIFY2(!toRamfs.err.contains("past the page cache"), toRamfs.err.constData());

    QFile diskFile(onDisk), ramfsFile(copied);
    QVERIFY(diskFile.open(QIODevice::ReadOnly));
    QVERIFY(ramfsFile.open(QIODevice::ReadOnly));
    const QByteArray expected = diskFile.readAll(), actual = ramfsFile.readAll();
    QCOMPARE(actual.size(), expected.size());
    QVERIFY(actual == expected);
    const NpyArray all = readNpyFile(copied); // and it is an npy of the right shape
    QCOMPARE(all.shape.size(), size_t(4));
    QCOMPARE(all.shape[2], qint64(300));
}

void TestCliAttention::outFileIsNotOverwritten()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("a.json"));
    QVERIFY(writeFileBytes(out, "keep me"));
    QFile existing(out);
    const QStringList arguments{QStringLiteral("attention"),
                                QStringLiteral("--model"),
                                oracleFolder(QStringLiteral("gpt2_s0")),
                                QStringLiteral("--ids"),
                                QStringLiteral("1,2,3"),
                                QStringLiteral("--out"),
                                out};
    const Result refused = run(arguments);
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains(out.toUtf8() +
                                  ": the file exists and was not overwritten (use --force to overwrite)"),
             refused.err.constData());
    QVERIFY(existing.open(QIODevice::ReadOnly));
    QCOMPARE(existing.readAll(), QByteArray("keep me"));
    existing.close();
    const Result forced = run(arguments + QStringList{QStringLiteral("--force")});
    QCOMPARE(forced.exitCode, 0);
    QVERIFY(existing.open(QIODevice::ReadOnly));
    QCOMPARE(QJsonDocument::fromJson(existing.readAll()).object().value(QLatin1String("layers")).toInt(), 2);
}

// "--out -" writes to standard output, as "-" reads standard input for --text-file: the npy's bytes are the
// ones --out FILE writes, JSON equals the output without --out, and no file named "-" appears.
void TestCliAttention::outDashIsStandardOutput()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("a.npy"));
    const QJsonObject c = caseJson(QStringLiteral("llama_s1"));
    const QStringList base{QStringLiteral("attention"), QStringLiteral("--model"),
                           oracleFolder(QStringLiteral("llama_s1")), QStringLiteral("--ids"),
                           idsArgument(c.value(QLatin1String("input_ids")).toArray())};
    const QStringList npy{QStringLiteral("--format"), QStringLiteral("npy")};
    const Result toFile = run(base + npy + QStringList{QStringLiteral("--out"), file});
    QVERIFY2(toFile.exitCode == 0, toFile.err.constData());
    QFile written(file);
    QVERIFY(written.open(QIODevice::ReadOnly));
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const Result npyOut =
        run(base + npy + QStringList{QStringLiteral("--out"), QStringLiteral("-")}, env, dir.path());
    QVERIFY2(npyOut.exitCode == 0, npyOut.err.constData());
    QCOMPARE(npyOut.out, written.readAll());
    const Result plain = run(base);
    const Result jsonOut =
        run(base + QStringList{QStringLiteral("--out"), QStringLiteral("-")}, env, dir.path());
    QVERIFY2(jsonOut.exitCode == 0, jsonOut.err.constData());
    QVERIFY(!plain.out.isEmpty());
    QCOMPARE(jsonOut.out, plain.out);
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("-"))));
}

void TestCliAttention::errors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QString bert = oracleFolder(QStringLiteral("bert_s0"));
    const QString attention = QStringLiteral("attention");
    auto args = [&](std::initializer_list<const char*> rest) {
        QStringList list{attention};
        for (const char* a : rest)
            list << QString::fromUtf8(a);
        return list;
    };
    QTest::newRow("no model") << args({"--ids", "1"}) << 2 << "--model is required";
    QTest::newRow("no input") << (args({"--model"}) << bert) << 2 << "exactly one of --text or --ids";
    QTest::newRow("both inputs") << (args({"--model"})
                                     << bert << QStringLiteral("--ids") << QStringLiteral("1")
                                     << QStringLiteral("--text") << QStringLiteral("hi"))
                                 << 2 << "exactly one of --text or --ids";
    QTest::newRow("bad ids") << (args({"--model"})
                                 << bert << QStringLiteral("--ids") << QStringLiteral("1,x"))
                             << 1 << "'x' is not a non-negative integer";
    QTest::newRow("id outside vocabulary")
        << (args({"--model"}) << bert << QStringLiteral("--ids") << QStringLiteral("2,500")) << 1
        << "token id 500 at position 1 is outside the vocabulary";
    QTest::newRow("bad format") << (args({"--model"})
                                    << bert << QStringLiteral("--ids") << QStringLiteral("1")
                                    << QStringLiteral("--format") << QStringLiteral("xml"))
                                << 2 << "--format must be json or npy";
    QTest::newRow("bad backend") << (args({"--model"})
                                     << bert << QStringLiteral("--ids") << QStringLiteral("1")
                                     << QStringLiteral("--backend") << QStringLiteral("tpu"))
                                 << 2 << "--backend tpu is not supported";
    QTest::newRow("layer out of range")
        << (args({"--model"}) << bert << QStringLiteral("--ids") << QStringLiteral("1")
                              << QStringLiteral("--layer") << QStringLiteral("2"))
        << 2 << "--layer 2 is outside 0..1";
    QTest::newRow("missing model") << args({"--model", "/nonexistent/model", "--ids", "1"}) << 1
                                   << "/nonexistent/model: no such model folder";
    QTest::newRow("text longer than max positions")
        << (args({"--model"}) << bert << QStringLiteral("--text")
                              << QStringLiteral("the quick brown fox ").repeated(20))
        << 1 << "82 tokens are more than the 64 positions this model takes";
    QTest::newRow("unknown option") << args({"--bogus"}) << 2 << "bogus";
}

void TestCliAttention::errors()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("never.json"));
    // --backend cpu: probing for a GPU (auto) lets Qt print its own platform warnings on stderr when there is
    // no display; the command's error must still be exactly one line.
    if (!arguments.contains(QStringLiteral("--backend")))
        arguments << QStringLiteral("--backend") << QStringLiteral("cpu");
    const Result r = run(arguments + QStringList{QStringLiteral("--out"), out});
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    QVERIFY2(r.err.count('\n') == 1, r.err.constData()); // one line
    QVERIFY(r.out.isEmpty());
    QVERIFY(!QFile::exists(out)); // nothing written
}

void TestCliAttention::modelsListsCache()
{
    QTemporaryDir home;
    const QString snapshot = home.filePath(QStringLiteral("hub/models--acme--tiny/snapshots/abc"));
    QVERIFY(QDir().mkpath(snapshot));
    for (const char* file : {"config.json", "model.safetensors", "tokenizer.json"})
        QVERIFY(QFile::copy(oracleFolder(QStringLiteral("gpt2_s0")) + QLatin1Char('/') + QLatin1String(file),
                            snapshot + QLatin1Char('/') + QLatin1String(file)));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("HF_HUB_CACHE"));
    env.insert(QStringLiteral("HF_HOME"), home.path());
    const Result r = run({QStringLiteral("models"), QStringLiteral("--json")}, env);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonArray models = QJsonDocument::fromJson(r.out).array();
    QJsonObject tiny;
    bool seenCache = false;
    for (const QJsonValue& v : models) {
        const QJsonObject m = v.toObject();
        if (!m.value(QLatin1String("builtin")).toBool())
            seenCache = true;
        else
            QVERIFY2(!seenCache, "built-in models come first");
        if (m.value(QLatin1String("name")).toString() == QLatin1String("acme/tiny")) tiny = m;
    }
    QCOMPARE(tiny.value(QLatin1String("architecture")).toString(), QStringLiteral("gpt2"));
    QCOMPARE(tiny.value(QLatin1String("kind")).toString(), QStringLiteral("decoder"));
    QCOMPARE(tiny.value(QLatin1String("layers")).toInt(), 2);
    QCOMPARE(tiny.value(QLatin1String("heads")).toInt(), 4);
    QCOMPARE(tiny.value(QLatin1String("builtin")).toBool(), false);
    QCOMPARE(tiny.value(QLatin1String("path")).toString(), QDir(snapshot).absolutePath());
    QCOMPARE(qint64(tiny.value(QLatin1String("size")).toDouble()),
             QFileInfo(snapshot + QStringLiteral("/model.safetensors")).size());
    // The listed name is accepted by --model.
    const Result byName =
        run({QStringLiteral("attention"), QStringLiteral("--model"), QStringLiteral("acme/tiny"),
             QStringLiteral("--ids"), QStringLiteral("84,288")},
            env);
    QVERIFY2(byName.exitCode == 0, byName.err.constData());
    const Result tokenized =
        run({QStringLiteral("tokenize"), QStringLiteral("--model"), QStringLiteral("acme/tiny"),
             QStringLiteral("--text"), QStringLiteral("The quick")},
            env);
    QVERIFY2(tokenized.exitCode == 0, tokenized.err.constData());
    QCOMPARE(QJsonDocument::fromJson(tokenized.out).object().value(QLatin1String("ids")).toArray(),
             (QJsonArray{84, 288, 263}));
}

// `attnscope models --types`: the model types the family units run, the same list an unsupported one is
// refused with.
void TestCliAttention::modelsListsTypes()
{
    const Result r = run({QStringLiteral("models"), QStringLiteral("--types")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QStringList types = QString::fromUtf8(r.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (const char* type :
         {"bert", "distilbert", "gemma", "gemma2", "gemma3", "gemma3_text", "gpt2", "gpt_neox", "llama",
          "mistral", "phi", "phi3", "qwen2", "qwen3", "roberta", "xlm-roberta"})
        QVERIFY2(types.contains(QLatin1String(type)), type);
    const Result json = run({QStringLiteral("models"), QStringLiteral("--types"), QStringLiteral("--json")});
    QCOMPARE(QJsonDocument::fromJson(json.out).array().size(), types.size());
    const Result help = run({QStringLiteral("models"), QStringLiteral("--help")});
    QVERIFY(QString::fromUtf8(help.out).contains(QStringLiteral("gemma3_text")));
}

void TestCliAttention::predictNextToken()
{
    const Result r =
        run({QStringLiteral("predict"), QStringLiteral("--model"), oracleFolder(QStringLiteral("gpt2_s0")),
             QStringLiteral("--ids"), QStringLiteral("84,288,263"), QStringLiteral("--json"),
             QStringLiteral("--top"), QStringLiteral("3")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonArray predictions = QJsonDocument::fromJson(r.out).array();
    QCOMPARE(predictions.size(), 1);
    const QJsonObject p = predictions[0].toObject();
    QCOMPARE(p.value(QLatin1String("position")).toInt(), 2);
    const QJsonArray top = p.value(QLatin1String("top")).toArray();
    QCOMPARE(top.size(), 3);
    QVERIFY(top[0].toObject().value(QLatin1String("probability")).toDouble() >=
            top[1].toObject().value(QLatin1String("probability")).toDouble());

    // "text" is the tokenizer's decoding of the id: for the built-in decoder's SentencePiece-style
    // vocabulary "▁the" decodes to "the" (▁ becomes a space, one leading space is stripped).
    const Result builtin =
        run({QStringLiteral("predict"), QStringLiteral("--model"), QStringLiteral("tiny-llama-en-tr"),
             QStringLiteral("--text"), QStringLiteral("The old man walked slowly to the"),
             QStringLiteral("--json")});
    QVERIFY2(builtin.exitCode == 0, builtin.err.constData());
    const QJsonArray next =
        QJsonDocument::fromJson(builtin.out).array().at(0).toObject().value(QLatin1String("top")).toArray();
    QCOMPARE(next.size(), 5);
    for (const QJsonValue& value : next) {
        const QString token = value.toObject().value(QLatin1String("token")).toString();
        if (token.startsWith(QLatin1String("<0x"))) continue;
        QString expected = token;
        expected.replace(QChar(0x2581), QLatin1Char(' '));
        if (expected.startsWith(QLatin1Char(' '))) expected.remove(0, 1);
        QCOMPARE(value.toObject().value(QLatin1String("text")).toString(), expected);
    }
}

QTEST_GUILESS_MAIN(TestCliAttention)
#include "tst_cli_attention.moc"
