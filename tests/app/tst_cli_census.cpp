// attnscope census: its numbers against upstream transformers' attention (oracle BERT fixture, by hand
// from docs/metrics.md), its files (JSON, CSV, PNG, SVG), stopping with SIGTERM and --resume, and one-line
// errors on bad arguments and files.

#include "support/processrun.h"
#include "support/testdata.h"

#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

using namespace attnscope::testing;

namespace {

const QString kEncoder = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-bert-en-tr");

using Run = TextRun;

Run census(const QStringList& arguments, int timeoutMs = 120000)
{
    ProcessOptions options;
    options.timeoutMs = timeoutMs;
    // A run that outlasts the timeout fails with exit code -1 (under ASan, stopAndResume's runs once passed
    // the exit-code check with a process still running and compared half-written counts).
    Run run = runProcess(QStringLiteral(ATTNSCOPE_BINARY), QStringList{QStringLiteral("census")} + arguments,
                         options)
                  .text();
    if (!run.finished)
        return {-1, false, {}, QStringLiteral("census timed out after %1 s").arg(timeoutMs / 1000)};
    return run;
}

void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
}

} // namespace

class TestCliCensus : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The oracle sentence twice: every head's mean is the statistic of upstream's P by hand, spread 0.
    void matchesUpstreamAttentionByHand()
    {
        const QString folder = QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/bert_s0");
        const QJsonObject fixture = readJsonObject(folder + QStringLiteral("/case.json"));
        if (fixture.isEmpty()) QSKIP("oracle fixtures not available");
        const QString text = fixture.value(QStringLiteral("text")).toString();
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("c.txt")),
                  (text + QLatin1Char('\n') + text + QLatin1Char('\n')).toUtf8());
        const Run run = census({QStringLiteral("--model"), folder, QStringLiteral("--corpus"),
                                dir.filePath(QStringLiteral("c.txt")), QStringLiteral("--out"),
                                dir.filePath(QStringLiteral("out")), QStringLiteral("--quiet")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY(run.out.startsWith(QStringLiteral("complete: 2 inputs")));
        const QJsonObject result = readJsonObject(dir.filePath(QStringLiteral("out/census.json")));
        QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("complete"));

        const QJsonArray tokens = fixture.value(QStringLiteral("tokens")).toArray();
        const int n = tokens.size();
        const auto special = [&](int i) { return tokens.at(i).toString().startsWith(QLatin1Char('[')); };
        const auto punctuation = [&](int i) {
            const QString t = tokens.at(i).toString();
            return !t.isEmpty() && std::all_of(t.begin(), t.end(), [](QChar c) { return c.isPunct(); });
        };
        const QJsonArray heads = result.value(QStringLiteral("heads")).toArray();
        QCOMPARE(heads.size(), fixtureHeadCount(fixture));
        for (const auto& [h, p] : headsWithFixtureP(heads, fixture)) {
            double first = 0, sep = 0, punct = 0, self = 0, prev = 0, next = 0;
            int rows = 0;
            for (int i = 0; i < n; ++i) {
                if (special(i)) continue;
                const QJsonArray row = p.at(i).toArray();
                ++rows;
                first += row.at(0).toDouble();
                sep += row.at(n - 1).toDouble();
                for (int j = 0; j < n; ++j)
                    if (punctuation(j)) punct += row.at(j).toDouble();
                self += row.at(i).toDouble();
                prev += row.at(i - 1).toDouble();
                next += row.at(i + 1).toDouble();
            }
            const std::vector<std::pair<QString, double>> expected{
                {QStringLiteral("first_token"), first / rows}, {QStringLiteral("cls_mass"), first / rows},
                {QStringLiteral("sep_mass"), sep / rows},      {QStringLiteral("punct_mass"), punct / rows},
                {QStringLiteral("self"), self / rows},         {QStringLiteral("prev"), prev / rows},
                {QStringLiteral("next"), next / rows}};
            for (const auto& [key, want] : expected) {
                const QJsonObject stat = h.value(key).toObject();
                QVERIFY2(std::abs(stat.value(QStringLiteral("mean")).toDouble() - want) < 1e-4,
                         qPrintable(key));
                QVERIFY(stat.value(QStringLiteral("std")).toDouble() < 1e-6);
            }
        }
    }

    void writesTablesAndFigures()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("c.txt")), censusSentences(12));
        const QString out = dir.filePath(QStringLiteral("out"));
        const Run run = census({QStringLiteral("--model"), kEncoder, QStringLiteral("--corpus"),
                                dir.filePath(QStringLiteral("c.txt")), QStringLiteral("--out"), out,
                                QStringLiteral("--quiet"), QStringLiteral("--limit"), QStringLiteral("10"),
                                QStringLiteral("--backend"), QStringLiteral("cpu")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject result = readJsonObject(out + QStringLiteral("/census.json"));
        QCOMPARE(result.value(QStringLiteral("inputs")).toObject().value(QStringLiteral("done")).toInt(), 10);
        QFile heads(out + QStringLiteral("/heads.csv"));
        QVERIFY(heads.open(QIODevice::ReadOnly));
        const QList<QByteArray> rows = heads.readAll().trimmed().split('\n');
        QCOMPARE(rows.size(), 1 + 6 * 8); // header + every head of the 6 × 8 encoder
        QVERIFY(rows.front().startsWith("layer,head,inputs,first_token_mean,first_token_std"));
        QVERIFY(rows.at(1).startsWith("0,0,10,"));
        QImage grid(out + QStringLiteral("/heads-sep_mass.png"));
        QVERIFY(!grid.isNull() && grid.width() >= 400);
        QImage curves(out + QStringLiteral("/layers.png"));
        QVERIFY(!curves.isNull());
        QFile svg(out + QStringLiteral("/layers.svg"));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        QVERIFY(svg.readAll().contains("<svg"));
        // A second census into the same folder is refused unless resumed; resuming a complete one is a no-op.
        const Run again = census({QStringLiteral("--model"), kEncoder, QStringLiteral("--corpus"),
                                  dir.filePath(QStringLiteral("c.txt")), QStringLiteral("--out"), out});
        QCOMPARE(again.exitCode, 1);
        QVERIFY(again.err.contains(QStringLiteral("--resume")));
    }

    // SIGTERM (as Ctrl+C) stops after the current input with a valid partial file; --resume finishes it
    // with the same counts as one uninterrupted run.
    void stopAndResume()
    {
        QTemporaryDir dir;
        const QString corpus = dir.filePath(QStringLiteral("c.txt"));
        writeFile(corpus, censusSentences(600));
        const QStringList common{QStringLiteral("--model"),   kEncoder,
                                 QStringLiteral("--corpus"),  corpus,
                                 QStringLiteral("--threads"), QStringLiteral("1")};
        // The census holds after 150 inputs until it is stopped (a test-only hook): the stop lands at that
        // input on any machine, however fast or loaded, and the run cannot end before it.
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("ATTNSCOPE_TEST_CENSUS_HOLD_AFTER"), QStringLiteral("150"));
        process.setProcessEnvironment(environment);
        process.start(QStringLiteral(ATTNSCOPE_BINARY),
                      QStringList{QStringLiteral("census")} + common +
                          QStringList{QStringLiteral("--out"), dir.filePath(QStringLiteral("part"))});
        QVERIFY(process.waitForStarted());
        QByteArray err;
        // A hang guard only: the hold waits for the stop, so no speed changes what is checked.
        QTRY_VERIFY2_WITH_TIMEOUT(
            (err += process.readAllStandardError()).contains("holding after 150 inputs"), err.constData(),
            480000);
        process.terminate();
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 130);
        const QJsonObject partial = readJsonObject(dir.filePath(QStringLiteral("part/census.json")));
        QCOMPARE(partial.value(QStringLiteral("status")).toString(), QStringLiteral("cancelled"));
        QCOMPARE(partial.value(QStringLiteral("inputs")).toObject().value(QStringLiteral("done")).toInt(),
                 150);

        // Up to 8 min per run: a whole run took over 2 min under the asan preset on a loaded 2-core machine.
        const Run resumed =
            census(common + QStringList{QStringLiteral("--out"), dir.filePath(QStringLiteral("part")),
                                        QStringLiteral("--resume"), QStringLiteral("--quiet")},
                   480000);
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        const Run whole =
            census(common + QStringList{QStringLiteral("--out"), dir.filePath(QStringLiteral("whole")),
                                        QStringLiteral("--quiet")},
                   480000);
        QVERIFY2(whole.exitCode == 0, qPrintable(whole.err));
        const QJsonObject a = readJsonObject(dir.filePath(QStringLiteral("part/census.json")));
        const QJsonObject b = readJsonObject(dir.filePath(QStringLiteral("whole/census.json")));
        QCOMPARE(a.value(QStringLiteral("inputs")), b.value(QStringLiteral("inputs")));
        const QJsonArray ha = a.value(QStringLiteral("heads")).toArray(),
                         hb = b.value(QStringLiteral("heads")).toArray();
        const auto sepMean = [](const QJsonArray& heads, qsizetype i) {
            return heads.at(i)
                .toObject()
                .value(QStringLiteral("sep_mass"))
                .toObject()
                .value(QStringLiteral("mean"))
                .toDouble();
        };
        for (qsizetype i = 0; i < ha.size(); ++i)
            QVERIFY(std::abs(sepMean(ha, i) - sepMean(hb, i)) < 1e-6);
    }

    void badArgumentsAndFiles()
    {
        QTemporaryDir dir;
        Run run = census({QStringLiteral("--model"), kEncoder});
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.err.count(QLatin1Char('\n')), 1);
        run = census({QStringLiteral("--model"), kEncoder, QStringLiteral("--corpus"),
                      dir.filePath(QStringLiteral("none.txt")), QStringLiteral("--out"),
                      dir.filePath(QStringLiteral("o"))});
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.err.contains(QStringLiteral("none.txt")));
        QCOMPARE(run.err.count(QLatin1Char('\n')), 1);
        // Refused before any work: nothing written, not even the folder (a "failed" census.json there once
        // made the next good run say "a census is already there").
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("o"))));
        run = census({QStringLiteral("--model"), kEncoder, QStringLiteral("--corpus"),
                      dir.filePath(QStringLiteral("none.txt")), QStringLiteral("--max-tokens"),
                      QStringLiteral("x")});
        QCOMPARE(run.exitCode, 2);
        writeFile(dir.filePath(QStringLiteral("c.txt")), "one line\n");
        run = census({QStringLiteral("--model"), kEncoder, QStringLiteral("--corpus"),
                      dir.filePath(QStringLiteral("c.txt")), QStringLiteral("--out"),
                      dir.filePath(QStringLiteral("r")), QStringLiteral("--resume")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.err.contains(QStringLiteral("cannot resume")));
    }

    // Skipped lines are counted and located, in English that reads right for one and for several.
    void reportsSkippedLines()
    {
        QTemporaryDir dir;
        // Line 2 empty, line 3 invalid UTF-8; then lines 5 and 6 invalid, 4 and 7 empty.
        writeFile(dir.filePath(QStringLiteral("one.txt")), "The cat sat.\n\n\xff bad\nA dog ran.\n");
        Run run = census({QStringLiteral("--model"), kEncoder, QStringLiteral("--corpus"),
                          dir.filePath(QStringLiteral("one.txt")), QStringLiteral("--out"),
                          dir.filePath(QStringLiteral("o1"))});
        QCOMPARE(run.exitCode, 0);
        const QString all1 = run.out + run.err;
        QVERIFY2(all1.contains(QStringLiteral("1 empty line skipped")), qPrintable(all1));
        QVERIFY2(all1.contains(QStringLiteral("1 line of invalid UTF-8 skipped (line 3)")), qPrintable(all1));
        writeFile(dir.filePath(QStringLiteral("two.txt")),
                  "The cat sat.\nA dog ran.\n\xfe\n\n\xff x\n\xc3 y\n\n");
        run = census({QStringLiteral("--model"), kEncoder, QStringLiteral("--corpus"),
                      dir.filePath(QStringLiteral("two.txt")), QStringLiteral("--out"),
                      dir.filePath(QStringLiteral("o2"))});
        QCOMPARE(run.exitCode, 0);
        const QString all2 = run.out + run.err;
        QVERIFY2(all2.contains(QStringLiteral("2 empty lines skipped")), qPrintable(all2));
        QVERIFY2(all2.contains(QStringLiteral("3 lines of invalid UTF-8 skipped (lines 3,5,6)")),
                 qPrintable(all2));
    }

    // A census refused for its arguments (a corpus that is a folder, a device or missing, --max-tokens past
    // the model's positions) writes nothing, so the next good run into the same --out is not blocked by a
    // "failed" census.json. Each says what is wrong in one line.
    void refusedCensusWritesNothing_data()
    {
        QTest::addColumn<QString>("corpus"); // "" = a good corpus
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("expected");
        QTest::newRow("corpus is a folder") << QDir::tempPath() << QStringList{} << QStringLiteral("folder");
        QTest::newRow("corpus is /dev/null")
            << QStringLiteral("/dev/null") << QStringList{} << QStringLiteral("a character device");
        QTest::newRow("--max-tokens 100000")
            << QString() << QStringList{QStringLiteral("--max-tokens"), QStringLiteral("100000")}
            << QStringLiteral("--max-tokens is 100000");
    }
    void refusedCensusWritesNothing()
    {
        QFETCH(QString, corpus);
        QFETCH(QStringList, extra);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString good = dir.filePath(QStringLiteral("c.txt"));
        writeFile(good, censusSentences(3));
        const QString out = dir.filePath(QStringLiteral("out"));
        const QStringList model{QStringLiteral("--model"), kEncoder,
                                QStringLiteral("--out"),   out,
                                QStringLiteral("--quiet"), QStringLiteral("--backend"),
                                QStringLiteral("cpu")};
        const Run refused =
            census(model + QStringList{QStringLiteral("--corpus"), corpus.isEmpty() ? good : corpus} + extra);
        QVERIFY2(refused.exitCode != 0 && refused.exitCode != -1, qPrintable(refused.err));
        QCOMPARE(refused.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(refused.err.contains(expected), qPrintable(refused.err));
        QVERIFY2(!refused.err.contains(QStringLiteral("saved position")), qPrintable(refused.err));
        QVERIFY2(!QFileInfo::exists(out), "the refused census wrote its --out folder");
        const Run next = census(model + QStringList{QStringLiteral("--corpus"), good});
        QVERIFY2(next.exitCode == 0, qPrintable(next.err));
        QCOMPARE(readJsonObject(out + QStringLiteral("/census.json"))
                     .value(QStringLiteral("inputs"))
                     .toObject()
                     .value(QStringLiteral("done"))
                     .toInt(),
                 3);
    }

    // A corpus without one usable input is an error, naming the file and counting what was skipped, and
    // writes nothing (it wrote a "complete" census of 0 inputs with exit code 0).
    void noUsableInputIsAnError_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("skipped"); // the count of skipped lines in the message ("" when none)
        QTest::newRow("empty file") << QStringLiteral("c.txt") << QByteArray() << QString();
        QTest::newRow("newlines only")
            << QStringLiteral("c.txt") << QByteArray("\n\n\n") << QStringLiteral("3 empty lines skipped");
        QTest::newRow("binary") << QStringLiteral("c.txt")
                                << QByteArray("\x00\x01\x02\xff\xfe\n\x7f\x00\n", 9)
                                << QStringLiteral("2 lines of invalid UTF-8 skipped (lines 1,2)");
        QTest::newRow("invalid UTF-8") << QStringLiteral("c.txt") << QByteArray("caf\xe9\n\xc3\n")
                                       << QStringLiteral("2 lines of invalid UTF-8 skipped (lines 1,2)");
        const QString notJson = QStringLiteral("1 line not a JSON object with a \"text\" string (line 1)");
        QTest::newRow("JSONL text 3")
            << QStringLiteral("c.jsonl") << QByteArray("{\"text\": 3}\n") << notJson;
        QTest::newRow("JSONL null") << QStringLiteral("c.jsonl") << QByteArray("null\n") << notJson;
        QTest::newRow("JSONL no text")
            << QStringLiteral("c.jsonl") << QByteArray("{\"x\": \"a\"}\n") << notJson;
        QTest::newRow("JSONL truncated")
            << QStringLiteral("c.jsonl") << QByteArray("{\"text\": \"a") << notJson;
    }
    void noUsableInputIsAnError()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, skipped);
        QTemporaryDir dir;
        const QString corpus = dir.filePath(name);
        writeFile(corpus, bytes);
        const QString out = dir.filePath(QStringLiteral("out"));
        const Run run = census({QStringLiteral("--model"), kEncoder, QStringLiteral("--corpus"), corpus,
                                QStringLiteral("--out"), out, QStringLiteral("--quiet")});
        QVERIFY2(run.exitCode == 1, qPrintable(QString::number(run.exitCode) + run.out + run.err));
        QCOMPARE(run.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(run.err.contains(corpus + QStringLiteral(": no usable input")), qPrintable(run.err));
        if (!skipped.isEmpty()) QVERIFY2(run.err.contains(skipped), qPrintable(run.err));
        QVERIFY2(!QFileInfo::exists(out), "a census of no input wrote its --out folder");
    }

    // A line over 1 MiB is one rejected line, counted and located, also under --quiet (a count of rejected
    // input is not progress chatter). It was read as 1 MiB pieces, each taken for an input of its own.
    void overlongLineIsOneRejectedLine()
    {
        QTemporaryDir dir;
        const QString corpus = dir.filePath(QStringLiteral("c.txt"));
        writeFile(corpus, "The cat sat.\n" + QByteArray("word ").repeated(700000) + "\nA dog ran.\n");
        const QString out = dir.filePath(QStringLiteral("out"));
        const Run run = census({QStringLiteral("--model"), kEncoder, QStringLiteral("--corpus"), corpus,
                                QStringLiteral("--out"), out, QStringLiteral("--quiet")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2((run.out + run.err).contains(QStringLiteral("1 line over 1 MiB skipped (line 2)")),
                 qPrintable(run.out + run.err));
        const QJsonObject result = readJsonObject(out + QStringLiteral("/census.json"));
        QCOMPARE(result.value(QStringLiteral("inputs")).toObject().value(QStringLiteral("done")).toInt(), 2);
        QCOMPARE(
            result.value(QStringLiteral("progress")).toObject().value(QStringLiteral("lines_read")).toInt(),
            3);
    }

    // A census.json of a format version past int is reported with its own number (toInt() made it 0).
    void hugeFormatVersionIsReportedAsIs()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("c.txt")), censusSentences(2));
        QDir().mkpath(dir.filePath(QStringLiteral("out")));
        writeFile(dir.filePath(QStringLiteral("out/census.json")),
                  "{\"format\": \"attnscope-census\", \"version\": 1000000000000}");
        const Run run = census({QStringLiteral("--model"), kEncoder, QStringLiteral("--corpus"),
                                dir.filePath(QStringLiteral("c.txt")), QStringLiteral("--out"),
                                dir.filePath(QStringLiteral("out")), QStringLiteral("--resume")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QStringLiteral("format version 1000000000000;")), qPrintable(run.err));
    }
};

QTEST_GUILESS_MAIN(TestCliCensus)
#include "tst_cli_census.moc"
