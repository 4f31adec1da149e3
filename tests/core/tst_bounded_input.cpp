// Issue 35, points 6 and 7: no unbounded read, no hang on a FIFO, no quadratic work on a long text.
// Every reader goes through io/inputfile.h; the tests below hold each reader to it without racing the clock:
// work is counted (codePointStepsOnThisThread), and a FIFO is given no writer, so a reader that opens it
// blocks until the test unblocks it (then fails).

#include "analysis/modeltext.h"
#include "census/censusrun.h"
#include "census/corpusreader.h"
#include "core/support/modelfixtures.h"
#include "io/inputfile.h"
#include "stats/encodingroles.h"
#include "tokenizer/tokenizer.h"

#include <QIODevice>
#include <QTemporaryDir>
#include <QtTest>
#include <chrono>
#include <cstring>
#include <functional>
#include <future>

#ifdef Q_OS_UNIX
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

using namespace attnscope;
using namespace attnscope::testing;

namespace {

// An endless pipe ("yes"): every read gives bytes, and it counts how many it gave.
class EndlessDevice : public QIODevice
{
public:
    EndlessDevice() { open(QIODevice::ReadOnly); }
    bool isSequential() const override { return true; }
    qint64 given = 0;

protected:
    qint64 readData(char* data, qint64 maxSize) override
    {
        std::memset(data, 'y', size_t(maxSize));
        given += maxSize;
        return maxSize;
    }
    qint64 writeData(const char*, qint64) override { return -1; }
};

#ifdef Q_OS_UNIX
// Runs `read` (which must not open the FIFO at `path`, having no writer) on a thread of its own. A reader
// that opens it anyway blocks in open(): after a minute (a reader that refuses first takes microseconds)
// the test opens the write side itself so that the reader sees an empty file and returns, and fails.
bool returnsWithoutOpening(const QString& path, const std::function<void()>& read)
{
    std::future<void> done = std::async(std::launch::async, read);
    if (done.wait_for(std::chrono::seconds(60)) == std::future_status::ready) return true;
    const int fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
    done.wait();
    return false;
}
#endif

} // namespace

class TestBoundedInput : public QObject
{
    Q_OBJECT

private slots:
    void endlessStreamIsCutAtTheLimit();
    void textLimitHoldsForFiles();
    void fifoInputsAreRefusedBeforeOpening_data();
    void fifoInputsAreRefusedBeforeOpening();
    void censusFileHasTheSizeLimit();
    void modelTextIsLinear_data();
    void modelTextIsLinear();
    void codePointIndexAgreesWithTheScan();
};

void TestBoundedInput::endlessStreamIsCutAtTheLimit()
{
    EndlessDevice endless;
    QString problem;
    const qint64 limit = qint64(3) << 20;
    const std::optional<QByteArray> bytes = readBoundedStream(endless, limit, &problem);
    QVERIFY(!bytes);
    QVERIFY2(problem.contains(QLatin1String("over the 3.0 MiB limit")), qPrintable(problem));
    // It stopped one byte past the limit, not at the end of memory (QIODevice reads ahead into a buffer of
    // 16 KiB: at most that much more was taken from the pipe).
    QVERIFY2(endless.given > limit && endless.given <= limit + 1 + (qint64(16) << 10),
             qPrintable(QString::number(endless.given)));
}

void TestBoundedInput::textLimitHoldsForFiles()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("long.txt"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QVERIFY(file.resize(kMaxTextFileBytes + 1)); // sparse: no 16 MiB written
    file.close();
    QString problem;
    QVERIFY(!readInputFile(path, kMaxTextFileBytes, &problem));
    QVERIFY2(problem.contains(QLatin1String("over the 16.0 MiB limit")), qPrintable(problem));
    QVERIFY(file.resize(kMaxTextFileBytes));
    const std::optional<QByteArray> atTheLimit = readInputFile(path, kMaxTextFileBytes, &problem);
    QVERIFY2(atTheLimit, qPrintable(problem));
    QCOMPARE(atTheLimit->size(), kMaxTextFileBytes);
}

