// `attnscope [options]` as a user starts it: --lang, --model/--text/--view open the window on that input,
// the next start without options comes back to it (the session is remembered), --lesson opens the lesson,
// and bad options are one line on stderr with exit code 2. The window is checked through --screenshot,
// which writes the picture and prints one line naming the window, the model and the tab shown.
// Settings go to a temporary XDG_CONFIG_HOME; the offscreen platform needs no display.

#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#ifdef Q_OS_UNIX
#include <qplatformdefs.h>
#include <sys/stat.h>
#endif

namespace {

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

} // namespace

class TestGuiStartup : public QObject
{
    Q_OBJECT

    QTemporaryDir m_config;
    QTemporaryDir m_runtime;
    QString m_model; // a built-in decoder when the tree has it, else the synthetic decoder

    Run run(const QStringList& arguments, const QByteArray& language = "en")
    {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_config.path());
        env.insert(QStringLiteral("XDG_RUNTIME_DIR"), m_runtime.path()); // else Qt warns on stderr
        env.insert(QStringLiteral("LANGUAGE"), QString::fromLatin1(language));
        env.insert(QStringLiteral("LC_ALL"),
                   language == "tr" ? QStringLiteral("tr_TR.UTF-8") : QStringLiteral("C.UTF-8"));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(ATTNSCOPE_BINARY), arguments);
        Run r;
        if (!process.waitForFinished(120000)) {
            process.kill();
            process.waitForFinished();
            r.err = QStringLiteral("timed out");
            return r;
        }
        r.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        r.out = QString::fromUtf8(process.readAllStandardOutput());
        r.err = QString::fromUtf8(process.readAllStandardError());
        return r;
    }

    QString shot(const QString& name) const { return QDir(m_config.path()).filePath(name); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_config.isValid() && m_runtime.isValid());
        QFile::setPermissions(m_runtime.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        m_model = QFileInfo::exists(
                      QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-llama-en-tr/config.json"))
                      ? QStringLiteral("tiny-llama-en-tr")
                      : QStringLiteral("synthetic-decoder");
    }

    // Turkish, a model, a text and a tab from the command line: the window shows exactly that.
    void opensOnTheInputItIsGiven()
    {
        const QString text = QStringLiteral("The cat sat on the mat.");
        const Run r = run({QStringLiteral("--lang"), QStringLiteral("tr"), QStringLiteral("--model"), m_model,
                           QStringLiteral("--text"), text, QStringLiteral("--view"), QStringLiteral("arcs"),
                           QStringLiteral("--size"), QStringLiteral("1280x800"),
                           QStringLiteral("--screenshot"), shot(QStringLiteral("first.png"))});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("1280x800")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("model ") + m_model), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("view Yaylar")), qPrintable(r.out)); // "Arcs" in Turkish
        QVERIFY2(r.out.contains(QStringLiteral("text “") + text + QStringLiteral("”")), qPrintable(r.out));
        const QImage image(shot(QStringLiteral("first.png")));
        QCOMPARE(image.size(), QSize(1280, 800));
    }

    // Presenter mode honours --view (issue 36): it used to open on the heatmap whatever was asked.
    void presenterHonoursTheView()
    {
        const Run r = run({QStringLiteral("--model"), m_model, QStringLiteral("--text"),
                           QStringLiteral("The cat sat on the mat."), QStringLiteral("--view"),
                           QStringLiteral("arcs"), QStringLiteral("--presenter"), QStringLiteral("--size"),
                           QStringLiteral("1280x800"), QStringLiteral("--screenshot"),
                           shot(QStringLiteral("presenter-arcs.png"))});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("view Arcs")), qPrintable(r.out));
    }

    // --text-b reaches the run the window shows: an encoder's input becomes [CLS] A [SEP] B [SEP], so the
    // run names text B and has more tokens than A alone (whose count the same start without --text-b gives).
    void textBIsTheShownRunsSecondSentence()
    {
        const QString encoder = QFileInfo::exists(QStringLiteral(
                                    ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-bert-en-tr/config.json"))
                                    ? QStringLiteral("tiny-bert-en-tr")
                                    : QStringLiteral("synthetic-encoder");
        const QString a = QStringLiteral("The cat sat on the mat."), b = QStringLiteral("It was tired.");
        auto tokensIn = [](const QString& out) {
            const QRegularExpressionMatch m =
                QRegularExpression(QStringLiteral(" · (\\d+) tokens")).match(out);
            return m.hasMatch() ? m.captured(1).toInt() : -1;
        };
        const Run alone =
            run({QStringLiteral("--model"), encoder, QStringLiteral("--text"), a, QStringLiteral("--size"),
                 QStringLiteral("1280x800"), QStringLiteral("--screenshot"), shot(QStringLiteral("a.png"))});
        QVERIFY2(alone.exitCode == 0, qPrintable(alone.err));
        QVERIFY2(!alone.out.contains(QStringLiteral("text B")), qPrintable(alone.out));
        const Run both =
            run({QStringLiteral("--model"), encoder, QStringLiteral("--text"), a, QStringLiteral("--text-b"),
                 b, QStringLiteral("--view"), QStringLiteral("comparison"), QStringLiteral("--size"),
                 QStringLiteral("1280x800"), QStringLiteral("--screenshot"), shot(QStringLiteral("ab.png"))});
        QVERIFY2(both.exitCode == 0, qPrintable(both.err));
        QVERIFY2(both.out.contains(QStringLiteral("text B “") + b + QStringLiteral("”")),
                 qPrintable(both.out));
        // "It was tired." is at least 4 word pieces, plus its [SEP].
        QVERIFY2(tokensIn(alone.out) > 0 && tokensIn(both.out) >= tokensIn(alone.out) + 5,
                 qPrintable(alone.out + both.out));
        // Put the remembered session back to what the next test expects (its own start restores it).
        const Run restore =
            run({QStringLiteral("--model"), m_model, QStringLiteral("--text"),
                 QStringLiteral("The cat sat on the mat."), QStringLiteral("--text-b"), QString(),
                 QStringLiteral("--view"), QStringLiteral("arcs"), QStringLiteral("--size"),
                 QStringLiteral("1280x800"), QStringLiteral("--screenshot"), shot(QStringLiteral("r.png"))});
        QVERIFY2(restore.exitCode == 0, qPrintable(restore.err));
    }

    // The next start without options comes back to the same model, text and tab (and --lang was for one
    // run only: this one is English).
    void theLastSessionIsRestored()
    {
        const Run r = run({QStringLiteral("--size"), QStringLiteral("1280x800"),
                           QStringLiteral("--screenshot"), shot(QStringLiteral("second.png"))});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("model ") + m_model), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("view Arcs")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("text “The cat sat on the mat.”")), qPrintable(r.out));
    }

    void lessonOpensOnTheWorkedExample()
    {
        const Run r = run({QStringLiteral("--model"), QStringLiteral("worked-example"),
                           QStringLiteral("--lesson"), QStringLiteral("--size"), QStringLiteral("1280x800"),
                           QStringLiteral("--screenshot"), shot(QStringLiteral("lesson.png"))});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("Lesson — layer 0, head 0")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("view lesson")), qPrintable(r.out));
        QCOMPARE(QImage(shot(QStringLiteral("lesson.png"))).size(), QSize(1280, 800));
    }

    // After a session on the worked example, a text of one's own opens a model that takes text.
    void aTextLeavesTheRememberedWorkedExample()
    {
        const Run r = run({QStringLiteral("--text"), QStringLiteral("A cat sat."), QStringLiteral("--size"),
                           QStringLiteral("1280x800"), QStringLiteral("--screenshot"),
                           shot(QStringLiteral("text.png"))});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(!r.out.contains(QStringLiteral("model worked-example")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("text “A cat sat.”")), qPrintable(r.out));
    }

    // --text "" (or spaces) is the empty state: no run (a pass over [CLS] [SEP] alone means nothing), the
    // remembered text not put back in its place; the window still opens.
    void anEmptyTextIsTheEmptyState()
    {
        const Run r = run({QStringLiteral("--model"), m_model, QStringLiteral("--text"), QStringLiteral("  "),
                           QStringLiteral("--size"), QStringLiteral("1280x800"), QStringLiteral("--screenshot"),
                           shot(QStringLiteral("empty.png"))});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("text “”")), qPrintable(r.out));
        QVERIFY2(!r.out.contains(QStringLiteral(" tokens")), qPrintable(r.out)); // nothing was run
    }

    void badOptionsAreOneLine_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("start");
        QTest::newRow("unknown model")
            << QStringList{QStringLiteral("--model"), QStringLiteral("no-such-model-xyz")}
            << QStringLiteral("--model no-such-model-xyz: no such model folder");
        QTest::newRow("text on the worked example")
            << QStringList{QStringLiteral("--model"), QStringLiteral("worked-example"),
                           QStringLiteral("--text"), QStringLiteral("hello")}
            << QStringLiteral("--text: the worked example's text is fixed");
        QTest::newRow("language") << QStringList{QStringLiteral("--lang"), QStringLiteral("de")}
                                  << QStringLiteral("--lang de: AttnScope speaks en, tr");
        QTest::newRow("view") << QStringList{QStringLiteral("--view"), QStringLiteral("grid")}
                              << QStringLiteral("--view grid:");
        QTest::newRow("get-model") << QStringList{QStringLiteral("--get-model"), QStringLiteral("org/a..b")}
                                   << QStringLiteral("--get-model org/a..b: ");
    }

    void badOptionsAreOneLine()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, start);
        const Run r = run(arguments << QStringLiteral("--screenshot") << shot(QStringLiteral("never.png")));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith(QStringLiteral("attnscope: ") + start) || r.err.startsWith(start),
                 qPrintable(r.err));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        QVERIFY(!QFileInfo::exists(shot(QStringLiteral("never.png"))));
    }

    // A model that cannot be opened, each kind issue 36 names, in either language: one line on stderr, the
    // command line's English words (as `attnscope stats --model` prints them), naming the file; exit code 2
    // for the scripted run. Missing weights and an unsupported architecture are only found by opening the
    // model in the window, whose language is Turkish with --lang tr: the line stays the CLI's.
    void brokenModelIsOneEnglishLine_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("start");
        const QDir root(m_config.path());
        QVERIFY(root.mkpath(QStringLiteral("broken/badjson")) &&
                root.mkpath(QStringLiteral("broken/noweights")) && root.mkpath(QStringLiteral("broken/mamba")));
        const auto write = [&root](const QString& path, const QByteArray& bytes) {
            QFile file(root.filePath(path));
            return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
        };
        QVERIFY(write(QStringLiteral("broken/badjson/config.json"),
                      "{\"model_type\": \"bert\",\n  \"hidden_size\" 8}\n"));
        QFile::remove(root.filePath(QStringLiteral("broken/noweights/config.json")));
        QVERIFY(
            QFile::copy(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-bert-en-tr/config.json"),
                        root.filePath(QStringLiteral("broken/noweights/config.json"))));
        QVERIFY(write(QStringLiteral("broken/mamba/config.json"),
                      R"({"model_type": "mamba", "architectures": ["MambaForCausalLM"]})"));
        const QString absent = QDir::toNativeSeparators(root.filePath(QStringLiteral("broken/absent")));
        const QString badJson = QDir::toNativeSeparators(root.filePath(QStringLiteral("broken/badjson")));
        const QString noWeights = QDir::toNativeSeparators(root.filePath(QStringLiteral("broken/noweights")));
        const QString mamba = QDir::toNativeSeparators(root.filePath(QStringLiteral("broken/mamba")));
        for (const char* language : {"en", "tr"}) {
            QTest::addRow("missing folder, %s", language)
                << absent
                << QStringLiteral("--model %1: no such model folder, .gguf file, built-in model (")
                       .arg(absent);
            QTest::addRow("bad JSON, %s", language)
                << badJson
                << QDir::toNativeSeparators(badJson + QStringLiteral("/config.json")) +
                       QStringLiteral(": not valid JSON (line 2, column 17: missing name separator)");
            QTest::addRow("no weights, %s", language)
                << noWeights
                << noWeights + QStringLiteral(": no model.safetensors or model.safetensors.index.json");
            QTest::addRow("unsupported, %s", language)
                << mamba
                << QDir::toNativeSeparators(mamba + QStringLiteral("/config.json")) +
                       QStringLiteral(": unsupported architecture 'mamba' (MambaForCausalLM); "
                                      "supported model types: ");
        }
    }

    void brokenModelIsOneEnglishLine()
    {
        QFETCH(QString, model);
        QFETCH(QString, start);
        const QByteArray language = QByteArray(QTest::currentDataTag()).right(2);
        const Run r = run({QStringLiteral("--lang"), QString::fromLatin1(language), QStringLiteral("--model"),
                           model, QStringLiteral("--screenshot"), shot(QStringLiteral("never.png"))},
                          language);
        QCOMPARE(r.exitCode, 2);
        // Ours: one line. (Qt's own warnings about the platform's graphics may come before it.)
        QStringList lines;
        for (const QString& line : r.err.split(QLatin1Char('\n')))
            if (line.startsWith(QLatin1String("attnscope"))) lines << line;
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.front().startsWith(QStringLiteral("attnscope: ") + start), qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(shot(QStringLiteral("never.png"))));
    }

    // --screenshot's path is checked under the output policy (issue 18) before any window shows, as the
    // commands check --out: a missing folder, a folder, a device or a FIFO is one line and exit code 2
    // (the window used to run first and fail at the end with 1), and the FIFO stays a FIFO (QSaveFile's
    // rename used to replace it with a regular file).
    void screenshotPathIsRefusedUpFront_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("problem");
        QTest::newRow("no such folder")
            << shot(QStringLiteral("missing/shot.png")) << QStringLiteral(": the folder ");
        QTest::newRow("a folder") << m_runtime.path() << QStringLiteral(": is a folder, not a file");
