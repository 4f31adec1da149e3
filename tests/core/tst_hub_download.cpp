// The Hub client (core/hub) against the stand-in Hub (tests/support/hubstandin.h): the official client's
// cache layout, resume, verification, the Hub's errors, hostile listings and answers, offline mode, cancel.

#include "hub/hubdownload.h"
#include "hub/hubnames.h"
#include "support/hubstandin.h"
#include "support/testdata.h"

#include <QEventLoop>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <unistd.h>

using namespace attnscope;
using namespace attnscope::hub;
using namespace attnscope::testing;
using attnscope::test::HubStandIn;
using attnscope::test::StandInFault;
using attnscope::test::StandInRepo;

namespace {

const QString kRepo = QStringLiteral("org/tiny-bert");

struct Outcome
{
    bool ok = false;
    QString snapshot;
    QString message;
};

// Runs until finished or failed; the 120 s bound only stops a hung client, no verdict depends on time.
Outcome runDownload(HubDownload& download, const HubDownloadRequest& request)
{
    Outcome outcome;
    QEventLoop loop;
    QObject::connect(&download, &HubDownload::finished, &loop, [&](const QString& path) {
        outcome = {true, path, {}};
        loop.quit();
    });
    QObject::connect(&download, &HubDownload::failed, &loop, [&](const QString& message) {
        outcome = {false, {}, message};
        loop.quit();
    });
    QTimer::singleShot(120000, &loop, [&] {
        outcome.message = QStringLiteral("hung");
        loop.quit();
    });
    download.start(request);
    loop.exec();
    return outcome;
}

} // namespace

class TestHubDownload : public test::TinyBertHubTest
{
    Q_OBJECT

    HubSettings settings() const
    {
        HubSettings s;
        s.endpoint = QUrl(m_hub->endpoint());
        s.cacheDir = m_dir->path() + QStringLiteral("/hub");
        return s;
    }
    HubDownloadRequest request(const QString& repo = kRepo) const
    {
        HubDownloadRequest r;
        r.repoId = repo;
        return r;
    }
    Outcome download(const HubDownloadRequest& r, HubSettings s = {})
    {
        if (s.endpoint.isEmpty()) s = settings();
        HubDownload d(s);
        d.setTransferOptions({5, 0, 60000});
        return runDownload(d, r);
    }
    QString weightsSha() const { return QString::fromLatin1(HubStandIn::sha256(weights().bytes)); }
    QString repoDir() const { return m_dir->path() + QStringLiteral("/hub/models--org--tiny-bert"); }
    qint64 cdnGets() const
    {
        qint64 n = 0;
        for (const auto& r : m_hub->requests())
            n += r.cdn && r.method == "GET";
        return n;
    }

private slots:
    void init() { startHub(kRepo); }

    void fullDownloadHasTheOfficialLayout()
    {
        const Outcome o = download(request());
        QVERIFY2(o.ok, qPrintable(o.message));
        QCOMPARE(o.snapshot, repoDir() + QStringLiteral("/snapshots/") + m_repo.commit);
        QCOMPARE(readFileBytes(repoDir() + QStringLiteral("/refs/main")),
                 m_repo.commit.toLatin1()); // no newline
        QStringList expectedBlobs, expectedLinks;
        for (const auto& f : m_repo.files) {
            const QString blob =
                QString::fromLatin1(f.lfs ? HubStandIn::sha256(f.bytes) : HubStandIn::gitBlobSha1(f.bytes));
            expectedBlobs << QStringLiteral("blobs/") + blob;
            expectedLinks << QStringLiteral("snapshots/%1/%2").arg(m_repo.commit, f.path);
            const QFileInfo link(o.snapshot + QLatin1Char('/') + f.path);
            QVERIFY2(link.isSymLink(), qPrintable(f.path));
            // Relative, as the official client writes it (os.path.relpath).
            QCOMPARE(QFile::symLinkTarget(link.filePath()),
                     QFileInfo(repoDir() + QStringLiteral("/blobs/") + blob).absoluteFilePath());
            char target[4096] = {};
            const ssize_t n =
                ::readlink(QFile::encodeName(link.filePath()).constData(), target, sizeof target - 1);
            QCOMPARE(QString::fromLocal8Bit(target, int(n)), QStringLiteral("../../blobs/") + blob);
            QCOMPARE(readFileBytes(link.filePath()), f.bytes);
            QVERIFY(QFileInfo::exists(m_dir->path() + QStringLiteral("/hub/.locks/models--org--tiny-bert/") +
                                      blob + QStringLiteral(".lock")));
        }
        expectedBlobs.sort();
        expectedLinks.sort();
        QCOMPARE(filesUnder(repoDir()), QStringList()
                                            << expectedBlobs << QStringLiteral("refs/main") << expectedLinks);
        // config.json is asked for before anything else, the weights last.
        QStringList resolved;
        for (const auto& r : m_hub->requests())
            if (r.target.contains("/resolve/") && r.method == "HEAD")
                resolved << QString::fromLatin1(r.target).section(QLatin1Char('/'), -1);
        QCOMPARE(resolved.front(), QStringLiteral("config.json"));
        QCOMPARE(resolved.back(), QStringLiteral("model.safetensors"));
        QCOMPARE(m_hub->requests().front().target,
                 QByteArray("/api/models/org/tiny-bert/revision/main?blobs=true"));
    }

