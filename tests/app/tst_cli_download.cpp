// `attnscope download` as a process against the stand-in Hub (tests/support/hubstandin.h): its output and
// exit codes, a kill -9 mid-transfer resumed by the next run, two processes on one repo, and the round trip
// with the official client (huggingface_hub's source from ATTNSCOPE_HF_HUB_SRC).

#include "support/hubstandin.h"
#include "support/testdata.h"

#include <QDirIterator>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using attnscope::test::HubStandIn;
using attnscope::test::StandInFault;
using attnscope::test::StandInRepo;
using attnscope::testing::readFileBytes;

namespace {

const QString kRepo = QStringLiteral("org/tiny-bert");

} // namespace

class TestCliDownload : public attnscope::test::TinyBertHubTest
{
    Q_OBJECT

    QString cacheDir() const { return m_dir->path() + QStringLiteral("/hub"); }
    QString repoDir() const { return cacheDir() + QStringLiteral("/models--org--tiny-bert"); }
    QByteArray weightsSha() const { return HubStandIn::sha256(weights().bytes); }
    QString partialPath() const
    {
        return repoDir() + QStringLiteral("/blobs/") + QString::fromLatin1(weightsSha()) +
               QStringLiteral(".incomplete");
    }

    QProcessEnvironment environment(bool offline = false) const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* name :
             {"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH", "HF_HUB_OFFLINE", "http_proxy",
              "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})
            env.remove(QString::fromLatin1(name));
        env.insert(QStringLiteral("HF_ENDPOINT"), m_hub->endpoint());
        env.insert(QStringLiteral("HF_HUB_CACHE"), cacheDir());
        env.insert(QStringLiteral("HF_HOME"), m_dir->path() + QStringLiteral("/home")); // no token file
        if (offline) env.insert(QStringLiteral("HF_HUB_OFFLINE"), QStringLiteral("1"));
        return env;
    }
    void startDownload(QProcess& p, const QStringList& extra = {}, bool offline = false) const
    {
        p.setProcessEnvironment(environment(offline));
        p.start(QStringLiteral(ATTNSCOPE_BINARY), QStringList{QStringLiteral("download"), kRepo} + extra);
    }
    // Waits for the exit; the bound stops a hung process only.
    static bool finish(QProcess& p) { return p.waitForFinished(120000); }
    static QString lastLine(const QByteArray& out)
    {
        return QString::fromUtf8(out).trimmed().split(QLatin1Char('\n')).last();
    }
    std::vector<attnscope::test::StandInRequest> weightGets() const
    {
        std::vector<attnscope::test::StandInRequest> gets;
        for (const auto& r : m_hub->requestsFor(weightsSha()))
            if (r.method == "GET") gets.push_back(r);
        return gets;
    }

private slots:
    void init() { startHub(kRepo); }

    void printsTheSnapshotOrOneLineReason()
    {
        QProcess ok;
        startDownload(ok);
        QVERIFY(finish(ok));
        QCOMPARE(ok.exitCode(), 0);
        QCOMPARE(lastLine(ok.readAllStandardOutput()),
                 repoDir() + QStringLiteral("/snapshots/") + m_repo.commit);
        QCOMPARE(ok.readAllStandardError(), QByteArray()); // not a terminal: no progress
        QProcess missing;
        missing.setProcessEnvironment(environment());
        missing.start(QStringLiteral(ATTNSCOPE_BINARY),
                      {QStringLiteral("download"), QStringLiteral("org/absent")});
        QVERIFY(finish(missing));
        QCOMPARE(missing.exitCode(), 1);
        QCOMPARE(missing.readAllStandardOutput(), QByteArray());
        const QByteArray error = missing.readAllStandardError();
        QCOMPARE(error.count('\n'), 1);
        QVERIFY2(error.startsWith("attnscope: download: repository org/absent not found"), error.constData());
    }

