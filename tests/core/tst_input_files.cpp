// Every file AttnScope reads or writes (issue 18): inputs must be regular files of a sane size (a FIFO
// blocked forever, /dev/zero filled memory), outputs go only to new regular files or, when allowed, over
// regular files, whole or not at all (a rename over a FIFO or /dev/full replaced the node itself).

#include "core/support/modelfixtures.h"
#include "io/inputfile.h"
#include "io/npy.h"
#include "io/outputfile.h"
#include "model/transformermodel.h"
#include "support/testdata.h"
#include "tokenizer/tokenizer.h"
#include "util/uninitializedbuffer.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cstring>
#include <thread>

#ifdef Q_OS_UNIX
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

using namespace attnscope;
using namespace attnscope::testing;

namespace {

void writeBytes(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(bytes);
}

#ifdef Q_OS_UNIX
bool isFifo(const QString& path)
{
    struct stat st = {};
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 && S_ISFIFO(st.st_mode);
}

// A FIFO at `path`, with a writer waiting on it: code that opens it for reading gets an empty file at once
// instead of blocking the test forever. release() unblocks the writer when nobody opened the FIFO.
class Fifo
{
public:
    explicit Fifo(const QString& path) : m_path(QFile::encodeName(path))
    {
        QFile::remove(path);
        m_ok = ::mkfifo(m_path.constData(), 0600) == 0;
        if (m_ok)
            m_writer = std::thread([this] {
                const int fd = ::open(m_path.constData(), O_WRONLY);
                if (fd >= 0) ::close(fd);
            });
    }
    ~Fifo() { release(); }
    bool ok() const { return m_ok; }
    void release()
    {
        if (!m_writer.joinable()) return;
        const int fd = ::open(m_path.constData(), O_RDONLY | O_NONBLOCK); // lets a waiting writer through
        m_writer.join();
        if (fd >= 0) ::close(fd);
    }

private:
    QByteArray m_path;
    bool m_ok = false;
    std::thread m_writer;
};
#endif

// What opening the folder as a model, a tokenizer or an array says.
QString problemOpening(const QString& what, const QString& path)
{
    return inputErrorOf([&]() -> QString {
        if (what == QLatin1String("model") || what == QLatin1String("gguf")) {
            const auto model = TransformerModel::open(path);
            return model->tokenizerError(); // a model opens without its tokenizer; the reason is kept
        }
        if (what == QLatin1String("tokenizer")) Tokenizer::fromFolder(path);
        if (what == QLatin1String("npy")) readNpyFile(path);
        return {};
    });
}

QStringList filesIn(const QString& folder)
{
    QStringList files;
    QDirIterator it(folder, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
    while (it.hasNext())
        files << QFileInfo(it.next()).fileName();
    files.sort();
    return files;
}

} // namespace

class TestInputFiles : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void specialFilesAreRefused_data();
    void specialFilesAreRefused();
    void jsonSizeIsLimited();
    void problemsAreNamed();
    void tokenizerIdsAndConfig_data();
    void tokenizerIdsAndConfig();
    void npyShapeOverflow();
    void outputPolicy_data();
    void outputPolicy();
    void outputReplacesThroughLinks();
    void outputFileAppearsWhole();
    void largeOutputIsWrittenBackInSteps();
    void directWritesKeepEveryByte_data();
    void directWritesKeepEveryByte();
};

