// The commands as a hostile user drives them (issue 18): special files as outputs, stdout that cannot be
// written, arguments that are not text or not options, dumps too large to write, models full of NaN, and
// kill -9 in the middle of a batch export. Each run is the real attnscope binary.

#include "core/support/modelfixtures.h"
#include "support/processrun.h"
#include "support/testdata.h"

#include <QDirIterator>
#include <QElapsedTimer>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cstring>
#include <limits>

#ifdef Q_OS_UNIX
#include <sys/stat.h>
#endif

using namespace attnscope;
using namespace attnscope::testing;

namespace {

using Result = TextRun;

QProcessEnvironment commandEnvironment()
{
    // Commands that paint start a QGuiApplication; without XDG_RUNTIME_DIR Qt adds a warning line of its own.
    return environmentWithoutDisplay();
}

// attnscope with these arguments; stdout goes to `stdoutFile` when given (e.g. /dev/full).
Result run(const QStringList& arguments, const QString& stdoutFile = {}, const QString& workingDirectory = {})
{
    ProcessOptions options;
    options.environment = commandEnvironment();
    options.stdoutFile = stdoutFile;
    options.workingDirectory = workingDirectory;
    return runProcess(QStringLiteral(ATTNSCOPE_BINARY), arguments, options).text();
}

// Lines of stderr that are the command's own ("attnscope: ...").
QStringList ownErrorLines(const QString& err)
{
    QStringList lines;
    for (const QString& line : err.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        if (line.startsWith(QLatin1String("attnscope: "))) lines << line;
    return lines;
}

// The one line of stderr that is the command's own, as a refusal writes it; "" where there is none or more
// than one (so that a check of its words fails).
QString onlyOwnErrorLine(const QString& err)
{
    const QStringList lines = ownErrorLines(err);
    return lines.size() == 1 ? lines.front() : QString();
}

bool isFifo(const QString& path)
{
#ifdef Q_OS_UNIX
    struct stat st = {};
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 && S_ISFIFO(st.st_mode);
#else
    Q_UNUSED(path);
    return false;
#endif
}

QStringList filesIn(const QString& folder)
{
    QStringList files;
    QDirIterator it(folder, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        files << QDir(folder).relativeFilePath(it.next());
    files.sort();
    return files;
}

QString readText(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

const QString kWorked = QStringLiteral("kedi mindere oturdu");

// `export` of the worked example's head grid, then `rest` (--out and the flags).
QStringList workedGridExport(const QStringList& rest)
{
    return QStringList{QStringLiteral("export"),
                       QStringLiteral("--model"),
                       QStringLiteral("worked-example"),
                       QStringLiteral("--text"),
                       kWorked,
                       QStringLiteral("--grid")} +
           rest;
}

} // namespace

class TestCliHostile : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void unreachableDisplayFallsBackToOffscreen();
    void outputsRefuseSpecialFiles_data();
    void outputsRefuseSpecialFiles();
    void lessonFollowsTheExportRules();
    void stdoutWriteErrorsFail_data();
    void stdoutWriteErrorsFail();
    void extraArgumentsAreRefused_data();
    void extraArgumentsAreRefused();
    void invalidUtf8IsRefused();
    void layerMustBeANumber();
    void emptyTextIsRefused_data();
    void emptyTextIsRefused();
    void dumpsAreSizedFirst_data();
    void dumpsAreSizedFirst();
    void nonFiniteModelsFail_data();
    void nonFiniteModelsFail();
    void killedBatchExportLeavesNoPartialFiles();
    void outOptionNamesTheRealProblem_data();
    void outOptionNamesTheRealProblem();

private:
    QTemporaryDir m_dir;
    QString m_nanModel;  // gpt2_s0 with a NaN in layer 0's fused QKV
    QString m_longModel; // llama_s0 taking 100000 positions (RoPE: no position weights to grow)
};

void TestCliHostile::initTestCase()
{
    m_nanModel = m_dir.filePath(QStringLiteral("nan-gpt2"));
    copyModel(oracleFolder(QStringLiteral("gpt2_s0")), m_nanModel, [](std::vector<TensorToWrite>& tensors) {
        for (TensorToWrite& t : tensors)
            if (t.name == QLatin1String("transformer.h.0.attn.c_attn.weight")) {
                const float nan = std::numeric_limits<float>::quiet_NaN();
                std::memcpy(t.data.data() + 4 * 7, &nan, 4);
            }
    });
    m_longModel = m_dir.filePath(QStringLiteral("long-llama"));
    copyModel(oracleFolder(QStringLiteral("llama_s0")), m_longModel);
    editModelConfig(m_longModel, QStringLiteral("max_position_embeddings"), 100000);
}

// Item 2: --out over a FIFO (or a link to one) replaced it with a regular file, even without --force for
// lesson.
void TestCliHostile::outputsRefuseSpecialFiles_data()
{
    QTest::addColumn<QStringList>("arguments"); // "@OUT" is the path of the special file
    QTest::addColumn<bool>("throughLink");
    const QString bert = oracleFolder(QStringLiteral("bert_s0"));
    const QStringList attention{
        QStringLiteral("attention"), QStringLiteral("--model"), bert,
        QStringLiteral("--ids"),     QStringLiteral("2,3,4"),   QStringLiteral("--backend"),
        QStringLiteral("cpu"),       QStringLiteral("--force"), QStringLiteral("--out"),
        QStringLiteral("@OUT")};
    QTest::newRow("attention") << attention << false;
    QTest::newRow("attention, link to a FIFO") << attention << true;
    QTest::newRow("export") << workedGridExport({QStringLiteral("--force"), QStringLiteral("--out"),
                                                 QStringLiteral("@OUT")})
                            << false;
    QTest::newRow("lesson") << QStringList{QStringLiteral("lesson"), QStringLiteral("--force"),
                                           QStringLiteral("--out"), QStringLiteral("@OUT")}
                            << false;
    QTest::newRow("lesson without --force")
        << QStringList{QStringLiteral("lesson"), QStringLiteral("--out"), QStringLiteral("@OUT")} << false;
}

void TestCliHostile::outputsRefuseSpecialFiles()
{
    QFETCH(QStringList, arguments);
    QFETCH(bool, throughLink);
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("pipe.csv"));
    if (!makeFifo(fifo)) QSKIP("no FIFOs here");
    QString out = fifo;
    if (throughLink) {
        out = dir.filePath(QStringLiteral("link.csv"));
        QVERIFY(QFile::link(fifo, out));
    }
    arguments.replaceInStrings(QStringLiteral("@OUT"), out);
    const Result r = run(arguments);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(onlyOwnErrorLine(r.err).contains(out + QStringLiteral(": not a regular file but a FIFO")),
             qPrintable(r.err));
    QVERIFY(isFifo(fifo));
    const QStringList expected = throughLink
                                     ? QStringList{QStringLiteral("link.csv"), QStringLiteral("pipe.csv")}
                                     : QStringList{QStringLiteral("pipe.csv")};
    QCOMPARE(filesIn(dir.path()), expected); // nothing written beside them
}

// Item 2: lesson overwrote existing files; it has --force now, like export.
void TestCliHostile::lessonFollowsTheExportRules()
{
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("step.csv"));
    QVERIFY(writeFileBytes(csv, "precious\n"));
    Result r = run({QStringLiteral("lesson"), QStringLiteral("--step"), QStringLiteral("1"),
                    QStringLiteral("--no-scale"), QStringLiteral("--out"), csv});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(
        r.err.contains(
            csv + QStringLiteral(": the file exists and was not overwritten (use --force to overwrite)")),
        qPrintable(r.err));
    QCOMPARE(readText(csv), QStringLiteral("precious\n"));
    r = run({QStringLiteral("lesson"), QStringLiteral("--step"), QStringLiteral("1"),
             QStringLiteral("--no-scale"), QStringLiteral("--out"), csv, QStringLiteral("--force")});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(readText(csv),
             QStringLiteral(",kedi,mindere,oturdu\nkedi,6,2,4\nmindere,2,6,2\noturdu,6,3,5\n"));
    QCOMPARE(filesIn(dir.path()), QStringList{QStringLiteral("step.csv")});
}