    void rangeResumesFromTheIncompleteFile()
    {
        QDir().mkpath(repoDir() + QStringLiteral("/blobs"));
        QFile partial(repoDir() + QStringLiteral("/blobs/") + weightsSha() + QStringLiteral(".incomplete"));
        QVERIFY(partial.open(QIODevice::WriteOnly));
        partial.write(weights().bytes.left(40000));
        partial.close();
        const Outcome o = download(request());
        QVERIFY2(o.ok, qPrintable(o.message));
        const auto gets = m_hub->requestsFor(weightsSha().toLatin1());
        QCOMPARE(gets.size(), size_t(1));
        QCOMPARE(gets.front().range, QByteArray("bytes=40000-"));
        QCOMPARE(readFileBytes(o.snapshot + QStringLiteral("/model.safetensors")), weights().bytes);
        QVERIFY(!partial.exists());
    }

    void cutConnectionResumes()
    {
        StandInFault fault;
        fault.cutAfter = 50000;
        m_hub->setFault(weights().path, fault);
        const Outcome o = download(request());
        QVERIFY2(o.ok, qPrintable(o.message));
        const auto gets = m_hub->requestsFor(weightsSha().toLatin1());
        QCOMPARE(gets.size(), size_t(2));
        QCOMPARE(gets[0].range, QByteArray());
        QCOMPARE(gets[1].range, QByteArray("bytes=50000-"));
        QCOMPARE(readFileBytes(o.snapshot + QStringLiteral("/model.safetensors")), weights().bytes);
    }

    void flippedByteDeletesTheBlobAndNamesTheFile()
    {
        StandInFault fault;
        fault.flipByteAt = 1234;
        m_hub->setFault(weights().path, fault);
        const Outcome o = download(request());
        QVERIFY(!o.ok);
        QVERIFY2(o.message.startsWith(QLatin1String("model.safetensors: sha256")), qPrintable(o.message));
        QVERIFY2(o.message.contains(weightsSha()), qPrintable(o.message));
        QVERIFY(!QFileInfo::exists(repoDir() + QStringLiteral("/blobs/") + weightsSha()));
        QVERIFY(!QFileInfo::exists(repoDir() + QStringLiteral("/blobs/") + weightsSha() +
                                   QStringLiteral(".incomplete")));
        QVERIFY(!QFileInfo(repoDir() + QStringLiteral("/snapshots/") + m_repo.commit +
                           QStringLiteral("/model.safetensors"))
                     .isSymLink());
    }

