// Every writer of the command line on a full file system (issue 35, point 5): docs/reliability.md promises
// "the old file or nothing". A 2 MB tmpfs, mounted in a mount namespace private to this test (root only:
// elsewhere the test is skipped, saying why), is filled with dd; then each command must exit non-zero with
// "No space left on device" and the file's name, leave a file that was there byte for byte, and leave no
// new file, whole or partial. Small outputs matter most: they were kept in a user-space buffer whose failed
// flush was ignored (QSaveFile), so a 0-byte file was linked in place with exit code 0.

#include "census/censusrun.h"
#include "model/transformermodel.h"
#include "support/privatemount.h"
#include "support/processrun.h"
#include "support/testdata.h"
#include "tokenizer/tokenizer.h"

#include <QDirIterator>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <functional>
#include <optional>
#include <utility>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

const QString kEncoder = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-bert-en-tr");
const QString kOutName = QStringLiteral("OUT"); // in a row's arguments: replaced by the output's path

QString oracle(const QString& name)
{
    return QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/") + name;
}

// n token ids of gpt2_s0's vocabulary (361), varied so no two rows are the same.
QString ids(int n)
{
    QStringList list;
    for (int i = 0; i < n; ++i)
        list << QString::number(1 + (i * 37) % 350);
    return list.join(QLatin1Char(','));
}

using Run = TextRun;

// Painting commands pick the offscreen platform: no display in the environment.
Run runAttnscope(const QStringList& arguments)
{
    ProcessOptions options;
    options.environment = environmentWithoutDisplay();
    options.timeoutMs = 240000;
    Run run = runProcess(QStringLiteral(ATTNSCOPE_BINARY), arguments, options).text();
    if (!run.finished) return {-1, false, {}, QStringLiteral("timed out")};
    return run;
}

// Every file under `dir` (hidden ones included: a temporary file left behind is a failure), by path
// relative to it, with its bytes; folders as "name/" with no bytes.
QMap<QString, QByteArray> snapshot(const QString& dir)
{
    QMap<QString, QByteArray> files;
    QDirIterator it(dir, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    const QDir root(dir);
    while (it.hasNext()) {
        const QString path = it.next();
        const QFileInfo info = it.fileInfo();
        if (info.isDir()) {
            files.insert(root.relativeFilePath(path) + QLatin1Char('/'), {});
            continue;
        }
        QFile file(path);
        files.insert(root.relativeFilePath(path),
                     file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<unreadable>"));
    }
    return files;
}

QString listing(const QMap<QString, QByteArray>& files)
{
    QStringList lines;
    for (auto it = files.cbegin(); it != files.cend(); ++it)
        lines << QStringLiteral("%1 (%2 bytes)").arg(it.key()).arg(it.value().size());
    return lines.join(QStringLiteral(", "));
}

void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(bytes), bytes.size());
}

// A one-thread census of the built-in encoder over `corpus` into `resultPath`, resumed from `resumeFrom`
// where given, cancelled (by the flag its own progress callback sets: no race with a clock) once
// stopWhen(progress) is true.
CensusResult runStoppedCensus(const QString& corpus, const QString& resultPath,
                              const std::optional<CensusResult>& resumeFrom,
                              const std::function<bool(const CensusProgress&)>& stopWhen)
{
    std::unique_ptr<TransformerModel> model = TransformerModel::open(kEncoder);
    std::unique_ptr<Tokenizer> ownTokenizer;
    const Tokenizer* tokenizer = model->tokenizer();
    if (!tokenizer) {
        ownTokenizer = Tokenizer::fromFolder(model->folder());
        tokenizer = ownTokenizer.get();
    }
    CensusOptions options;
    options.corpusPath = corpus;
    options.resultPath = resultPath;
    options.threads = 1;
    std::atomic<bool> cancel{false};
    return runCensus(
        *model, *tokenizer, options, resumeFrom,
        [&](const CensusProgress& p) {
            if (stopWhen(p)) cancel.store(true);
        },
        &cancel);
}

} // namespace