// Item 7: `attnscope attention ... > /dev/full` exited 0; so did stats, tokenize, predict, models, lesson,
// export.
void TestCliHostile::stdoutWriteErrorsFail_data()
{
    QTest::addColumn<QStringList>("arguments");
    const QString bert = oracleFolder(QStringLiteral("bert_s1"));
    const QString gpt2 = oracleFolder(QStringLiteral("gpt2_s0"));
    QTest::newRow("attention") << QStringList{
        QStringLiteral("attention"), QStringLiteral("--model"), bert,
        QStringLiteral("--ids"),     QStringLiteral("2,3,4"),   QStringLiteral("--backend"),
        QStringLiteral("cpu")};
    QTest::newRow("stats") << QStringList{QStringLiteral("stats"), QStringLiteral("--model"), gpt2,
                                          QStringLiteral("--text"), QStringLiteral("The quick brown fox")};
    QTest::newRow("tokenize") << QStringList{QStringLiteral("tokenize"), QStringLiteral("--model"), gpt2,
                                             QStringLiteral("--text"), QStringLiteral("The quick brown fox")};
    QTest::newRow("predict") << QStringList{
        QStringLiteral("predict"), QStringLiteral("--model"),         gpt2,
        QStringLiteral("--text"),  QStringLiteral("The quick brown"), QStringLiteral("--backend"),
        QStringLiteral("cpu")};
    QTest::newRow("models") << QStringList{QStringLiteral("models")};
    QTest::newRow("lesson") << QStringList{QStringLiteral("lesson")};
    QTest::newRow("export") << workedGridExport({QStringLiteral("--out"), QStringLiteral("@DIR/grid.csv")});
    QTest::newRow("help") << QStringList{QStringLiteral("attention"), QStringLiteral("--help")};
}

