// Issue 35 through the real binary: every input is bounded (standard input included), a FIFO without a
// writer is refused instead of blocking forever, a text longer than the model's positions is refused as
// such, `stream` checks its cache against the model before any work, and a config that leaves layers of the
// checkpoint unused says so.

#include "core/support/modelfixtures.h"
#include "io/inputfile.h"
#include "support/processrun.h"
#include "support/testdata.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

using Result = TextRun;

// attnscope with these arguments and `input` on its standard input (closed after it). A run that has not
// ended after two minutes is killed and reported unfinished: the commands below refuse in well under a
// second, and the old code blocked on a FIFO forever.
Result run(const QStringList& arguments, const QByteArray& input = {})
{
    ProcessOptions options;
    options.environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    options.input = input;
    return runProcess(QStringLiteral(ATTNSCOPE_BINARY), arguments, options).text();
}

} // namespace

class TestCliBoundedInput : public QObject
{
    Q_OBJECT

private slots:
    void standardInputIsBounded();
    void fifoInputsAreRefused_data();
    void fifoInputsAreRefused();
    void longTextIsRefusedForItsPositions();
    void streamChecksItsCacheBeforeAnyWork();
    void unusedLayersAreAWarning();
};

// `yes | attnscope tokenize --text-file -` grew to 2.1 GB and aborted. Standard input now has the text
// limit: one byte past it is refused, naming standard input and the limit.
void TestCliBoundedInput::standardInputIsBounded()
{
    const QByteArray overLimit = QByteArray("y\n").repeated(int(kMaxTextFileBytes / 2)) + "y";
    const Result result =
        run({QStringLiteral("tokenize"), QStringLiteral("--model"), oracleFolder(QStringLiteral("gpt2_s1")),
             QStringLiteral("--text-file"), QStringLiteral("-")},
            overLimit);
    QVERIFY(result.finished);
    QCOMPARE(result.exitCode, 2); // as for every --text-file that cannot be used (app/main.cpp)
    QVERIFY2(result.err.contains(QLatin1String("tokenize: standard input: is over the 16.0 MiB limit")),
             qPrintable(result.err.left(500)));
    QVERIFY(result.out.isEmpty());

    // Within the limit it is read as before.
    const Result small =
        run({QStringLiteral("tokenize"), QStringLiteral("--model"), oracleFolder(QStringLiteral("gpt2_s1")),
             QStringLiteral("--text-file"), QStringLiteral("-")},
            "hello world");
    QCOMPARE(small.exitCode, 0);
    QVERIFY2(small.out.contains(QLatin1String("\"ids\"")), qPrintable(small.err));
}

void TestCliBoundedInput::fifoInputsAreRefused_data()
{
    QTest::addColumn<QString>("input");
    QTest::newRow("--text-file FIFO") << QStringLiteral("text");
    QTest::newRow("census --corpus FIFO") << QStringLiteral("corpus");
    QTest::newRow("census --resume, census.json a FIFO") << QStringLiteral("resume");
}

// A FIFO without a writer blocked each of these forever (in open()). It is refused as not a regular file.
void TestCliBoundedInput::fifoInputsAreRefused()
{
    QFETCH(QString, input);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("out"));
    // census on gpt2_s1 of `corpus` into `out`.
    const auto census = [&](const QString& corpus) {
        return QStringList{QStringLiteral("census"),
                           QStringLiteral("--model"),
                           oracleFolder(QStringLiteral("gpt2_s1")),
                           QStringLiteral("--corpus"),
                           corpus,
                           QStringLiteral("--out"),
                           out};
    };
    QStringList arguments;
    QString fifo;
    if (input == QLatin1String("text")) {
        fifo = dir.filePath(QStringLiteral("text.txt"));
        arguments = {QStringLiteral("attention"), QStringLiteral("--model"),
                     oracleFolder(QStringLiteral("gpt2_s1")), QStringLiteral("--text-file"), fifo};
    } else if (input == QLatin1String("corpus")) {
        fifo = dir.filePath(QStringLiteral("corpus.txt"));
        arguments = census(fifo);
    } else {
        QVERIFY(QDir().mkpath(out));
        fifo = QDir(out).filePath(QStringLiteral("census.json"));
        const QString corpus = dir.filePath(QStringLiteral("corpus.txt"));
        QVERIFY(writeFileBytes(corpus, "hello world\n"));
        arguments = census(corpus) << QStringLiteral("--resume");
    }
    if (!makeFifo(fifo)) QSKIP("cannot make a FIFO here");
    const Result result = run(arguments);
    QVERIFY2(result.finished, "the command blocked on a FIFO without a writer");
    QVERIFY2(result.exitCode != 0, qPrintable(result.err));
    QVERIFY2(result.err.contains(fifo) &&
                 result.err.contains(QLatin1String("not a regular file but a FIFO (named pipe)")),
             qPrintable(result.err));
}