#ifdef Q_OS_UNIX
        QTest::newRow("a device") << QStringLiteral("/dev/null")
                                  << QStringLiteral(": not a regular file but a character device");
        QTest::newRow("a FIFO") << shot(QStringLiteral("fifo.png"))
                                << QStringLiteral(": not a regular file but a FIFO");
#endif
    }

    void screenshotPathIsRefusedUpFront()
    {
        QFETCH(QString, path);
        QFETCH(QString, problem);
#ifdef Q_OS_UNIX
        const bool fifo = path.endsWith(QLatin1String("fifo.png"));
        if (fifo) QVERIFY(::mkfifo(QFile::encodeName(path).constData(), 0600) == 0);
#endif
        const Run r =
            run({QStringLiteral("--size"), QStringLiteral("640x480"), QStringLiteral("--screenshot"), path});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.out.isEmpty(), qPrintable(r.out)); // no picture was described: nothing ran
        QVERIFY2(r.err.startsWith(QStringLiteral("attnscope: ") + QDir::toNativeSeparators(path) + problem),
                 qPrintable(r.err));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
#ifdef Q_OS_UNIX
        if (fifo) {
            QT_STATBUF status;
            QVERIFY(QT_LSTAT(QFile::encodeName(path).constData(), &status) == 0 && S_ISFIFO(status.st_mode));
            QFile::remove(path);
        }
#endif
    }
};

QTEST_GUILESS_MAIN(TestGuiStartup)
#include "tst_gui_startup.moc"