void TestCliHostile::stdoutWriteErrorsFail()
{
    QFETCH(QStringList, arguments);
    if (!QFileInfo(QStringLiteral("/dev/full")).exists()) QSKIP("no /dev/full");
    QTemporaryDir dir;
    arguments.replaceInStrings(QStringLiteral("@DIR"), dir.path());
    // The same command succeeds when stdout can be written: the failure below is stdout's alone.
    const Result ok = run(arguments, dir.filePath(QStringLiteral("stdout.txt")));
    QVERIFY2(ok.exitCode == 0, qPrintable(ok.err));
    QVERIFY(QFileInfo(dir.filePath(QStringLiteral("stdout.txt"))).size() > 0);
    QFile::remove(dir.filePath(QStringLiteral("grid.csv")));
    const Result full = run(arguments, QStringLiteral("/dev/full"));
    QVERIFY2(full.exitCode != 0, qPrintable(full.err));
    QVERIFY2(onlyOwnErrorLine(full.err).contains(
                 QStringLiteral("cannot write to standard output: No space left on device")),
             qPrintable(full.err));
}

// Item 9: attention (and predict, stats, tokenize, models) ignored extra positional arguments; so did
// every command added later until they all parsed through parseCommandLine.
void TestCliHostile::extraArgumentsAreRefused_data()
{
    QTest::addColumn<QStringList>("arguments");
    const QString gpt2 = oracleFolder(QStringLiteral("gpt2_s0"));
    QTest::newRow("attention") << QStringList{
        QStringLiteral("attention"), QStringLiteral("--model"), gpt2,
        QStringLiteral("--text"),    QStringLiteral("The"),     QStringLiteral("quick"),
        QStringLiteral("--backend"), QStringLiteral("cpu")};
    QTest::newRow("predict") << QStringList{
        QStringLiteral("predict"), QStringLiteral("--model"), gpt2,
        QStringLiteral("--text"),  QStringLiteral("The"),     QStringLiteral("quick")};
    QTest::newRow("stats") << QStringList{
        QStringLiteral("stats"),  QStringLiteral("--model"), gpt2,
        QStringLiteral("--text"), QStringLiteral("The"),     QStringLiteral("quick")};
    QTest::newRow("tokenize") << QStringList{
        QStringLiteral("tokenize"), QStringLiteral("--model"), gpt2,
        QStringLiteral("--text"),   QStringLiteral("The"),     QStringLiteral("quick")};
    // The commands that came later (issues 14, 16, 17) and the export/lesson commands: every one refuses.
    for (const char* command : {"ablate", "residual", "rollout", "generate", "stream", "export"})
        QTest::newRow(command) << QStringList{
            QString::fromLatin1(command), QStringLiteral("--model"), gpt2,
            QStringLiteral("--text"),     QStringLiteral("The"),     QStringLiteral("quick")};
    QTest::newRow("census") << QStringList{QStringLiteral("census"), QStringLiteral("--model"), gpt2,
                                           QStringLiteral("quick")};
    QTest::newRow("lesson") << QStringList{QStringLiteral("lesson"), QStringLiteral("quick")};
    QTest::newRow("models") << QStringList{QStringLiteral("models"), QStringLiteral("quick")};
    QTest::newRow("gpu-info") << QStringList{QStringLiteral("gpu-info"), QStringLiteral("quick")};
}