class TestCliFullDisk : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void writerOnAFullDisk_data();
    void writerOnAFullDisk();
    void censusOnANearlyFullDisk_data();
    void censusOnANearlyFullDisk();
    void censusResumeOnAFullDisk();
    void censusStoppedOnAFullDisk();

private:
    QTemporaryDir m_dir;
    QString m_noMount; // why no file system can be mounted here ("" when it can)
    int m_mounts = 0;
    QString nextMountPoint() { return m_dir.filePath(QStringLiteral("disk%1").arg(++m_mounts)); }
    // A corpus file of 30 sentences in m_dir and a census of it stopped after 5 inputs: {the corpus, the
    // census.json}; the census path is empty where the census did not stop so.
    std::pair<QString, QString> stoppedCensus(const QString& corpusName);
};

void TestCliFullDisk::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_noMount = enterPrivateMountNamespace();
}

#define REQUIRE_MOUNTS()                                                                                     \
    if (!m_noMount.isEmpty())                                                                                \
    QSKIP(qPrintable(QStringLiteral("no tmpfs can be mounted for a full disk here: ") + m_noMount))

void TestCliFullDisk::writerOnAFullDisk_data()
{
    QTest::addColumn<QStringList>("arguments"); // kOutName stands for the output file
    QTest::addColumn<QString>("file");          // its name
    QTest::addColumn<bool>("existing");         // an older file is there (and --force is given)

    const QString kedi = QStringLiteral("kedi mindere oturdu");
    const QStringList exportHead{QStringLiteral("export"),
                                 QStringLiteral("--model"),
                                 QStringLiteral("worked-example"),
                                 QStringLiteral("--text"),
                                 kedi,
                                 QStringLiteral("--layer"),
                                 QStringLiteral("0"),
                                 QStringLiteral("--head"),
                                 QStringLiteral("0"),
                                 QStringLiteral("--out"),
                                 kOutName};
    const QStringList attention{QStringLiteral("attention"),
                                QStringLiteral("--model"),
                                oracle(QStringLiteral("gpt2_s0")),
                                QStringLiteral("--out"),
                                kOutName,
                                QStringLiteral("--ids")};
    const QStringList npy{QStringLiteral("--format"), QStringLiteral("npy")};
    struct Row
    {
        const char* name;
        QStringList arguments;
        QString file;
    };
    const std::vector<Row> rows{
        {"export csv", exportHead, QStringLiteral("o.csv")},
        {"export json", exportHead, QStringLiteral("o.json")},
        {"export png", exportHead, QStringLiteral("o.png")},
        {"attention json, 3 tokens", attention + QStringList{ids(3)}, QStringLiteral("o.json")},
        {"attention json, 64 tokens", attention + QStringList{ids(64)}, QStringLiteral("o.json")},
        // 2 layers x 4 heads x 21^2 floats: 14 KB, under the 16 KiB buffer that hid the failed flush.
        {"attention npy, 15 KB", attention + QStringList{ids(21)} + npy, QStringLiteral("o.npy")},
        {"attention npy, 128 KB", attention + QStringList{ids(64)} + npy, QStringLiteral("o.npy")},
        // One file per head and the grid, into a folder (BatchExporter): the first file fails, none is left.
        {"export --all-heads csv",
         {QStringLiteral("export"), QStringLiteral("--model"), QStringLiteral("worked-example"),
          QStringLiteral("--text"), kedi, QStringLiteral("--all-heads"), kOutName, QStringLiteral("--out"),
          QStringLiteral("a.csv")},
         QStringLiteral("heads")},
        {"rollout json",
         {QStringLiteral("rollout"), QStringLiteral("--model"), oracle(QStringLiteral("gpt2_s0")),
          QStringLiteral("--ids"), ids(5), QStringLiteral("--out"), kOutName},
         QStringLiteral("o.json")},
        {"lesson csv",
         {QStringLiteral("lesson"), QStringLiteral("--step"), QStringLiteral("3"), QStringLiteral("--out"),
          kOutName},
         QStringLiteral("o.csv")},
        {"lesson png",
         {QStringLiteral("lesson"), QStringLiteral("--step"), QStringLiteral("3"), QStringLiteral("--out"),
          kOutName},
         QStringLiteral("o.png")},
    };
    for (const Row& row : rows) {
        QTest::newRow(row.name) << row.arguments << row.file << false;
        QTest::newRow(qPrintable(QStringLiteral("%1, --force over an old file").arg(QLatin1String(row.name))))
            << (row.arguments + QStringList{QStringLiteral("--force")}) << row.file << true;
    }
}