    // The server holds the weights at byte 40000; the test kills the process there, the next run resumes.
    void killedProcessResumesWithRange()
    {
        StandInFault fault;
        fault.holdAt = 40000;
        m_hub->setFault(weights().path, fault);
        QProcess first;
        startDownload(first);
        QTRY_VERIFY_WITH_TIMEOUT(m_hub->isHeld() && QFileInfo(partialPath()).size() == 40000, 60000);
        first.kill(); // SIGKILL
        QVERIFY(first.waitForFinished(60000));
        QCOMPARE(first.exitStatus(), QProcess::CrashExit);
        QVERIFY(!QFileInfo::exists(repoDir() + QStringLiteral("/snapshots/") + m_repo.commit +
                                   QStringLiteral("/model.safetensors")));
        m_hub->release();
        QProcess second;
        startDownload(second);
        QVERIFY(finish(second));
        QCOMPARE(second.exitCode(), 0);
        const auto gets = weightGets();
        QCOMPARE(gets.size(), size_t(2));
        QCOMPARE(gets.back().range, QByteArray("bytes=40000-"));
        const QString snapshot = lastLine(second.readAllStandardOutput());
        QCOMPARE(readFileBytes(snapshot + QStringLiteral("/model.safetensors")), weights().bytes);
        QVERIFY(!QFileInfo::exists(partialPath()));
    }

    // Two processes on one repo: the second waits for the blob's lock and then takes the finished blob.
    void twoProcessesShareOneLock()
    {
        StandInFault fault;
        fault.holdAt = 40000;
        m_hub->setFault(weights().path, fault);
        QProcess a, b;
        startDownload(a);
        QTRY_VERIFY_WITH_TIMEOUT(m_hub->isHeld(), 60000);
        startDownload(b);
        QByteArray bError;
        QTRY_VERIFY_WITH_TIMEOUT((bError += b.readAllStandardError()).contains("waiting for another process"),
                                 60000);
        m_hub->release();
        QVERIFY(finish(a));
        QVERIFY(finish(b));
        QCOMPARE(a.exitCode(), 0);
        QCOMPARE(b.exitCode(), 0);
        QCOMPARE(lastLine(a.readAllStandardOutput()), lastLine(b.readAllStandardOutput()));
        QCOMPARE(weightGets().size(), size_t(1));
        QCOMPARE(readFileBytes(repoDir() + QStringLiteral("/blobs/") + QString::fromLatin1(weightsSha())),
                 weights().bytes);
    }