    void gatedRepoSaysToAcceptTheLicence()
    {
        StandInRepo gated = m_repo;
        gated.id = QStringLiteral("org/gated");
        gated.gated = true;
        m_hub->addRepo(gated);
        const Outcome o = download(request(gated.id));
        QVERIFY(!o.ok);
        QVERIFY2(
            o.message.contains(QStringLiteral("accept its licence at %1/org/gated").arg(m_hub->endpoint())),
            qPrintable(o.message));
        QVERIFY2(o.message.contains(QLatin1String("HF_TOKEN")), qPrintable(o.message));
        // With an accepted token: the Hub gets it, the CDN never does, and nothing prints it.
        m_hub->setAcceptedToken("hf_secret123");
        HubSettings s = settings();
        s.token = "hf_secret123";
        const size_t before = m_hub->requests().size();
        const Outcome withToken = download(request(gated.id), s);
        QVERIFY2(withToken.ok, qPrintable(withToken.message));
        const auto all = m_hub->requests();
        QVERIFY(all.size() > before + 2);
        for (auto it = all.begin() + before; it != all.end(); ++it) {
            const auto& r = *it;
            if (r.cdn)
                QCOMPARE(r.authorization, QByteArray());
            else if (r.target.contains("gated"))
                QCOMPARE(r.authorization, QByteArray("Bearer hf_secret123"));
        }
    }

    void notFoundKinds_data()
    {
        QTest::addColumn<QString>("repo");
        QTest::addColumn<QString>("revision");
        QTest::addColumn<QString>("expected");
        QTest::newRow("RepoNotFound") << "org/absent"
                                      << "main"
                                      << "repository org/absent not found on";
        QTest::newRow("RevisionNotFound") << kRepo << "v9"
                                          << "revision 'v9' not found in org/tiny-bert";
        QTest::newRow("EntryNotFound") << "org/listed"
                                       << "main"
                                       << "vocab.json not found in org/listed at revision 'main'";
    }
    void notFoundKinds()
    {
        QFETCH(QString, repo);
        QFETCH(QString, revision);
        QFETCH(QString, expected);
        StandInRepo listed = m_repo; // lists a file the resolve endpoint does not have
        listed.id = QStringLiteral("org/listed");
        listed.listingOverride =
            "{\"sha\":\"" + listed.commit.toLatin1() +
            "\",\"siblings\":[{\"rfilename\":\"config.json\"},{\"rfilename\":\"vocab.json\"},"
            "{\"rfilename\":\"model.safetensors\"}]}";
        m_hub->addRepo(listed);
        HubDownloadRequest r = request(repo);
        r.revision = revision;
        const Outcome o = download(r);
        QVERIFY(!o.ok);
        QVERIFY2(o.message.contains(expected), qPrintable(o.message));
    }

    // The server holds the weights at a byte until the test lets it go: progress and cancel are checked
    // there.
    void slowAnswerShowsProgressAndCancels()
    {
        StandInFault fault;
        fault.holdAt = 30000;
        m_hub->setFault(weights().path, fault);
        HubDownload d(settings());
        d.setTransferOptions({5, 0, 600000});
        QSignalSpy failed(&d, &HubDownload::failed);
        qint64 lastDone = 0, lastTotal = 0;
        QString lastFile;
        connect(&d, &HubDownload::progress, this,
                [&](qint64 done, qint64 total, double, int, const QString& file) {
                    lastDone = done;
                    lastTotal = total;
                    lastFile = file;
                });
        d.start(request());
        qint64 before = 0, total = 0;
        for (const auto& f : m_repo.files)
            (f.lfs ? total : before) += f.bytes.size();
        total += before;
        QTRY_VERIFY_WITH_TIMEOUT(m_hub->isHeld() && lastDone == before + 30000, 60000);
        QCOMPARE(lastTotal, total);
        QCOMPARE(lastFile, QStringLiteral("model.safetensors"));
        const QString partial =
            repoDir() + QStringLiteral("/blobs/") + weightsSha() + QStringLiteral(".incomplete");
        QCOMPARE(QFileInfo(partial).size(), qint64(30000));
        d.cancel();
        QCOMPARE(failed.count(), 1);
        QCOMPARE(failed.front().front().toString(), QStringLiteral("cancelled"));
        QVERIFY(!QFileInfo(repoDir() + QStringLiteral("/snapshots/") + m_repo.commit +
                           QStringLiteral("/model.safetensors"))
                     .exists());
        m_hub->release();
        const Outcome o = download(request());
        QVERIFY2(o.ok, qPrintable(o.message));
        QCOMPARE(m_hub->requestsFor(weightsSha().toLatin1()).back().range, QByteArray("bytes=30000-"));
        QCOMPARE(readFileBytes(o.snapshot + QStringLiteral("/model.safetensors")), weights().bytes);
    }