void TestCliHostile::extraArgumentsAreRefused()
{
    QFETCH(QStringList, arguments);
    const Result r = run(arguments);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(onlyOwnErrorLine(r.err).contains(
                 QStringLiteral("%1: unexpected argument 'quick'").arg(arguments.front())),
             qPrintable(r.err));
}

// Item 9: invalid UTF-8 in the text became U+FFFD without a word.
void TestCliHostile::invalidUtf8IsRefused()
{
#ifndef Q_OS_UNIX
    QSKIP("arguments are bytes only on Unix");
#else
    // QProcess passes QStrings (always valid UTF-8): the shell puts the raw byte in.
    QProcess process;
    process.setProcessEnvironment(commandEnvironment());
    process.start(
        QStringLiteral("/bin/sh"),
        {QStringLiteral("-c"),
         QStringLiteral("exec \"$0\" tokenize --model \"$1\" --text \"$(printf 'kedi \\377 oturdu')\""),
         QStringLiteral(ATTNSCOPE_BINARY), oracleFolder(QStringLiteral("bert_s0"))});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 2);
    QVERIFY(process.readAllStandardOutput().isEmpty());
    const QString err = QString::fromUtf8(process.readAllStandardError());
    QVERIFY2(
        err.contains(QStringLiteral("argument 5 is not valid UTF-8 text (an invalid byte after 'kedi ')")),
        qPrintable(err));
#endif
}

// Item 10: "--layer abc is outside 0..5".
void TestCliHostile::layerMustBeANumber()
{
    QTemporaryDir dir;
    const Result r =
        run({QStringLiteral("attention"), QStringLiteral("--model"), oracleFolder(QStringLiteral("bert_s0")),
             QStringLiteral("--ids"), QStringLiteral("2,3"), QStringLiteral("--layer"), QStringLiteral("abc"),
             QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--out"),
             dir.filePath(QStringLiteral("a.json"))});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("attention: --layer 'abc' is not a number")), qPrintable(r.err));
    QCOMPARE(filesIn(dir.path()), QStringList());
}