// Item 6: config.json or tokenizer.json linked to /dev/zero grew memory to 4 GB in 2 s; a FIFO blocked.
void TestInputFiles::specialFilesAreRefused_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QString>("file");    // replaced by the special file
    QTest::addColumn<QString>("special"); // fifo, zero (a link to /dev/zero) or folder
    QTest::addColumn<QString>("what");    // model, tokenizer
    QTest::addColumn<QString>("problem");
    const QString fifo = QStringLiteral("not a regular file but a FIFO (named pipe)");
    const QString device = QStringLiteral("not a regular file but a character device");
    QTest::newRow("config.json FIFO") << "bert_s0"
                                      << "config.json"
                                      << "fifo"
                                      << "model" << fifo;
    QTest::newRow("config.json -> /dev/zero") << "bert_s0"
                                              << "config.json"
                                              << "zero"
                                              << "model" << device;
    QTest::newRow("config.json folder") << "bert_s0"
                                        << "config.json"
                                        << "folder"
                                        << "model"
                                        << "a folder, not a file";
    QTest::newRow("model.safetensors FIFO") << "gpt2_s0"
                                            << "model.safetensors"
                                            << "fifo"
                                            << "model" << fifo;
    QTest::newRow("model.safetensors -> /dev/zero") << "gpt2_s0"
                                                    << "model.safetensors"
                                                    << "zero"
                                                    << "model" << device;
    QTest::newRow("tokenizer.json -> /dev/zero") << "bert_s0"
                                                 << "tokenizer.json"
                                                 << "zero"
                                                 << "tokenizer" << device;
    QTest::newRow("tokenizer.json FIFO") << "gpt2_s0"
                                         << "tokenizer.json"
                                         << "fifo"
                                         << "tokenizer" << fifo;
    QTest::newRow("tokenizer.json FIFO, model") << "gpt2_s0"
                                                << "tokenizer.json"
                                                << "fifo"
                                                << "model" << fifo;
    QTest::newRow("tokenizer_config.json FIFO") << "bert_s0"
                                                << "tokenizer_config.json"
                                                << "fifo"
                                                << "tokenizer" << fifo;
    QTest::newRow("vocab.txt FIFO") << "bert_s0"
                                    << "vocab.txt"
                                    << "fifo"
                                    << "tokenizer" << fifo;
    // A .gguf file is the model itself: opened by its path, under the same rules.
    QTest::newRow("model.gguf FIFO") << "bert_s0"
                                     << "model.gguf"
                                     << "fifo"
                                     << "gguf" << fifo;
    QTest::newRow("model.gguf -> /dev/zero") << "bert_s0"
                                             << "model.gguf"
                                             << "zero"
                                             << "gguf" << device;
    QTest::newRow("attentions.npy FIFO") << "bert_s0"
                                         << "attentions.npy"
                                         << "fifo"
                                         << "npy" << fifo;
}

void TestInputFiles::specialFilesAreRefused()
{
#ifndef Q_OS_UNIX
    QSKIP("FIFOs and /dev/zero are Unix");
#else
    QFETCH(QString, caseName);
    QFETCH(QString, file);
    QFETCH(QString, special);
    QFETCH(QString, what);
    QFETCH(QString, problem);
    if (special == QLatin1String("zero") && !QFileInfo(QStringLiteral("/dev/zero")).exists())
        QSKIP("no /dev/zero");
    QTemporaryDir dir;
    const QString folder = copyOracleCase(dir, caseName);
    const QString path = folder + QLatin1Char('/') + file;
    if (file == QLatin1String("vocab.txt"))
        QFile::remove(folder + QStringLiteral("/tokenizer.json")); // legacy files
    if (file == QLatin1String("attentions.npy"))
        QFile::copy(oracleFolder(caseName) + QLatin1Char('/') + file, path);
    QFile::remove(path);
    std::unique_ptr<Fifo> fifo;
    if (special == QLatin1String("fifo")) {
        fifo = std::make_unique<Fifo>(path);
        QVERIFY(fifo->ok());
    } else if (special == QLatin1String("zero")) {
        QVERIFY(QFile::link(QStringLiteral("/dev/zero"), path));
    } else {
        QVERIFY(QDir().mkpath(path));
    }
    const QString message =
        problemOpening(what, what == QLatin1String("npy") || what == QLatin1String("gguf") ? path : folder);
    if (fifo) {
        fifo->release();
        QVERIFY(isFifo(path)); // untouched
    }
    QVERIFY2(message.startsWith(path + QStringLiteral(": ")) && message.contains(problem),
             qPrintable(message));
#endif
}