void TestBoundedInput::fifoInputsAreRefusedBeforeOpening_data()
{
    QTest::addColumn<QString>("reader");
    QTest::newRow("census.json for --resume") << QStringLiteral("census");
    QTest::newRow("a census corpus") << QStringLiteral("corpus");
    QTest::newRow("a text file") << QStringLiteral("text");
}

void TestBoundedInput::fifoInputsAreRefusedBeforeOpening()
{
#ifdef Q_OS_UNIX
    QFETCH(QString, reader);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("census.json"));
    QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
    QString error;
    bool read = true;
    const bool returned = returnsWithoutOpening(path, [&] {
        if (reader == QLatin1String("census")) {
            read = readCensusResult(path, &error).has_value();
        } else if (reader == QLatin1String("corpus")) {
            CorpusReader corpus(path, false);
            read = corpus.open(&error);
        } else {
            read = readInputFile(path, kMaxTextFileBytes, &error).has_value();
        }
    });
    QVERIFY2(returned, "the reader opened a FIFO that has no writer and blocked");
    QVERIFY(!read);
    QVERIFY2(error.contains(QLatin1String("not a regular file but a FIFO (named pipe)")), qPrintable(error));
#else
    QSKIP("FIFOs are a Unix thing");
#endif
}

void TestBoundedInput::censusFileHasTheSizeLimit()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("census.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QVERIFY(file.resize(kMaxCensusFileBytes + 1)); // sparse
    file.close();
    QString error;
    QVERIFY(!readCensusResult(path, &error));
    QVERIFY2(error.startsWith(path) && error.contains(QLatin1String("over the 64.0 MiB limit")),
             qPrintable(error));
}

void TestBoundedInput::modelTextIsLinear_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<bool>("pair");
    QTest::newRow("byte-level BPE (gpt2)") << QStringLiteral("gpt2_s1") << false;
    QTest::newRow("WordPiece pair (bert)") << QStringLiteral("bert_s0") << true;
}

// "hello world " x 87,382 (1 MB) took over 60 s in modelText: each token's covered text was found by
// scanning the text from its start. The work is counted in code units stepped over: a linear modelText
// steps over each text a few times (an index, the substrings, the roles' own index and substrings).
void TestBoundedInput::modelTextIsLinear()
{
    QFETCH(QString, model);
    QFETCH(bool, pair);
    const std::unique_ptr<Tokenizer> tokenizer = Tokenizer::fromFolder(oracleFolder(model));
    const QString textA = QStringLiteral("hello world ").repeated(2000);
    const std::optional<QString> textB =
        pair ? std::optional<QString>(QStringLiteral("héllo wörld 🙂 ").repeated(1000)) : std::nullopt;
    const Encoding encoding = tokenizer->encode(textA, textB);
    QVERIFY(encoding.size() > 3000);
    const qint64 length = textA.size() + (textB ? textB->size() : 0);

    const qint64 before = codePointStepsOnThisThread();
    const ModelText text = modelText(encoding, *tokenizer, textA, textB);
    const qint64 steps = codePointStepsOnThisThread() - before;
    QCOMPARE(text.size(), encoding.size());
    QVERIFY2(steps <= 6 * length,
             qPrintable(QStringLiteral("%1 steps for a text of %2 code units").arg(steps).arg(length)));
    // And the covered texts are still the exact substrings (the first "hello" and the last " world").
    QVERIFY(text.covered.join(QString()).contains(QLatin1String("hello")));
}

void TestBoundedInput::codePointIndexAgreesWithTheScan()
{
    // Surrogate pairs count once; ranges are clamped as the scan clamps them.
    const QString text = QStringLiteral("a🙂bç🙂🙂d");
    const CodePointIndex index(text);
    QCOMPARE(index.size(), codePointCount(text));
    for (int begin = -1; begin <= index.size() + 1; ++begin)
        for (int end = -1; end <= index.size() + 2; ++end)
            QCOMPARE(index.substring(begin, end), substringByCodePoints(text, begin, end));
}

QTEST_GUILESS_MAIN(TestBoundedInput)
#include "tst_bounded_input.moc"