// Issue 36: an empty or spaces-only --text ran on [CLS] [SEP] alone (or was taken as no text): now each
// command that needs a text refuses it in one line, exit 2, before a model is opened.
void TestCliHostile::emptyTextIsRefused_data()
{
    QTest::addColumn<QStringList>("arguments");
    const QString bert = oracleFolder(QStringLiteral("bert_s0"));
    const QString llama = oracleFolder(QStringLiteral("llama_s0"));
    QTest::newRow("attention") << QStringList{QStringLiteral("attention"), QStringLiteral("--model"), bert,
                                              QStringLiteral("--text"), QString()};
    QTest::newRow("attention spaces") << QStringList{QStringLiteral("attention"), QStringLiteral("--model"),
                                                     bert, QStringLiteral("--text"), QStringLiteral("   ")};
    QTest::newRow("stats") << QStringList{QStringLiteral("stats"), QStringLiteral("--model"), bert,
                                          QStringLiteral("--text"), QStringLiteral(" \t")};
    QTest::newRow("predict") << QStringList{QStringLiteral("predict"), QStringLiteral("--model"), bert,
                                            QStringLiteral("--text"), QString()};
    QTest::newRow("generate") << QStringList{QStringLiteral("generate"), QStringLiteral("--model"), llama,
                                             QStringLiteral("--text"), QString()};
    QTest::newRow("export") << QStringList{QStringLiteral("export"),
                                           QStringLiteral("--model"),
                                           bert,
                                           QStringLiteral("--text"),
                                           QString(),
                                           QStringLiteral("--grid"),
                                           QStringLiteral("--out"),
                                           QStringLiteral("never.png")};
}

void TestCliHostile::emptyTextIsRefused()
{
    QFETCH(QStringList, arguments);
    QTemporaryDir dir;
    const Result r = run(arguments, {}, dir.path());
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(onlyOwnErrorLine(r.err).contains(arguments.front() +
                                              QStringLiteral(": --text is empty; give a sentence")),
             qPrintable(r.err));
    QCOMPARE(filesIn(dir.path()), QStringList());
}

// Item 5: an 8,192-token full dump passed 8 GB in 31 s. Now the size is estimated before the forward pass
// (or before the matrices are gathered) and refused over --max-output-size (default 1G), the estimate shown.
void TestCliHostile::dumpsAreSizedFirst_data()
{
    QTest::addColumn<QStringList>(
        "arguments"); // @LONG: the long model, @IDS: 9000 ids, @DIR: a temporary folder
    QTest::addColumn<QString>("problem");
    QStringList ids;
    for (int i = 0; i < 9000; ++i)
        ids << QString::number(1 + i % 50);
    const QStringList longAttention{QStringLiteral("attention"), QStringLiteral("--model"),
                                    QStringLiteral("@LONG"),     QStringLiteral("--ids"),
                                    ids.join(QLatin1Char(',')),  QStringLiteral("--backend"),
                                    QStringLiteral("cpu")};
    // 2 layers × 4 heads × 9000² floats: 2.4 GiB of npy, ~9 GiB of JSON, both over the default 1 GiB.
    QTest::newRow("npy, default limit")
        << (longAttention + QStringList{QStringLiteral("--format"), QStringLiteral("npy"),
                                        QStringLiteral("--out"), QStringLiteral("@DIR/a.npy")})
        << "2 layers x 4 heads x (9000 tokens)^2: the output would be about 2.4 GiB, over the "
           "limit of 1.0 GiB (raise it with --max-output-size)";
    QTest::newRow("json to stdout, default limit") << longAttention << "the output would be about 9.";
    QTest::newRow("one head, lower limit")
        << (longAttention + QStringList{QStringLiteral("--layer"), QStringLiteral("0"),
                                        QStringLiteral("--head"), QStringLiteral("0"),
                                        QStringLiteral("--format"), QStringLiteral("npy"),
                                        QStringLiteral("--out"), QStringLiteral("@DIR/a.npy"),
                                        QStringLiteral("--max-output-size"), QStringLiteral("100M")})
        << "1 layer x 1 head x (9000 tokens)^2: the output would be about 309.0 MiB, over the limit of 100.0 "
           "MiB";
    const QStringList worked{QStringLiteral("export"), QStringLiteral("--model"),
                             QStringLiteral("worked-example"), QStringLiteral("--text"), kWorked};
    QTest::newRow("export grid") << (worked + QStringList{QStringLiteral("--grid"), QStringLiteral("--out"),
                                                          QStringLiteral("@DIR/g.csv"),
                                                          QStringLiteral("--max-output-size"),
                                                          QStringLiteral("100")})
                                 << "over the limit of 100 bytes";
    QTest::newRow("export all heads")
        << (worked + QStringList{QStringLiteral("--all-heads"), QStringLiteral("@DIR/heads"),
                                 QStringLiteral("--out"), QStringLiteral("h.npy"),
                                 QStringLiteral("--max-output-size"), QStringLiteral("200")})
        << "over the limit of 200 bytes";
    QTest::newRow("not a size") << (worked + QStringList{QStringLiteral("--grid"), QStringLiteral("--out"),
                                                         QStringLiteral("@DIR/g.csv"),
                                                         QStringLiteral("--max-output-size"),
                                                         QStringLiteral("lots")})
                                << "--max-output-size 'lots' is not a size";
}