    void namesLeavingTheRepoAreRefused_data()
    {
        QTest::addColumn<QByteArray>("name");
        QTest::newRow("dotdot") << QByteArray("../../../evil.json");
        QTest::newRow("inner dotdot") << QByteArray("a/../../evil.json");
        QTest::newRow("absolute") << QByteArray("/tmp/evil.json");
        QTest::newRow("backslash") << QByteArray("..\\\\evil.json");
        QTest::newRow("empty segment") << QByteArray("a//evil.json");
        QTest::newRow("empty") << QByteArray("");
    }
    void namesLeavingTheRepoAreRefused()
    {
        QFETCH(QByteArray, name);
        StandInRepo hostile = m_repo;
        hostile.id = QStringLiteral("org/hostile");
        hostile.listingOverride = "{\"sha\":\"" + hostile.commit.toLatin1() +
                                  "\",\"siblings\":[{\"rfilename\":\"config.json\"},"
                                  "{\"rfilename\":\"" +
                                  name + "\",\"size\":3},{\"rfilename\":\"model.safetensors\"}]}";
        m_hub->addRepo(hostile);
        const Outcome o = download(request(hostile.id));
        QVERIFY(!o.ok);
        QVERIFY2(o.message.contains(QLatin1String("refused")), qPrintable(o.message));
        for (const auto& r : m_hub->requests())
            QVERIFY2(!r.target.contains("/resolve/"), r.target.constData());
        QCOMPARE(filesUnder(m_dir->path()), QStringList());
    }

    void answerLargerThanAnnouncedIsRefused_data()
    {
        QTest::addColumn<bool>("endless");
        QTest::newRow("larger") << false;
        QTest::newRow("endless") << true;
    }
    void answerLargerThanAnnouncedIsRefused()
    {
        QFETCH(bool, endless);
        StandInFault fault;
        fault.extraBytes = endless ? 0 : 1000;
        fault.endless = endless;
        m_hub->setFault(weights().path, fault);
        const Outcome o = download(request());
        QVERIFY(!o.ok);
        QVERIFY2(o.message.startsWith(
                     QStringLiteral("model.safetensors: the server sent more than the announced %1 bytes")
                         .arg(weights().bytes.size())),
                 qPrintable(o.message));
        QVERIFY(!QFileInfo::exists(repoDir() + QStringLiteral("/blobs/") + weightsSha()));
        QVERIFY(!QFileInfo::exists(repoDir() + QStringLiteral("/blobs/") + weightsSha() +
                                   QStringLiteral(".incomplete")));
    }

    void unsupportedArchitectureIsRefusedBeforeTheWeights()
    {
        const StandInRepo other = unsupportedArchitectureRepo();
        m_hub->addRepo(other);
        const Outcome o = download(request(other.id));
        QVERIFY(!o.ok);
        QVERIFY2(o.message.contains(QLatin1String("mamba")) && o.message.contains(QLatin1String("bert")) &&
                     o.message.contains(QLatin1String("llama")),
                 qPrintable(o.message));
        for (const auto& r : m_hub->requests())
            QVERIFY2(!r.target.contains("safetensors") && !r.target.contains("vocab") && !r.cdn,
                     r.target.constData());
    }

    void offlineUsesTheCacheOnly()
    {
        HubSettings s = settings();
        s.offline = true;
        const Outcome missing = download(request(), s);
        QVERIFY(!missing.ok);
        QVERIFY2(missing.message.contains(QLatin1String("is not fully in the cache")),
                 qPrintable(missing.message));
        const Outcome online = download(request());
        QVERIFY2(online.ok, qPrintable(online.message));
        const size_t requests = m_hub->requests().size();
        const Outcome offline = download(request(), s);
        QVERIFY2(offline.ok, qPrintable(offline.message));
        QCOMPARE(offline.snapshot, online.snapshot);
        QCOMPARE(m_hub->requests().size(), requests);
        // A blob gone: not complete.
        QFile::remove(repoDir() + QStringLiteral("/blobs/") + weightsSha());
        QVERIFY(!download(request(), s).ok);
        QCOMPARE(m_hub->requests().size(), requests);
    }