void TestCliFullDisk::writerOnAFullDisk()
{
    REQUIRE_MOUNTS();
    QFETCH(QStringList, arguments);
    QFETCH(QString, file);
    QFETCH(bool, existing);
    ScratchMount disk(nextMountPoint(), QStringLiteral("tmpfs"), QStringLiteral("size=2m"));
    QVERIFY2(disk.error().isEmpty(), qPrintable(disk.error()));
    const QString out = disk.filePath(file);
    // An older file of a few KB: the new one would replace it.
    if (existing) { // --all-heads writes into a folder: the old file is its first head's
        const bool folder = !file.contains(QLatin1Char('.'));
        if (folder) QVERIFY(QDir().mkpath(out));
        writeFile(folder ? out + QStringLiteral("/a-L0-H0.csv") : out,
                  QByteArray("the old file, kept byte for byte\n").repeated(100));
    }
    QVERIFY2(disk.fill().isEmpty(), qPrintable(disk.fill()));
    QVERIFY2(disk.freeBytes() < 4096, qPrintable(QString::number(disk.freeBytes())));
    const QMap<QString, QByteArray> before = snapshot(disk.path());

    arguments.replaceInStrings(kOutName, out);
    const Run run = runAttnscope(arguments);
    QVERIFY2(run.exitCode != 0 && run.exitCode != -1, qPrintable(QString::number(run.exitCode) + run.err));
    QVERIFY2(run.err.contains(QStringLiteral("No space left on device")), qPrintable(run.err));
    QVERIFY2(run.err.contains(out), qPrintable(run.err));
    const QMap<QString, QByteArray> after = snapshot(disk.path());
    QVERIFY2(after == before,
             qPrintable(QStringLiteral("before: %1\nafter: %2").arg(listing(before), listing(after))));
}

// A census whose census.json, or one of its tables and figures, finds no room: the error names the file
// and the cause, and whatever is in the folder is whole (byte for byte what a run on a roomy disk wrote;
// census.json a valid census) or absent. It once linked a truncated census.json and 0-byte CSVs.
void TestCliFullDisk::censusOnANearlyFullDisk_data()
{
    QTest::addColumn<bool>("roomForTheCensusFile");
    QTest::newRow("no room for census.json") << false;
    QTest::newRow("room for census.json, not for the figures") << true;
}