void TestCliHostile::dumpsAreSizedFirst()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    arguments.replaceInStrings(QStringLiteral("@LONG"), m_longModel);
    arguments.replaceInStrings(QStringLiteral("@DIR"), dir.path());
    QElapsedTimer timer;
    timer.start();
    const Result r = run(arguments);
    QVERIFY2(r.exitCode == 1 || r.exitCode == 2, qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
    QVERIFY2(onlyOwnErrorLine(r.err).contains(problem), qPrintable(r.err));
    QVERIFY2(timer.elapsed() < 30000,
             "refused only after computing"); // the 9000-token forward pass never ran
    QCOMPARE(filesIn(dir.path()).filter(QRegularExpression(QStringLiteral("\\.(npy|csv|json)$"))),
             QStringList());
}

// Item 4: a NaN weight gave all-zero rows in `attention`, "nan" in CSV, "mixed" heads in stats and ranked
// "nan" predictions, all with exit 0.
void TestCliHostile::nonFiniteModelsFail_data()
{
    QTest::addColumn<QStringList>("arguments"); // @MODEL, @DIR
    const QStringList text{QStringLiteral("--model"), QStringLiteral("@MODEL"), QStringLiteral("--text"),
                           QStringLiteral("The quick brown fox")};
    QTest::newRow("attention") << (QStringList{QStringLiteral("attention")} + text +
                                   QStringList{QStringLiteral("--backend"), QStringLiteral("cpu"),
                                               QStringLiteral("--out"), QStringLiteral("@DIR/a.json")});
    QTest::newRow("export csv") << (QStringList{QStringLiteral("export")} + text +
                                    QStringList{QStringLiteral("--layer"), QStringLiteral("0"),
                                                QStringLiteral("--head"), QStringLiteral("0"),
                                                QStringLiteral("--out"), QStringLiteral("@DIR/h.csv")});
    QTest::newRow("stats") << (QStringList{QStringLiteral("stats")} + text);
    QTest::newRow("predict") << (QStringList{QStringLiteral("predict")} + text +
                                 QStringList{QStringLiteral("--backend"), QStringLiteral("cpu")});
}

void TestCliHostile::nonFiniteModelsFail()
{
    QFETCH(QStringList, arguments);
    QTemporaryDir dir;
    arguments.replaceInStrings(QStringLiteral("@MODEL"), m_nanModel);
    arguments.replaceInStrings(QStringLiteral("@DIR"), dir.path());
    const Result r = run(arguments);
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(onlyOwnErrorLine(r.err).contains(
                 QStringLiteral("model.safetensors: layer 0: NaN in the queries (from weight "
                                "transformer.h.0.attn.c_attn.weight, which holds NaN?)")),
             qPrintable(r.err));
    QCOMPARE(filesIn(dir.path()), QStringList());
}