// 4,001 tokens on a model of 64 positions was refused with "raise it with --max-output-size", which cannot
// help: the limit is the model's positions, and the message says so.
void TestCliBoundedInput::longTextIsRefusedForItsPositions()
{
    QTemporaryDir dir;
    const QString text = dir.filePath(QStringLiteral("long.txt"));
    QVERIFY(writeFileBytes(text, QByteArray("hello world ").repeated(2000)));
    for (const QString& command : {QStringLiteral("attention"), QStringLiteral("predict"),
                                   QStringLiteral("rollout"), QStringLiteral("stats")}) {
        const Result result =
            run({command, QStringLiteral("--model"), oracleFolder(QStringLiteral("gpt2_s1")),
                 QStringLiteral("--text-file"), text});
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(result.err.contains(QLatin1String("4001 tokens are more than the 64 positions")) &&
                     !result.err.contains(QLatin1String("max-output-size")),
                 qPrintable(command + QLatin1String(": ") + result.err));
    }
}

// `stream` ran the whole full-attention policy (its progress and perplexity lines) before it refused its
// default cache of 256 on a model of 64 positions, and the sinks were never checked against the model.
void TestCliBoundedInput::streamChecksItsCacheBeforeAnyWork()
{
    const QString text = QStringLiteral("hello world ").repeated(40);
    for (const QStringList& extra :
         {QStringList{}, QStringList{QStringLiteral("--cache"), QStringLiteral("100"),
                                     QStringLiteral("--sinks"), QStringLiteral("80")}}) {
        const Result result =
            run(QStringList{QStringLiteral("stream"), QStringLiteral("--model"),
                            oracleFolder(QStringLiteral("gpt2_s1")), QStringLiteral("--text"), text} +
                extra);
        QCOMPARE(result.exitCode, 1);
        const QString cache = extra.isEmpty() ? QStringLiteral("256") : QStringLiteral("100");
        QVERIFY2(
            result.err.contains(QStringLiteral("a cache of %1 entries: it must hold 2 to 64").arg(cache)),
            qPrintable(result.err));
        // Nothing ran: no progress, no perplexity, no token count.
        QVERIFY2(!result.err.contains(QLatin1String("perplexity")) &&
                     !result.err.contains(QLatin1String("tokens,")),
                 qPrintable(result.err));
        QVERIFY(result.out.isEmpty());
    }
}

// A config of 1 layer on a 2-layer checkpoint ran without a word; now it runs with one warning line.
void TestCliBoundedInput::unusedLayersAreAWarning()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("m"));
    copyModel(oracleFolder(QStringLiteral("gpt2_s1")), folder);
    const QString configPath = folder + QStringLiteral("/config.json");
    QFile file(configPath);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QJsonObject config = QJsonDocument::fromJson(file.readAll()).object();
    file.close();
    config.insert(QStringLiteral("n_layer"), 1);
    QVERIFY(writeFileBytes(configPath, QJsonDocument(config).toJson()));
    const Result result = run({QStringLiteral("attention"), QStringLiteral("--model"), folder,
                               QStringLiteral("--text"), QStringLiteral("hello world")});
    QCOMPARE(result.exitCode, 0);
    const QStringList lines = result.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.filter(QLatin1String("warning")).size(), 1);
    QVERIFY2(
        lines.filter(QLatin1String("warning"))
            .front()
            .startsWith(QStringLiteral("attnscope: warning: %1: 1 layer, but the weights also hold layer 1 (")
                            .arg(QDir::toNativeSeparators(configPath))),
        qPrintable(result.err));
    QCOMPARE(QJsonDocument::fromJson(result.out.toUtf8()).object().value(QStringLiteral("layers")).toInt(),
             1);
}

QTEST_GUILESS_MAIN(TestCliBoundedInput)
#include "tst_cli_bounded_input.moc"