// A JSON file over 64 MiB is refused before it is read (the JSON tree would be several times larger).
void TestInputFiles::jsonSizeIsLimited()
{
    QTemporaryDir dir;
    const QString folder = copyOracleCase(dir, QStringLiteral("gpt2_s0"));
    for (const char* name : {"config.json", "tokenizer.json"}) {
        QFile file(folder + QLatin1Char('/') + QLatin1String(name));
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.resize((qint64(65) << 20) + 1)); // sparse: costs no disk
        file.close();
    }
    QString message = problemOpening(QStringLiteral("model"), folder);
    QVERIFY2(
        message.startsWith(folder + QStringLiteral("/config.json: is 65.0 MiB, over the 64.0 MiB limit")),
        qPrintable(message));
    message = problemOpening(QStringLiteral("tokenizer"), folder);
    QVERIFY2(
        message.startsWith(folder + QStringLiteral("/tokenizer.json: is 65.0 MiB, over the 64.0 MiB limit")),
        qPrintable(message));
    QCOMPARE(inputFileProblem(folder + QStringLiteral("/vocab.json"), kMaxJsonFileBytes), QString());
}

void TestInputFiles::problemsAreNamed()
{
    QTemporaryDir dir;
    QCOMPARE(inputFileProblem(dir.filePath(QStringLiteral("none"))), QStringLiteral("file not found"));
    QVERIFY(QFile::link(dir.filePath(QStringLiteral("gone")), dir.filePath(QStringLiteral("link"))));
    QCOMPARE(inputFileProblem(dir.filePath(QStringLiteral("link"))),
             QStringLiteral("a symbolic link to %1, which does not exist")
                 .arg(dir.filePath(QStringLiteral("gone"))));
    QCOMPARE(inputFileProblem(dir.path()), QStringLiteral("a folder, not a file"));
    writeBytes(dir.filePath(QStringLiteral("small")), QByteArray(100, 'x'));
    QCOMPARE(inputFileProblem(dir.filePath(QStringLiteral("small")), 100), QString());
    QVERIFY(inputFileProblem(dir.filePath(QStringLiteral("small")), 99)
                .startsWith(QStringLiteral("is 100 bytes, over the 99 bytes limit")));
    QString problem;
    QCOMPARE(readInputFile(dir.filePath(QStringLiteral("small")), 100, &problem).value_or(QByteArray()),
             QByteArray(100, 'x'));
    QVERIFY(!readInputFile(dir.filePath(QStringLiteral("small")), 50, &problem));
    QVERIFY(problem.contains(QStringLiteral("over the 50 bytes limit")));
}

// Item 8: an added token id of 2^31 − 1 overflowed `id + 1` (undefined behaviour); item 9: a
// tokenizer_config.json that is an array was ignored.
void TestInputFiles::tokenizerIdsAndConfig_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("problem");
    QTest::newRow("added token id 2^31-1")
        << "tokenizer.json"
        << "2147483647"
        << "added_tokens[0].id: id 2147483647 is far beyond the vocabulary's";
    QTest::newRow("tokenizer_config.json array")
        << "tokenizer_config.json"
        << "[1, 2]"
        << "tokenizer_config.json: expected a JSON object at the top level";
}