// What held before issue 18 and must keep holding: kill -9 at any point of a batch export leaves only
// complete files, and no temporary ones. The export is held at each of its nine commits, before the file
// has its name and after, by the writer's own kill point (ATTNSCOPE_TEST_HOLD_COMMIT, core/io/stagedfile),
// and killed there: no race with the machine's speed.
void TestCliHostile::killedBatchExportLeavesNoPartialFiles()
{
    const QString model = oracleFolder(QStringLiteral("bert_s0"));
    const auto start = [&](QProcess& process, const QString& heads, const QString& hold) {
        QProcessEnvironment environment = commandEnvironment();
        if (!hold.isEmpty()) environment.insert(QStringLiteral("ATTNSCOPE_TEST_HOLD_COMMIT"), hold);
        process.setProcessEnvironment(environment);
        process.start(QStringLiteral(ATTNSCOPE_BINARY),
                      {QStringLiteral("export"), QStringLiteral("--model"), model, QStringLiteral("--text"),
                       QStringLiteral("The quick brown fox jumps over the lazy dog."),
                       QStringLiteral("--all-heads"), heads, QStringLiteral("--out"), QStringLiteral("h.png"),
                       QStringLiteral("--size"), QStringLiteral("1600x1400")});
    };
    const QRegularExpression finalName(QStringLiteral("^h-(L\\d-H\\d|grid)\\.png$"));
    constexpr int kFiles = 2 * 4 + 1; // bert_s0: 2 layers × 4 heads, and the grid
    {
        QTemporaryDir dir;
        QProcess process;
        start(process, dir.filePath(QStringLiteral("heads")), QString());
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitCode(), 0);
        QCOMPARE(filesIn(dir.filePath(QStringLiteral("heads"))).size(), kFiles);
    }
    for (int commit = 1; commit <= kFiles; ++commit)
        for (const bool after : {false, true}) {
            const QString hold = QString::number(commit) + (after ? QStringLiteral(":after") : QString());
            QTemporaryDir dir;
            const QString heads = dir.filePath(QStringLiteral("heads"));
            QProcess process;
            start(process, heads, hold);
            QVERIFY(process.waitForStarted());
            process.setReadChannel(QProcess::StandardError); // what waitForReadyRead waits for
            QByteArray err;
            while (!err.contains("until killed") && process.state() == QProcess::Running)
                if (process.waitForReadyRead(120000)) err += process.readAllStandardError();
            QVERIFY2(err.contains(QByteArrayLiteral("holding at commit ") + QByteArray::number(commit)),
                     qPrintable(hold + QStringLiteral(": ") + QString::fromLocal8Bit(err)));
            process.kill(); // SIGKILL, at the known point
            QVERIFY(process.waitForFinished(120000));
            const QStringList files = filesIn(heads);
            for (const QString& file : files) {
                QVERIFY2(finalName.match(file).hasMatch(), qPrintable(hold + QStringLiteral(": ") + file));
                QVERIFY2(!QImage(heads + QLatin1Char('/') + file).isNull(), qPrintable(file)); // complete
            }
            // Killed before its commit the file is not there at all; after, it is there whole.
            QCOMPARE(files.size(), after ? commit : commit - 1);
        }
}

// A DISPLAY that refuses connections (a stale `ssh -X` one; Xvfb resetting a new client under load, which
// failed CI once) aborted every painting command in QGuiApplication. They fall back to offscreen.
void TestCliHostile::unreachableDisplayFallsBackToOffscreen()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // A display number no server listens on: the socket does not exist, so xcb cannot connect.
    QString display;
    for (int number = 4242; number < 4300 && display.isEmpty(); ++number)
        if (!QFileInfo::exists(QStringLiteral("/tmp/.X11-unix/X%1").arg(number)))
            display = QStringLiteral(":%1").arg(number);
    QVERIFY(!display.isEmpty());
    QProcessEnvironment env = commandEnvironment();
    env.insert(QStringLiteral("DISPLAY"), display);
    const QString png = dir.filePath(QStringLiteral("grid.png"));
    for (const QStringList& arguments :
         {QStringList{QStringLiteral("attention"), QStringLiteral("--model"),
                      oracleFolder(QStringLiteral("gpt2_s0")), QStringLiteral("--ids"),
                      QStringLiteral("1,2,3")},
          QStringList{QStringLiteral("export"), QStringLiteral("--model"),
                      oracleFolder(QStringLiteral("gpt2_s0")), QStringLiteral("--text"),
                      QStringLiteral("the cat sat"), QStringLiteral("--grid"), QStringLiteral("--out"),
                      png}}) {
        QProcess process;
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(ATTNSCOPE_BINARY), arguments);
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    }
    QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() > 100 && image.height() > 100);
}

