// attnscope lesson, run as a user would: the step printed, written to CSV and PNG, and bad arguments.

#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestCmdLesson : public QObject
{
    Q_OBJECT
private:
    static QProcess* run(const QStringList& arguments)
    {
        auto* process = new QProcess;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        process->setProcessEnvironment(env);
        process->start(QStringLiteral(ATTNSCOPE_BINARY), QStringList{QStringLiteral("lesson")} + arguments);
        process->waitForFinished(30000);
        return process;
    }

private Q_SLOTS:
    void printsTheSoftmax()
    {
        std::unique_ptr<QProcess> p(run({QStringLiteral("--step"), QStringLiteral("4")}));
        QCOMPARE(p->exitCode(), 0);
        const QString out = QString::fromUtf8(p->readAllStandardOutput());
        QVERIFY2(out.contains(QStringLiteral("0.665")) && out.contains(QStringLiteral("0.090")) &&
                     out.contains(QStringLiteral("0.245")),
                 qPrintable(out));
    }
    void writesCsvAndPng()
    {
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("scores.csv"));
        std::unique_ptr<QProcess> p(run({QStringLiteral("--step"), QStringLiteral("1"), QStringLiteral("--no-scale"),
                                         QStringLiteral("--out"), csv}));
        QCOMPARE(p->exitCode(), 0);
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray(",kedi,mindere,oturdu\nkedi,6,2,4\nmindere,2,6,2\noturdu,6,3,5\n"));
        const QString png = dir.filePath(QStringLiteral("mask.png"));
        p.reset(run({QStringLiteral("--step"), QStringLiteral("3"), QStringLiteral("--causal"), QStringLiteral("--out"),
                     png, QStringLiteral("--size"), QStringLiteral("800x500")}));
        QCOMPARE(p->exitCode(), 0);
        QCOMPARE(QImage(png).size(), QSize(800, 500));
        const QString masked = dir.filePath(QStringLiteral("mask.csv"));
        p.reset(run({QStringLiteral("--step"), QStringLiteral("3"), QStringLiteral("--causal"), QStringLiteral("--out"), masked}));
        QFile maskFile(masked);
        QVERIFY(maskFile.open(QIODevice::ReadOnly));
        QVERIFY(maskFile.readAll().contains("kedi,3,-inf,-inf"));
    }
    void rejectsBadArguments_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("step 0") << QStringList{QStringLiteral("--step"), QStringLiteral("0")};
        QTest::newRow("step 6") << QStringList{QStringLiteral("--step"), QStringLiteral("6")};
        QTest::newRow("format") << QStringList{QStringLiteral("--out"), QStringLiteral("/tmp/x.gif")};
        QTest::newRow("unwritable") << QStringList{QStringLiteral("--out"), QStringLiteral("/nonexistent/dir/x.png")};
        QTest::newRow("size") << QStringList{QStringLiteral("--size"), QStringLiteral("0x0")};
    }
    void rejectsBadArguments()
    {
        QFETCH(QStringList, arguments);
        std::unique_ptr<QProcess> p(run(arguments));
        QVERIFY(p->exitCode() != 0);
        // One line naming the problem (Qt may add its own warnings about the environment).
        const QByteArray err = p->readAllStandardError();
        int ours = 0;
        for (const QByteArray& line : err.split('\n'))
            ours += line.startsWith("attnscope: ") ? 1 : 0;
        QVERIFY2(ours == 1, err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCmdLesson)
#include "tst_cmdlesson.moc"