    void roundTripWithTheOfficialClient()
    {
        const QString source = qEnvironmentVariable("ATTNSCOPE_HF_HUB_SRC");
        if (source.isEmpty())
            QSKIP("ATTNSCOPE_HF_HUB_SRC is not set (the folder holding huggingface_hub's source, e.g. the "
                  "oracle kit's src)");
        const QString python = qEnvironmentVariable("ATTNSCOPE_PYTHON", QStringLiteral("python3"));
        if (QStandardPaths::findExecutable(python).isEmpty() && !QFileInfo(python).isExecutable())
            QSKIP(qPrintable(
                QStringLiteral("%1 not found (ATTNSCOPE_PYTHON names the interpreter)").arg(python)));
        auto runPython = [&](const QString& script, bool offline, const QString& cache, QByteArray* out) {
            QProcess p;
            QProcessEnvironment env = environment(offline);
            env.insert(QStringLiteral("HF_HUB_CACHE"), cache);
            env.insert(QStringLiteral("PYTHONPATH"), source);
            env.insert(QStringLiteral("HF_HUB_DISABLE_PROGRESS_BARS"), QStringLiteral("1"));
            env.insert(QStringLiteral("HF_HUB_DISABLE_TELEMETRY"), QStringLiteral("1"));
            p.setProcessEnvironment(env);
            p.start(python, {QStringLiteral("-c"), script, kRepo});
            const bool done = p.waitForFinished(120000);
            *out = p.readAllStandardOutput();
            const QByteArray err = p.readAllStandardError();
            return done && p.exitStatus() == QProcess::NormalExit ? std::make_pair(p.exitCode(), err)
                                                                  : std::make_pair(-1, err);
        };
        QByteArray out;
        const auto probe =
            runPython(QStringLiteral("import huggingface_hub, sys; print(huggingface_hub.__version__)"),
                      false, cacheDir(), &out);
        if (probe.first != 0) {
            const QString last = QString::fromUtf8(probe.second).trimmed().split(QLatin1Char('\n')).last();
            QSKIP(qPrintable(
                QStringLiteral("%1 cannot import huggingface_hub from %2: %3").arg(python, source, last)));
        }
        const QByteArray check = "from huggingface_hub import file_download, _snapshot_download";
        const auto deps = runPython(QString::fromLatin1(check), false, cacheDir(), &out);
        if (deps.first != 0)
            QSKIP(qPrintable(
                QStringLiteral("%1 lacks what huggingface_hub needs (requests, filelock, tqdm, fsspec, "
                               "packaging, pyyaml): %2")
                    .arg(python, QString::fromUtf8(deps.second).trimmed().split(QLatin1Char('\n')).last())));

        // 1. The official client downloads; attnscope, offline, finds it complete at the same folder.
        const QString officialCache = m_dir->path() + QStringLiteral("/official");
        const auto fetched =
            runPython(QStringLiteral("import sys\nfrom huggingface_hub import "
                                     "snapshot_download\nprint(snapshot_download(sys.argv[1]))"),
                      false, officialCache, &out);
        QVERIFY2(fetched.first == 0, fetched.second.constData());
        const QString officialSnapshot = lastLine(out);
        QProcess offline;
        QProcessEnvironment env = environment(true);
        env.insert(QStringLiteral("HF_HUB_CACHE"), officialCache);
        offline.setProcessEnvironment(env);
        offline.start(QStringLiteral(ATTNSCOPE_BINARY), {QStringLiteral("download"), kRepo});
        QVERIFY(finish(offline));
        QVERIFY2(offline.exitCode() == 0, offline.readAllStandardError().constData());
        QCOMPARE(QFileInfo(lastLine(offline.readAllStandardOutput())).canonicalFilePath(),
                 QFileInfo(officialSnapshot).canonicalFilePath());

        // 2. attnscope downloads; the official client, offline, returns the same files.
        QProcess ours;
        startDownload(ours);
        QVERIFY(finish(ours));
        QCOMPARE(ours.exitCode(), 0);
        const QString ourSnapshot = lastLine(ours.readAllStandardOutput());
        const size_t requestsBefore = m_hub->requests().size();
        QString script = QStringLiteral(
            "import sys\nfrom huggingface_hub import snapshot_download, try_to_load_from_cache\n"
            "print(snapshot_download(sys.argv[1], local_files_only=True))\n");
        for (const auto& f : m_repo.files)
            script += QStringLiteral("print(try_to_load_from_cache(sys.argv[1], '%1'))\n").arg(f.path);
        const auto read = runPython(script, true, cacheDir(), &out);
        QVERIFY2(read.first == 0, read.second.constData());
        const QStringList lines = QString::fromUtf8(out).trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), qsizetype(m_repo.files.size() + 1));
        QCOMPARE(QFileInfo(lines[0]).canonicalFilePath(), QFileInfo(ourSnapshot).canonicalFilePath());
        for (size_t i = 0; i < m_repo.files.size(); ++i)
            QCOMPARE(readFileBytes(lines[qsizetype(i + 1)]), m_repo.files[i].bytes);
        QCOMPARE(m_hub->requests().size(), requestsBefore);
        // The official client's cache and ours: the same files, blob names and links.
        auto layout = [](const QString& root) {
            QStringList entries;
            QDirIterator it(root + QStringLiteral("/models--org--tiny-bert"), QDir::Files | QDir::System,
                            QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString path = it.next();
                const QFileInfo info(path);
                entries << QDir(root).relativeFilePath(path) +
                               (info.isSymLink()
                                    ? QStringLiteral(" -> ") +
                                          QFile::symLinkTarget(path).section(QLatin1Char('/'), -1)
                                    : QString());
            }
            entries.sort();
            return entries;
        };
        QCOMPARE(layout(cacheDir()), layout(officialCache));
    }
};

QTEST_GUILESS_MAIN(TestCliDownload)
#include "tst_cli_download.moc"