void TestInputFiles::tokenizerIdsAndConfig()
{
    QFETCH(QString, file);
    QFETCH(QString, json);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    const QString folder = copyOracleCase(dir, QStringLiteral("bert_s0"));
    if (file == QLatin1String("tokenizer.json")) {
        QFile in(folder + QStringLiteral("/tokenizer.json"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject root = QJsonDocument::fromJson(in.readAll()).object();
        in.close();
        root.insert(QStringLiteral("added_tokens"),
                    QJsonArray{QJsonObject{
                        {QStringLiteral("id"),
                         QJsonDocument::fromJson(QByteArray("[" + json.toUtf8() + "]")).array().at(0)},
                        {QStringLiteral("content"), QStringLiteral("<new>")},
                        {QStringLiteral("special"), true}}});
        writeBytes(folder + QStringLiteral("/tokenizer.json"), QJsonDocument(root).toJson());
    } else {
        writeBytes(folder + QLatin1Char('/') + file, json.toUtf8());
    }
    const QString message = problemOpening(QStringLiteral("tokenizer"), folder);
    QVERIFY2(message.contains(problem), qPrintable(message));
}

// The npy reader's sizes are overflow-checked: (2^32, 2^32, 2^32) float32 wrapped to 0 bytes and was
// accepted as an empty array.
void TestInputFiles::npyShapeOverflow()
{
    QByteArray dict =
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }";
    dict += QByteArray(64 - (10 + dict.size() + 1) % 64, ' ') + '\n';
    QByteArray bytes("\x93NUMPY\x01\x00", 8);
    bytes += char(dict.size() & 0xff);
    bytes += char(dict.size() >> 8);
    bytes += dict;
    QString message;
    try {
        parseNpy(bytes, QStringLiteral("huge.npy"));
    } catch (const NpyError& e) {
        message = QString::fromStdString(e.what());
    }
    QVERIFY2(message.startsWith(QStringLiteral(
                 "huge.npy: shape (4294967296, 4294967296, 4294967296) needs more than 2^63 bytes")),
             qPrintable(message));
}

// Item 2: the atomic save renamed over FIFOs and device nodes (`attention --out /dev/full --force` replaced
// /dev/full itself). Only new regular files, or regular files when overwriting is allowed.
void TestInputFiles::outputPolicy_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<bool>("overwrite");
    QTest::addColumn<int>("refusal");
    QTest::addColumn<QString>("problem");
    QTest::newRow("new file") << "new" << false << int(OutputRefusal::None) << "";
    QTest::newRow("existing file") << "regular" << false << int(OutputRefusal::Exists)
                                   << "the file exists and was not overwritten";
    QTest::newRow("existing file, overwrite") << "regular" << true << int(OutputRefusal::None) << "";
    QTest::newRow("FIFO, overwrite") << "fifo" << true << int(OutputRefusal::NotRegular)
                                     << "not a regular file but a FIFO";
    QTest::newRow("link to a FIFO, overwrite")
        << "fifo-link" << true << int(OutputRefusal::NotRegular) << "not a regular file but a FIFO";
    QTest::newRow("folder, overwrite")
        << "folder" << true << int(OutputRefusal::NotRegular) << "is a folder, not a file";
    QTest::newRow("dangling link") << "dangling" << true << int(OutputRefusal::NotRegular)
                                   << "which does not exist";
    QTest::newRow("missing folder") << "no-folder" << true << int(OutputRefusal::NoFolder)
                                    << "does not exist";
}

void TestInputFiles::outputPolicy()
{
    QFETCH(QString, kind);
    QFETCH(bool, overwrite);
    QFETCH(int, refusal);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    QString path = dir.filePath(QStringLiteral("out.csv"));
    if (kind == QLatin1String("regular")) {
        writeBytes(path, "old");
    } else if (kind == QLatin1String("fifo") || kind == QLatin1String("fifo-link")) {
#ifdef Q_OS_UNIX
        const QString fifo = dir.filePath(QStringLiteral("fifo"));
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        if (kind == QLatin1String("fifo"))
            path = fifo;
        else
            QVERIFY(QFile::link(fifo, path));
#else
        QSKIP("FIFOs are Unix");
#endif
    } else if (kind == QLatin1String("folder")) {
        QVERIFY(QDir().mkpath(path));
    } else if (kind == QLatin1String("dangling")) {
        QVERIFY(QFile::link(dir.filePath(QStringLiteral("gone")), path));
    } else if (kind == QLatin1String("no-folder")) {
        path = dir.filePath(QStringLiteral("missing/out.csv"));
    }
    const OutputCheck check = checkOutputPath(path, overwrite);
    QCOMPARE(int(check.refusal), refusal);
    QVERIFY2(check.error.contains(problem) &&
                 (problem.isEmpty() || check.error.startsWith(path + QStringLiteral(": "))),
             qPrintable(check.error));

    // Writing follows the check: refused paths keep what they were, allowed ones get exactly the bytes.
    QString error;
    OutputRefusal writeRefusal = OutputRefusal::None;
    const bool written = writeOutputFile(path, "new", overwrite, &error, &writeRefusal);
    QCOMPARE(written, refusal == int(OutputRefusal::None));
    QCOMPARE(int(writeRefusal), refusal);
    if (written) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("new"));
    }
#ifdef Q_OS_UNIX
    if (kind.startsWith(QLatin1String("fifo"))) QVERIFY(isFifo(dir.filePath(QStringLiteral("fifo"))));
#endif
    if (kind == QLatin1String("regular") && !overwrite) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("old"));
    }
    if (kind == QLatin1String("folder")) QVERIFY(QFileInfo(path).isDir());
}