    void oddNamesAreRefusedWithoutARequest_data()
    {
        QTest::addColumn<QString>("repo");
        QTest::addColumn<QString>("revision");
        QTest::addColumn<QString>("expected");
        for (const char* id : {"../x", "a--b", "a/b/c", "x.git", ".x", "a b", "a/..", ""})
            QTest::newRow(id) << id << "main"
                              << "is not a repo id";
        for (const char* rev : {"../main", "a//b", "/main", "ma in", "a\\b"})
            QTest::newRow(rev) << kRepo << rev << "is not a revision";
    }
    void oddNamesAreRefusedWithoutARequest()
    {
        QFETCH(QString, repo);
        QFETCH(QString, revision);
        QFETCH(QString, expected);
        HubDownloadRequest r = request(repo);
        r.revision = revision;
        const Outcome o = download(r);
        QVERIFY(!o.ok);
        QVERIFY2(o.message.contains(expected), qPrintable(o.message));
        QCOMPARE(m_hub->requests().size(), size_t(0));
    }

    void ggufRepoAsksWhichFile()
    {
        const StandInRepo gguf = HubStandIn::ggufQuantsRepo();
        m_hub->addRepo(gguf);
        HubDownload d(settings());
        const Outcome o = runDownload(d, request(gguf.id));
        QVERIFY(!o.ok);
        QVERIFY2(o.message.contains(QLatin1String("--include")), qPrintable(o.message));
        QCOMPARE(d.ggufChoices().size(), size_t(2));
        QCOMPARE(d.ggufChoices()[1].size, qint64(5000));
        HubDownloadRequest r = request(gguf.id);
        r.includeGlobs = {QStringLiteral("*Q4_K_M.gguf")};
        const Outcome picked = download(r);
        QVERIFY2(picked.ok, qPrintable(picked.message));
        QCOMPARE(QDir(picked.snapshot).entryList(QDir::Files), QStringList{QStringLiteral("m-Q4_K_M.gguf")});
    }

    // The environment as huggingface_hub reads it (constants.py); the token file is the one `huggingface-cli
    // login` writes.
    void settingsFromTheEnvironment()
    {
        const QList<QByteArray> names = {
            "HF_ENDPOINT",    "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE",  "HF_HOME",
            "XDG_CACHE_HOME", "HF_TOKEN",     "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH",
            "HF_HUB_OFFLINE"};
        QMap<QByteArray, QByteArray> saved;
        for (const QByteArray& n : names) {
            if (qEnvironmentVariableIsSet(n.constData())) saved[n] = qgetenv(n.constData());
            qunsetenv(n.constData());
        }
        const QString home = m_dir->path();
        qputenv("XDG_CACHE_HOME", (home + QStringLiteral("/xdg")).toUtf8());
        HubSettings s = HubSettings::fromEnvironment();
        QCOMPARE(s.endpoint, QUrl(QStringLiteral("https://huggingface.co")));
        QCOMPARE(s.cacheDir, home + QStringLiteral("/xdg/huggingface/hub"));
        QVERIFY(s.token.isEmpty() && !s.offline);
        QFile tokenFile(home + QStringLiteral("/xdg/huggingface/token"));
        QVERIFY(QDir().mkpath(home + QStringLiteral("/xdg/huggingface")) &&
                tokenFile.open(QIODevice::WriteOnly));
        tokenFile.write("hf_fromfile\n");
        tokenFile.close();
        qputenv("HF_HOME", (home + QStringLiteral("/hfhome")).toUtf8());
        qputenv("HF_HUB_OFFLINE", "true");
        qputenv("HF_ENDPOINT", "http://mirror.example:8080/");
        s = HubSettings::fromEnvironment();
        QCOMPARE(s.cacheDir, home + QStringLiteral("/hfhome/hub"));
        QVERIFY(s.token.isEmpty()); // $HF_HOME/token, which does not exist
        QVERIFY(s.offline);
        QCOMPARE(s.endpoint, QUrl(QStringLiteral("http://mirror.example:8080")));
        qputenv("HF_TOKEN_PATH", tokenFile.fileName().toUtf8());
        qputenv("HF_HUB_CACHE", "/elsewhere");
        s = HubSettings::fromEnvironment();
        QCOMPARE(s.token, QByteArray("hf_fromfile"));
        QCOMPARE(s.tokenSource, tokenFile.fileName());
        QCOMPARE(s.cacheDir, QStringLiteral("/elsewhere"));
        qputenv("HF_TOKEN", "hf_fromenv");
        s = HubSettings::fromEnvironment();
        QCOMPARE(s.token, QByteArray("hf_fromenv"));
        QCOMPARE(s.tokenSource, QStringLiteral("HF_TOKEN"));
        for (const QByteArray& n : names)
            saved.contains(n) ? qputenv(n.constData(), saved[n]) : qunsetenv(n.constData());
    }