// --out that names no file: the message says what is wrong with it (issue 35), before any work, not
// "attnscope: : unknown format ''" or "unknown format" for a folder; an empty --out was standard output for
// attention and rollout. export --all-heads without --out says what --out is for.
void TestCliHostile::outOptionNamesTheRealProblem_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");   // in the one error line
    QTest::addColumn<QString>("misleading"); // never in it
    const QString folder = QDir::tempPath(); // an existing folder
    const QStringList exportHead = workedGridExport({QStringLiteral("--out")});
    const QStringList lesson{QStringLiteral("lesson"), QStringLiteral("--step"), QStringLiteral("3"),
                             QStringLiteral("--out")};
    const QStringList attention{QStringLiteral("attention"),
                                QStringLiteral("--model"),
                                QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/gpt2_s0"),
                                QStringLiteral("--ids"),
                                QStringLiteral("1,2,3"),
                                QStringLiteral("--out")};
    const QStringList rollout{QStringLiteral("rollout"),
                              QStringLiteral("--model"),
                              QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/gpt2_s0"),
                              QStringLiteral("--ids"),
                              QStringLiteral("1,2,3"),
                              QStringLiteral("--out")};
    const QString empty = QStringLiteral("--out is an empty path"),
                  unknown = QStringLiteral("unknown format");
    const QString isFolder = QStringLiteral(": is a folder, not a file");
    QTest::newRow("export --out ''") << (exportHead + QStringList{QString()}) << empty << unknown;
    QTest::newRow("export --out new/") << (exportHead + QStringList{QStringLiteral("no-such-dir/")})
                                       << (QStringLiteral("no-such-dir/") + isFolder) << unknown;
    QTest::newRow("export --out folder")
        << (exportHead + QStringList{folder}) << (folder + isFolder) << unknown;
    QTest::newRow("lesson --out ''") << (lesson + QStringList{QString()}) << empty << unknown;
    QTest::newRow("lesson --out folder/") << (lesson + QStringList{folder + QLatin1Char('/')})
                                          << (folder + QLatin1Char('/') + isFolder) << unknown;
    QTest::newRow("attention --out ''") << (attention + QStringList{QString()}) << empty << QString();
    QTest::newRow("attention --out folder/") << (attention + QStringList{folder + QLatin1Char('/')})
                                             << (folder + QLatin1Char('/') + isFolder) << QString();
    QTest::newRow("rollout --out ''") << (rollout + QStringList{QString()}) << empty << QString();
    QTest::newRow("export --all-heads X, no --out")
        << QStringList{QStringLiteral("export"),
                       QStringLiteral("--model"),
                       QStringLiteral("worked-example"),
                       QStringLiteral("--text"),
                       kWorked,
                       QStringLiteral("--all-heads"),
                       QStringLiteral("X")}
        << QStringLiteral("--all-heads X writes NAME-L<l>-H<h>.EXT") << QStringLiteral("--out is required");
}

void TestCliHostile::outOptionNamesTheRealProblem()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    QFETCH(QString, misleading);
    QTemporaryDir dir;
    const Result result = run(arguments, {}, dir.path());
    QCOMPARE(result.exitCode, 2);
    QVERIFY2(result.out.isEmpty(), qPrintable(result.out.left(200)));
    const QString line = onlyOwnErrorLine(result.err);
    QVERIFY2(!line.isEmpty(), qPrintable(result.err));
    QVERIFY2(line.contains(expected), qPrintable(line));
    if (!misleading.isEmpty()) QVERIFY2(!line.contains(misleading), qPrintable(line));
    QVERIFY2(filesIn(dir.path()).isEmpty(), qPrintable(filesIn(dir.path()).join(QLatin1Char(' '))));
}

QTEST_GUILESS_MAIN(TestCliHostile)
#include "tst_cli_hostile.moc"