// Overwriting through a link to a regular file replaces the file it points to and keeps the link.
void TestInputFiles::outputReplacesThroughLinks()
{
    QTemporaryDir dir;
    const QString target = dir.filePath(QStringLiteral("target.csv"));
    const QString link = dir.filePath(QStringLiteral("link.csv"));
    writeBytes(target, "old");
    QVERIFY(QFile::link(target, link));
    QString error;
    QVERIFY2(writeOutputFile(link, "new", true, &error), qPrintable(error));
    QVERIFY(QFileInfo(link).isSymLink());
    QFile file(target);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray("new"));
}

// A file written in pieces appears only when committed; abandoned, it leaves nothing (no temporary file).
void TestInputFiles::outputFileAppearsWhole()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("dump.json"));
    {
        OutputFile out(path, false);
        QVERIFY(out.open());
        QVERIFY(out.write("part one, "));
        QVERIFY(!QFileInfo::exists(path));
        QVERIFY(out.write("part two"));
        QVERIFY2(out.commit(), qPrintable(out.error()));
    }
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray("part one, part two"));
    file.close();
    {
        OutputFile abandoned(dir.filePath(QStringLiteral("abandoned.json")), false);
        QVERIFY(abandoned.open());
        QVERIFY(abandoned.write("never committed"));
    }
    QCOMPARE(filesIn(dir.path()), QStringList{QStringLiteral("dump.json")});
    // The existing file is refused without overwrite, before anything is written.
    OutputFile again(path, false);
    QVERIFY(!again.open());
    QCOMPARE(again.refusal(), OutputRefusal::Exists);
}

// A dump past the 32 MiB steps at which OutputFile starts the disk write early (odd-sized pieces, so the
// steps fall inside a buffered piece): every byte arrives, in order, and nothing appears before commit().
void TestInputFiles::largeOutputIsWrittenBackInSteps()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("large.npy"));
    const qint64 piece = 3 * 1000 * 1000 + 7, pieces = 25; // 75 MB: two steps and a tail
    QByteArray block(int(piece), Qt::Uninitialized);
    {
        OutputFile out(path, false);
        QVERIFY(out.open());
        for (qint64 p = 0; p < pieces; ++p) {
            for (qint64 i = 0; i < piece; ++i)
                block[int(i)] = char((p * piece + i) % 251); // the byte's position, mod a prime
            QVERIFY2(out.write(block), qPrintable(out.error()));
        }
        QVERIFY(!QFileInfo::exists(path));
        QVERIFY2(out.commit(), qPrintable(out.error()));
    }
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.size(), piece * pieces);
    const QByteArray all = file.readAll();
    for (qint64 i = 0; i < all.size(); ++i)
        if (all[int(i)] != char(i % 251)) QFAIL(qPrintable(QStringLiteral("byte %1 differs").arg(i)));
}

void TestInputFiles::directWritesKeepEveryByte_data()
{
    QTest::addColumn<qint64>("first"); // an npy header's size, then pieces of `piece` bytes
    QTest::addColumn<qint64>("piece");
    QTest::addColumn<qint64>("pieces");
    QTest::addColumn<bool>("pageAligned"); // pieces given from page-aligned memory, as a FloatBuffer's
    QTest::newRow("a header only (no whole block)") << qint64(128) << qint64(0) << qint64(0) << false;
    QTest::newRow("exactly one stage (8 MiB)")
        << qint64(4096) << qint64(8 * 1024 * 1024 - 4096) << qint64(1) << false;
    QTest::newRow("header and 12 MiB layers")
        << qint64(128) << qint64(12 * 1024 * 1024) << qint64(3) << false;
    QTest::newRow("odd pieces: stages, blocks and a tail")
        << qint64(128) << qint64(3 * 1000 * 1000 + 7) << qint64(7) << false;
    // Aligned memory at a block boundary of the file goes out uncopied; anywhere else it is staged.
    QTest::newRow("4 KiB header, aligned 12 MiB layers")
        << qint64(4096) << qint64(12 * 1024 * 1024) << qint64(3) << true;
    QTest::newRow("4 KiB header, aligned odd pieces (boundary lost after the first)")
        << qint64(4096) << qint64(3 * 1000 * 1000 + 7) << qint64(4) << true;
    QTest::newRow("128-byte header, aligned layers (never at a boundary)")
        << qint64(128) << qint64(12 * 1024 * 1024) << qint64(2) << true;
    QTest::newRow("4 KiB header, aligned pieces under a block")
        << qint64(4096) << qint64(4000) << qint64(5) << true;
}