void TestCliFullDisk::censusOnANearlyFullDisk()
{
    REQUIRE_MOUNTS();
    QFETCH(bool, roomForTheCensusFile);
    const QString corpus = m_dir.filePath(QStringLiteral("nearly-full.txt"));
    writeFile(corpus, censusSentences(20));
    const QStringList common{QStringLiteral("census"),
                             QStringLiteral("--model"),
                             kEncoder,
                             QStringLiteral("--corpus"),
                             corpus,
                             QStringLiteral("--threads"),
                             QStringLiteral("1"),
                             QStringLiteral("--quiet"),
                             QStringLiteral("--backend"),
                             QStringLiteral("cpu"),
                             QStringLiteral("--out")};
    const QString roomy = m_dir.filePath(QStringLiteral("roomy-census"));
    if (!QFileInfo::exists(roomy)) {
        const Run reference = runAttnscope(common + QStringList{roomy});
        QVERIFY2(reference.exitCode == 0, qPrintable(reference.err));
    }
    const QMap<QString, QByteArray> whole = snapshot(roomy);
    QVERIFY(whole.contains(QStringLiteral("census.json")) && whole.contains(QStringLiteral("heads.csv")));

    ScratchMount disk(nextMountPoint(), QStringLiteral("tmpfs"), QStringLiteral("size=2m"));
    QVERIFY2(disk.error().isEmpty(), qPrintable(disk.error()));
    // tmpfs counts whole pages: census.json's pages and one more, or a few pages short of census.json.
    const qint64 pages = (whole.value(QStringLiteral("census.json")).size() + 4095) / 4096;
    const qint64 leave = roomForTheCensusFile ? (pages + 1) * 4096 : std::max<qint64>(0, pages - 3) * 4096;
    QVERIFY2(disk.fill(leave).isEmpty(), "dd");
    const QString out = disk.filePath(QStringLiteral("census"));
    const Run run = runAttnscope(common + QStringList{out});
    QVERIFY2(run.exitCode != 0 && run.exitCode != -1, qPrintable(QString::number(run.exitCode) + run.err));
    QVERIFY2(run.err.contains(QStringLiteral("No space left on device")), qPrintable(run.err));
    QVERIFY2(run.err.contains(out + QLatin1Char('/')), qPrintable(run.err));
    if (!roomForTheCensusFile)
        QVERIFY2(run.err.contains(out + QStringLiteral("/census.json")), qPrintable(run.err));
    QVERIFY2(!run.err.contains(QStringLiteral("--resume")), qPrintable(run.err)); // nothing to resume

    const QMap<QString, QByteArray> written = snapshot(out);
    for (auto it = written.cbegin(); it != written.cend(); ++it) {
        QVERIFY2(whole.contains(it.key()), qPrintable(it.key()));
        if (it.key() == QLatin1String("census.json")) {
            QJsonParseError error;
            const QJsonObject census = QJsonDocument::fromJson(it.value(), &error).object();
            QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
            QCOMPARE(census.value(QStringLiteral("inputs")).toObject().value(QStringLiteral("done")).toInt(),
                     20);
            continue;
        }
        QVERIFY2(it.value() == whole.value(it.key()),
                 qPrintable(QStringLiteral("%1: %2 bytes, %3 on a roomy disk")
                                .arg(it.key())
                                .arg(it.value().size())
                                .arg(whole.value(it.key()).size())));
    }
    QCOMPARE(written.contains(QStringLiteral("census.json")), roomForTheCensusFile);
}

// A census stopped after 5 inputs, by the cancel flag its own progress callback sets (no race with a
// clock): the resumable state a Ctrl+C leaves.
std::pair<QString, QString> TestCliFullDisk::stoppedCensus(const QString& corpusName)
{
    const QString corpus = m_dir.filePath(corpusName);
    writeFile(corpus, censusSentences(30));
    const QString folder = m_dir.filePath(QStringLiteral("stopped-%1").arg(++m_mounts));
    QDir().mkpath(folder);
    const QString path = QDir(folder).filePath(QStringLiteral("census.json"));
    const CensusResult result =
        runStoppedCensus(corpus, path, std::nullopt, [](const CensusProgress& p) { return p.inputs >= 5; });
    if (result.status != CensusStatus::Cancelled || result.inputs() != 5) return {corpus, QString()};
    return {corpus, path};
}

