// `attnscope tokenize` as scripts use it: the binary on an oracle folder, its one-line JSON, its errors.

#include "core/support/modelfixtures.h"
#include "support/processrun.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace attnscope::testing;

namespace {

using Run = ProcessRun;

Run runAttnscope(const QStringList& arguments)
{
    ProcessOptions options;
    options.timeoutMs = 60000;
    return runProcess(QStringLiteral(ATTNSCOPE_BINARY), arguments, options);
}

QJsonObject readCase(const QString& name)
{
    QFile f(QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/") + name + QStringLiteral("/case.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

} // namespace

class TestCliTokenize : public QObject
{
    Q_OBJECT

private slots:
    void oracle_data() { addOracleCaseRows({"bert_s0", "gpt2_s0"}); }

    void oracle()
    {
        QFETCH(QString, caseName);
        const QJsonObject c = readCase(caseName);
        QVERIFY(!c.isEmpty());
        const QString text = c.value(QStringLiteral("text")).toString();
        const Run run = runAttnscope({QStringLiteral("tokenize"), QStringLiteral("--model"),
                                      QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/") + caseName,
                                      QStringLiteral("--text"), text});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.err.isEmpty());
        QCOMPARE(run.out.count('\n'), 1); // one line
        QJsonParseError error;
        const QJsonObject out = QJsonDocument::fromJson(run.out, &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(out.value(QStringLiteral("ids")).toArray(), c.value(QStringLiteral("input_ids")).toArray());
        QCOMPARE(out.value(QStringLiteral("tokens")).toArray(), c.value(QStringLiteral("tokens")).toArray());
        const QJsonArray offsets = out.value(QStringLiteral("offsets")).toArray();
        const QJsonArray special = out.value(QStringLiteral("special")).toArray();
        QCOMPARE(offsets.size(), c.value(QStringLiteral("input_ids")).toArray().size());
        QCOMPARE(out.value(QStringLiteral("type_ids")).toArray().size(), offsets.size());
        QCOMPARE(special.size(), offsets.size());
        // Offsets are code points of the text: each non-special token's span spells (a cased form of) its text.
        for (int i = 0; i < offsets.size(); ++i) {
            const int b = offsets.at(i).toArray().at(0).toInt();
            const int e = offsets.at(i).toArray().at(1).toInt();
            if (special.at(i).toBool()) {
                QCOMPARE(b, 0);
                QCOMPARE(e, 0);
                continue;
            }
            QString token = out.value(QStringLiteral("tokens")).toArray().at(i).toString();
            token.replace(QChar(0x0120), QLatin1Char(' ')); // GPT-2's byte-level space
            QCOMPARE(text.mid(b, e - b).toLower(), token.toLower());
        }
    }

    // A pair in BERT: B's offsets count from the start of B, its type ids are 1.
    void pair()
    {
        const Run run = runAttnscope({QStringLiteral("tokenize"), QStringLiteral("--model"),
                                      QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/bert_s0"), QStringLiteral("--text"),
                                      QStringLiteral("the dog"), QStringLiteral("--text-b"), QStringLiteral("a fox")});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject out = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(QString::fromUtf8(QJsonDocument(out.value(QStringLiteral("tokens")).toArray()).toJson(QJsonDocument::Compact)),
                 QStringLiteral(R"(["[CLS]","the","dog","[SEP]","a","fox","[SEP]"])"));
        QCOMPARE(QString::fromUtf8(QJsonDocument(out.value(QStringLiteral("offsets")).toArray()).toJson(QJsonDocument::Compact)),
                 QStringLiteral("[[0,0],[0,3],[4,7],[0,0],[0,1],[2,5],[0,0]]"));
        QCOMPARE(QString::fromUtf8(QJsonDocument(out.value(QStringLiteral("type_ids")).toArray()).toJson(QJsonDocument::Compact)),
                 QStringLiteral("[0,0,0,0,1,1,1]"));
    }

    // A folder with only tokenizer.json works (no config.json, no weights).
    void tokenizerOnlyFolder()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::copy(QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/gpt2_s0/tokenizer.json"),
                            dir.filePath(QStringLiteral("tokenizer.json"))));
        const Run run = runAttnscope({QStringLiteral("tokenize"), QStringLiteral("--model"), dir.path(),
                                      QStringLiteral("--text"), QStringLiteral("the fox 🤗")});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject out = QJsonDocument::fromJson(run.out).object();
        const QJsonArray offsets = out.value(QStringLiteral("offsets")).toArray();
        QVERIFY(!offsets.isEmpty());
        // The emoji is one code point: the last offsets end at 9, not at its UTF-16 (10) or UTF-8 (12) length.
        QCOMPARE(offsets.last().toArray().at(1).toInt(), 9);
    }

    void errors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        QTest::newRow("missing folder") << QStringList{QStringLiteral("--model"), QStringLiteral("/no/such/model"),
                                                       QStringLiteral("--text"), QStringLiteral("x")}
                                        << QStringLiteral("/no/such/model: no such model folder");
        QTest::newRow("no text") << QStringList{QStringLiteral("--model"), QStringLiteral("/tmp")}
                                 << QStringLiteral("needs --model PATH and --text T");
        QTest::newRow("folder without tokenizer") << QStringList{QStringLiteral("--model"),
                                                                 QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/llama_s0"),
                                                                 QStringLiteral("--text"), QStringLiteral("x")}
                                                  << QStringLiteral("no tokenizer.json, vocab.txt");
    }

    void errors()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const Run run = runAttnscope(QStringList{QStringLiteral("tokenize")} + arguments);
        QVERIFY(run.exitCode != 0);
        QVERIFY(run.out.isEmpty());
        const QString err = QString::fromUtf8(run.err);
        QVERIFY2(err.contains(expected), qPrintable(err));
        QCOMPARE(err.count(QLatin1Char('\n')), 1);
    }

    // attention --text goes through the same tokenizer: the oracle's input_ids.
    void attentionText_data() { oracle_data(); }

    void attentionText()
    {
        QFETCH(QString, caseName);
        const QJsonObject c = readCase(caseName);
        const Run run = runAttnscope({QStringLiteral("attention"), QStringLiteral("--model"),
                                      QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/") + caseName, QStringLiteral("--text"),
                                      c.value(QStringLiteral("text")).toString(), QStringLiteral("--layer"),
                                      QStringLiteral("0"), QStringLiteral("--head"), QStringLiteral("0")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject out = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(out.value(QStringLiteral("ids")).toArray(), c.value(QStringLiteral("input_ids")).toArray());
        QCOMPARE(out.value(QStringLiteral("tokens")).toArray(), c.value(QStringLiteral("tokens")).toArray());
    }

    void help()
    {
        const Run run = runAttnscope({QStringLiteral("tokenize"), QStringLiteral("--help")});
        QCOMPARE(run.exitCode, 0);
        const QString help = QString::fromUtf8(run.out);
        QVERIFY(help.contains(QStringLiteral("Unicode code points")));
        QVERIFY(help.contains(QStringLiteral("half-open")));
    }
};

QTEST_GUILESS_MAIN(TestCliTokenize)
#include "tst_cli_tokenize.moc"