    void listingSizesMustBeByteCounts_data()
    {
        QTest::addColumn<QByteArray>("sibling");
        QTest::addColumn<QString>("problem");
        QTest::newRow("size past qint64") << QByteArray("{\"rfilename\":\"a.bin\",\"size\":6.5e23}")
                                          << QStringLiteral("\"a.bin\": size");
        QTest::newRow("negative size") << QByteArray("{\"rfilename\":\"a.bin\",\"size\":-1}")
                                       << QStringLiteral("\"a.bin\": size");
        QTest::newRow("fractional size") << QByteArray("{\"rfilename\":\"a.bin\",\"size\":1.5}")
                                         << QStringLiteral("\"a.bin\": size");
        // The fuzzer's find: an LFS size far past qint64 was cast without a check.
        QTest::newRow("lfs size past qint64")
            << QByteArray("{\"rfilename\":\"a.bin\",\"lfs\":{\"sha256\":\"" + QByteArray(64, 'b') +
                          "\",\"size\":6.53666e+23}}")
            << QStringLiteral("\"a.bin\": lfs size");
    }

    void listingSizesMustBeByteCounts()
    {
        QFETCH(QByteArray, sibling);
        QFETCH(QString, problem);
        const QByteArray json = "{\"sha\":\"" + QByteArray(40, 'a') + "\",\"siblings\":[" + sibling + "]}";
        QString error;
        QVERIFY(!parseListing(json, &error).has_value());
        QVERIFY2(error.contains(problem), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("is not a byte count")), qPrintable(error));

        // The same sibling with a plain size parses, so the refusal is the size's.
        const QByteArray good = "{\"sha\":\"" + QByteArray(40, 'a') +
                                "\",\"siblings\":[{\"rfilename\":\"a.bin\",\"size\":123,\"lfs\":{\"sha256\":\"" +
                                QByteArray(64, 'b') + "\",\"size\":123}}]}";
        const auto listing = parseListing(good, &error);
        QVERIFY2(listing.has_value(), qPrintable(error));
        QCOMPARE(listing->files.front().size, qint64(123));
    }

    void selectionSkipsWhatARunDoesNotNeed()
    {
        HubListing listing;
        listing.commit = QString(40, QLatin1Char('a'));
        for (const char* name :
             {"README.md", "pytorch_model.bin", "tf_model.h5", "flax_model.msgpack", "onnx/model.onnx",
              "onnx/model.safetensors", "model.safetensors", "model.safetensors.index.json", "tokenizer.json",
              "vocab.txt", "config.json", "merges.txt", "coreml/x.mlmodel"})
            listing.files.push_back({QString::fromLatin1(name), 1, {}});
        QStringList picked;
        for (const HubFile& f : selectFiles(listing, {}).files)
            picked << f.path;
        QCOMPARE(picked, (QStringList{QStringLiteral("config.json"), QStringLiteral("tokenizer.json"),
                                      QStringLiteral("vocab.txt"), QStringLiteral("merges.txt"),
                                      QStringLiteral("model.safetensors"),
                                      QStringLiteral("model.safetensors.index.json")}));
    }
};

QTEST_GUILESS_MAIN(TestHubDownload)
#include "tst_hub_download.moc"