// OutputFile::preferDirectWrites (io/directwriter.h): the same bytes as a buffered write, whatever the
// sizes; nothing at the path before commit, and an existing file replaced only then.
void TestInputFiles::directWritesKeepEveryByte()
{
    QFETCH(qint64, first);
    QFETCH(qint64, piece);
    QFETCH(qint64, pieces);
    QFETCH(bool, pageAligned);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("dump.npy"));
    QVERIFY(writeFileBytes(path, "the old file"));
    QFile existing(path);
    auto expectedByte = [](qint64 position) { return char((position * 7 + 3) % 251); };
    auto bytesAt = [&](qint64 start, qint64 size) {
        QByteArray bytes(int(size), Qt::Uninitialized);
        for (qint64 i = 0; i < size; ++i)
            bytes[int(i)] = expectedByte(start + i);
        return bytes;
    };
    const qint64 total = first + piece * pieces;
    bool wroteDirect = false;
    qint64 writtenInPlace = 0;
    {
        OutputFile out(path, true);
        QVERIFY(out.open());
        out.preferDirectWrites();
        QVERIFY2(out.write(bytesAt(0, first)), qPrintable(out.error()));
        for (qint64 p = 0; p < pieces; ++p) {
            const QByteArray bytes = bytesAt(first + p * piece, piece);
            if (pageAligned) {
                // The memory the attention pass hands over (util/uninitializedbuffer.h), padded to a
                // page so that even a piece under 64 KiB starts on one.
                std::vector<char, DefaultInitAllocator<char>> aligned(
                    size_t(std::max<qint64>(piece, DefaultInitAllocator<char>::kPageAlignedFromBytes)));
                QCOMPARE(reinterpret_cast<quintptr>(aligned.data()) % 4096, quintptr(0));
                std::memcpy(aligned.data(), bytes.constData(), size_t(piece));
                QVERIFY2(out.write(aligned.data(), piece), qPrintable(out.error()));
                // What is sent uncopied goes out now: the buffer may be reused at once.
                std::memset(aligned.data(), 0x5a, aligned.size());
            } else {
                QVERIFY2(out.write(bytes), qPrintable(out.error()));
            }
        }
        QVERIFY(existing.open(QIODevice::ReadOnly));
        QCOMPARE(existing.readAll(), QByteArray("the old file"));
        existing.close();
        QVERIFY2(out.commit(), qPrintable(out.error()));
        wroteDirect = out.wroteDirect();
        writtenInPlace = out.writtenInPlace();
    }
    // Depends on the file system (ramfs, and tmpfs before Linux 6.6, refuse O_DIRECT); the bytes must be
    // right either way.
    qInfo("written past the page cache: %s, %lld bytes of it uncopied", wroteDirect ? "yes" : "no",
          writtenInPlace);
    if (total < 4096) QVERIFY(!wroteDirect); // no whole block: all of it through the page cache
    // Only whole blocks of aligned memory at a block boundary of the file can go out in place: after a
    // 4 KiB header, the first aligned piece at least; never after a 128-byte one or from a QByteArray.
    const bool firstAtBoundary = pageAligned && first % 4096 == 0 && piece >= 4096;
    if (wroteDirect && firstAtBoundary)
        QVERIFY2(writtenInPlace >= piece / 4096 * 4096, qPrintable(QString::number(writtenInPlace)));
    if (!pageAligned || first % 4096 != 0 || piece < 4096) QCOMPARE(writtenInPlace, qint64(0));
    QVERIFY(writtenInPlace % 4096 == 0 && writtenInPlace <= total);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.size(), total);
    const QByteArray all = file.readAll();
    for (qint64 i = 0; i < all.size(); ++i)
        if (all[int(i)] != expectedByte(i)) QFAIL(qPrintable(QStringLiteral("byte %1 differs").arg(i)));
}

QTEST_GUILESS_MAIN(TestInputFiles)
#include "tst_input_files.moc"