// census --resume on a full disk: the resumed run's census.json cannot be written, so the one saved before
// stays byte for byte, still resumable, and the error says so; with room again --resume finishes it.
void TestCliFullDisk::censusResumeOnAFullDisk()
{
    REQUIRE_MOUNTS();
    const auto [corpus, saved] = stoppedCensus(QStringLiteral("resume.txt"));
    QVERIFY(!saved.isEmpty());
    ScratchMount disk(nextMountPoint(), QStringLiteral("tmpfs"), QStringLiteral("size=2m"));
    QVERIFY2(disk.error().isEmpty(), qPrintable(disk.error()));
    const QString out = disk.filePath(QStringLiteral("census"));
    QVERIFY(QDir().mkpath(out));
    QVERIFY(QFile::copy(saved, out + QStringLiteral("/census.json")));
    QVERIFY2(disk.fill().isEmpty(), "dd");
    const QMap<QString, QByteArray> before = snapshot(disk.path());

    const QStringList resume{QStringLiteral("census"),
                             QStringLiteral("--model"),
                             kEncoder,
                             QStringLiteral("--corpus"),
                             corpus,
                             QStringLiteral("--out"),
                             out,
                             QStringLiteral("--resume"),
                             QStringLiteral("--quiet"),
                             QStringLiteral("--threads"),
                             QStringLiteral("1"),
                             QStringLiteral("--backend"),
                             QStringLiteral("cpu")};
    const Run run = runAttnscope(resume);
    QVERIFY2(run.exitCode != 0 && run.exitCode != -1, qPrintable(QString::number(run.exitCode) + run.err));
    QVERIFY2(run.err.contains(QStringLiteral("No space left on device")), qPrintable(run.err));
    QVERIFY2(run.err.contains(out + QStringLiteral("/census.json")), qPrintable(run.err));
    QVERIFY2(!run.out.contains(QStringLiteral("complete")), qPrintable(run.out));
    // The saved census is valid and resumable, so the way on is named.
    QVERIFY2(
        run.err.contains(QStringLiteral("still holds the census saved before (5 inputs): free some space and "
                                        "continue with --resume")),
        qPrintable(run.err));
    const QMap<QString, QByteArray> after = snapshot(disk.path());
    QVERIFY2(after == before,
             qPrintable(QStringLiteral("before: %1\nafter: %2").arg(listing(before), listing(after))));

    // The saved census was kept, so --resume is the way on once there is room.
    QVERIFY(QFile::remove(disk.filePath(QLatin1String(ScratchMount::kFillName))));
    const Run again = runAttnscope(resume);
    QVERIFY2(again.exitCode == 0, qPrintable(again.err));
    QFile result(out + QStringLiteral("/census.json"));
    QVERIFY(result.open(QIODevice::ReadOnly));
    const QJsonObject census = QJsonDocument::fromJson(result.readAll()).object();
    QCOMPARE(census.value(QStringLiteral("status")).toString(), QStringLiteral("complete"));
    QCOMPARE(census.value(QStringLiteral("inputs")).toObject().value(QStringLiteral("done")).toInt(), 30);
}

// A resumed census stopped (Ctrl+C) on a full disk: its checkpoint cannot be written, so it is a failure
// naming the file and the cause (never "cancelled", whose message says "continue with --resume"), and the
// census.json saved before stays byte for byte. (It once replaced a valid census.json with invalid JSON.)
void TestCliFullDisk::censusStoppedOnAFullDisk()
{
    REQUIRE_MOUNTS();
    const auto [corpus, saved] = stoppedCensus(QStringLiteral("stopped.txt"));
    QVERIFY(!saved.isEmpty());
    ScratchMount disk(nextMountPoint(), QStringLiteral("tmpfs"), QStringLiteral("size=2m"));
    QVERIFY2(disk.error().isEmpty(), qPrintable(disk.error()));
    const QString path = disk.filePath(QStringLiteral("census.json"));
    QVERIFY(QFile::copy(saved, path));
    QVERIFY2(disk.fill().isEmpty(), "dd");
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray savedBytes = file.readAll();
    file.close();

    QString error;
    const std::optional<CensusResult> resumeFrom = readCensusResult(path, &error);
    QVERIFY2(resumeFrom, qPrintable(error));
    const CensusResult result =
        runStoppedCensus(corpus, path, resumeFrom, [](const CensusProgress&) { return true; });
    QCOMPARE(censusStatusName(result.status), QStringLiteral("failed"));
    QVERIFY2(result.message.contains(QStringLiteral("No space left on device")), qPrintable(result.message));
    QVERIFY2(result.message.contains(path), qPrintable(result.message));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readAll() == savedBytes);
    QCOMPARE(QDir(disk.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             (QStringList{QStringLiteral("census.json"), QLatin1String(ScratchMount::kFillName)}));
}

QTEST_GUILESS_MAIN(TestCliFullDisk)
#include "tst_cli_fulldisk.moc"
