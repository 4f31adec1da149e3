// File > Get a model… (ui/hub) against the stand-in Hub (tests/support/hubstandin.h): a download through the
// dialog opens the model in the window, Cancel leaves nothing under snapshots/, a gated repo shows the
// licence line, a repo of .gguf files lists them with sizes, a bad name never reaches the network, and the
// GUI thread keeps processing events while a transfer is held. The stand-in holds the transfer at a byte
// until the test releases it, so no verdict depends on the machine's speed.

#include "explorer/explorersession.h"
#include "explorer/guidedmodellist.h"
#include "hub/getmodeldialog.h"
#include "hub/hubdownloadflow.h"
#include "i18n/languagemanager.h"
#include "mainwindow.h"
#include "model/memoryestimate.h"
#include "settings/appsettings.h"
#include "support/hubstandin.h"
#include "support/testdata.h"
#include "ui/support/testsettings.h"

#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using namespace attnscope;
using namespace attnscope::testing;
using attnscope::test::HubStandIn;
using attnscope::test::StandInFault;
using attnscope::test::StandInRepo;
using State = HubDownloadFlow::State;

namespace {

const QString kRepo = QStringLiteral("org/tiny-bert");
// The 120 s bounds below only stop a hung client; every verdict waits for a state, never for a time.
constexpr int kHung = 120000;

} // namespace

class TestHubDialog : public test::TinyBertHubTest
{
    Q_OBJECT

    hub::HubSettings settings() const
    {
        hub::HubSettings s;
        s.endpoint = QUrl(m_hub->endpoint());
        s.cacheDir = m_dir->filePath(QStringLiteral("hf/hub"));
        return s;
    }
    std::unique_ptr<GetModelDialog> dialog() const
    {
        auto d = std::make_unique<GetModelDialog>(settings());
        d->flow()->setTransferOptions({5, 0, 600000});
        d->show();
        return d;
    }
    QString repoDir() const { return m_dir->filePath(QStringLiteral("hf/hub/models--org--tiny-bert")); }
    qint64 bytesBeforeWeights() const
    {
        qint64 n = 0;
        for (const auto& f : m_repo.files)
            n += f.lfs ? 0 : f.bytes.size();
        return n;
    }
    static void type(GetModelDialog& d, const QString& repo)
    {
        d.repoEdit()->clear();
        QTest::keyClicks(d.repoEdit(), repo);
    }
    // The status line of a fresh dialog once the download the user started of `repo` has failed; nullopt
    // where it does not fail (kHung).
    std::optional<QString> failedDownloadLine(const QString& repo) const
    {
        auto d = dialog();
        type(*d, repo);
        QTest::mouseClick(d->downloadButton(), Qt::LeftButton);
        if (!QTest::qWaitFor([&] { return d->flow()->state() == State::Failed; }, kHung)) return std::nullopt;
        return d->statusLabel()->text();
    }
    // A dialog whose download of kRepo was started by the user and is held at byte `offset` of the weights
    // (once the transfer gets there) until m_hub->release().
    std::unique_ptr<GetModelDialog> downloadHeldAt(qint64 offset)
    {
        StandInFault fault;
        fault.holdAt = offset;
        m_hub->setFault(weights().path, fault);
        auto d = dialog();
        type(*d, kRepo);
        QTest::mouseClick(d->downloadButton(), Qt::LeftButton);
        return d;
    }

private slots:
    void init()
    {
        useEmptyTestSettings();
        QVERIFY(LanguageManager::shared()->setLanguage(QStringLiteral("en")));
        startHub(kRepo);
        // The window's dialog reads the environment as the official client does (HubSettings).
        qputenv("HOME", m_dir->path().toUtf8());
        qputenv("HF_HOME", m_dir->filePath(QStringLiteral("hf")).toUtf8());
        qputenv("HF_HUB_CACHE", m_dir->filePath(QStringLiteral("hf/hub")).toUtf8());
        qputenv("HF_ENDPOINT", m_hub->endpoint().toUtf8());
        for (const char* name :
             {"OLLAMA_MODELS", "LLAMA_CACHE", "XDG_CACHE_HOME", "HF_TOKEN", "HF_HUB_OFFLINE"})
            qunsetenv(name);
    }
    void cleanup()
    {
        for (const char* name : {"HF_ENDPOINT", "HF_HUB_CACHE", "HF_HOME"})
            qunsetenv(name);
        m_hub.reset();
    }

    // File > Get a model…, a repo id typed, Download: the snapshot the core wrote is the model the explorer
    // then shows.
    void downloadThroughTheWindowOpensTheModel()
    {
        MainWindow window;
        window.show();
        QAction* action = window.findChild<QAction*>(QStringLiteral("getModel"));
        QVERIFY(action);
        action->trigger();
        auto* d = window.findChild<GetModelDialog*>();
        QVERIFY(d && d->isVisible());
        d->flow()->setTransferOptions({5, 0, 600000});
        type(*d, kRepo);
        QVERIFY(d->downloadButton()->isEnabled());
        QTest::mouseClick(d->downloadButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(d->flow()->state() == State::Done || d->flow()->state() == State::Failed,
                                 kHung);
        QVERIFY2(d->flow()->state() == State::Done, qPrintable(d->statusLabel()->text()));
        const QString snapshot = repoDir() + QStringLiteral("/snapshots/") + m_repo.commit;
        QCOMPARE(d->flow()->modelPath(), snapshot);
        QVERIFY(d->statusLabel()->text().contains(QDir::toNativeSeparators(snapshot)));
        QCOMPARE(d->progressBar()->value(), d->progressBar()->maximum());
        ExplorerSession* session = window.session();
        QTRY_VERIFY_WITH_TIMEOUT(!session->isLoading(), kHung);
        QVERIFY(session->models()->contains(session->currentIndex()));
        QCOMPARE(QFileInfo(session->models()->at(session->currentIndex()).folder).canonicalFilePath(),
                 QFileInfo(snapshot).canonicalFilePath());
    }

    // The guided list's Download opens the same dialog with the repo (and a GGUF repo's file) typed in.
    void guidedListDownloadPrefillsTheDialog()
    {
        MainWindow window;
        GuidedModelList* list = window.guidedModels();
        QVERIFY(list);
        const int gguf = list->indexOf(QStringLiteral("llama-3.1-8b-gguf"));
        QVERIFY(gguf >= 0);
        QTest::mouseClick(list->downloadButton(gguf), Qt::LeftButton);
        auto* d = window.findChild<GetModelDialog*>();
        QVERIFY(d && d->isVisible());
        QCOMPARE(d->repoEdit()->text(), list->models()[gguf].repo);
        QCOMPARE(d->flow()->state(), State::Idle); // ready, not started: the user presses Download
        QVERIFY(d->downloadButton()->isEnabled());
        QCOMPARE(m_hub->requests().size(), size_t(0));
    }

    // Held at a byte of the weights: the line shows the bytes, Cancel ends the run, the partial file stays
    // .incomplete in blobs/ and nothing is under snapshots/.
    void cancelStopsAndLeavesNoSnapshot()
    {
        auto d = downloadHeldAt(30000);
        const qint64 done = bytesBeforeWeights() + 30000;
        QTRY_VERIFY_WITH_TIMEOUT(m_hub->isHeld() && d->flow()->bytesDone() == done, kHung);
        QCOMPARE(d->flow()->state(), State::Downloading);
        QVERIFY(d->cancelButton()->isEnabled());
        QVERIFY(!d->downloadButton()->isEnabled());
        QVERIFY(!d->repoEdit()->isEnabled());
        const QString line = d->statusLabel()->text();
        QVERIFY2(line.contains(formatBytes(done, QLocale()) + QStringLiteral(" of ") +
                               formatBytes(bytesBeforeWeights() + weights().bytes.size(), QLocale())),
                 qPrintable(line));
        QVERIFY2(line.contains(QLatin1String("model.safetensors")), qPrintable(line));
        QTest::mouseClick(d->cancelButton(), Qt::LeftButton);
        QCOMPARE(d->flow()->state(), State::Idle);
        QVERIFY(d->statusLabel()->text().startsWith(QLatin1String("Cancelled.")));
        QVERIFY(d->downloadButton()->isEnabled());
        QVERIFY(!d->cancelButton()->isEnabled());
        // The files finished before the cancel are linked whole (the official client links each file as it
        // completes); the weights, cut short, are not there, and nothing under snapshots/ is partial.
        const QString snapshot = repoDir() + QStringLiteral("/snapshots/") + m_repo.commit;
        const QStringList linked = filesUnder(repoDir() + QStringLiteral("/snapshots"));
        QVERIFY(!linked.isEmpty()); // config.json came first, whole
        QVERIFY(!QFileInfo::exists(snapshot + QStringLiteral("/model.safetensors")));
        for (const auto& f : m_repo.files) {
            QFile file(snapshot + QLatin1Char('/') + f.path);
            if (!file.exists()) continue;
            QVERIFY(linked.contains(m_repo.commit + QLatin1Char('/') + f.path));
            QVERIFY(file.open(QIODevice::ReadOnly));
            QCOMPARE(file.readAll(), f.bytes);
        }
        for (const QString& path : linked)
            QVERIFY2(!path.endsWith(QLatin1String(".incomplete")), qPrintable(path));
        QVERIFY(QFileInfo::exists(repoDir() + QStringLiteral("/blobs/") +
                                  QString::fromLatin1(HubStandIn::sha256(weights().bytes)) +
                                  QStringLiteral(".incomplete")));
        m_hub->release();
    }

    // While the transfer is held the GUI thread goes on processing events: a zero-interval timer, which
    // only fires when the event loop turns, fires again and again, and the dialog still answers input.
    void theGuiThreadStaysResponsive()
    {
        auto d = downloadHeldAt(30000);
        QTRY_VERIFY_WITH_TIMEOUT(m_hub->isHeld(), kHung);
        int turns = 0;
        QTimer tick;
        tick.setInterval(0);
        connect(&tick, &QTimer::timeout, this, [&] { ++turns; });
        tick.start();
        QTRY_VERIFY_WITH_TIMEOUT(turns >= 500, kHung);
        QVERIFY(m_hub->isHeld()); // all those turns happened with the download in flight
        QCOMPARE(d->flow()->state(), State::Downloading);
        QTest::mouseClick(d->cancelButton(), Qt::LeftButton); // and it answers a click
        QCOMPARE(d->flow()->state(), State::Idle);
        m_hub->release();
    }

    void gatedRepoShowsTheLicenceLine()
    {
        StandInRepo gated = m_repo;
        gated.id = QStringLiteral("org/gated");
        gated.gated = true;
        m_hub->addRepo(gated);
        const std::optional<QString> failed = failedDownloadLine(gated.id);
        QVERIFY2(failed, "the download did not fail");
        const QString line = *failed;
        QVERIFY2(line.contains(QStringLiteral("accept its licence at %1/org/gated").arg(m_hub->endpoint())),
                 qPrintable(line));
        QVERIFY2(line.contains(QLatin1String("HF_TOKEN")), qPrintable(line));
        QVERIFY(!line.contains(QLatin1Char('\n')));
        QCOMPARE(filesUnder(m_dir->filePath(QStringLiteral("hf/hub/models--org--gated/snapshots"))),
                 QStringList());
    }

    void missingRepoSaysNotFound()
    {
        const std::optional<QString> line = failedDownloadLine(QStringLiteral("org/absent"));
        QVERIFY2(line, "the download did not fail");
        QVERIFY2(line->contains(QLatin1String("org/absent not found")), qPrintable(*line));
    }

    // The core's refusals reach the dialog as its one line: an architecture no family runs (after
    // config.json, before any weights), and HF_HUB_OFFLINE with nothing cached (no request at all).
    void unsupportedArchitectureIsOneLineBeforeTheWeights()
    {
        const StandInRepo other = unsupportedArchitectureRepo();
        m_hub->addRepo(other);
        const std::optional<QString> failed = failedDownloadLine(other.id);
        QVERIFY2(failed, "the download did not fail");
        const QString line = *failed;
        QVERIFY2(line.contains(QLatin1String("mamba")) && line.contains(QLatin1String("llama")),
                 qPrintable(line));
        QVERIFY(!line.contains(QLatin1Char('\n')));
        for (const auto& r : m_hub->requests())
            QVERIFY2(!r.target.contains("safetensors") && !r.cdn, r.target.constData());
    }

    void offlineWithNothingCachedSaysSo()
    {
        hub::HubSettings s = settings();
        s.offline = true;
        GetModelDialog d(s);
        d.show();
        type(d, kRepo);
        QTest::mouseClick(d.downloadButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(d.flow()->state() == State::Failed, kHung);
        QVERIFY2(d.statusLabel()->text().contains(QLatin1String("HF_HUB_OFFLINE")),
                 qPrintable(d.statusLabel()->text()));
        QCOMPARE(m_hub->requests().size(), size_t(0));
    }

    // A bad name is refused as it is typed (the core's check), and never asked of the network.
    void badNamesNeverReachTheNetwork_data()
    {
        QTest::addColumn<QString>("repo");
        QTest::addColumn<QString>("revision");
        QTest::addColumn<QString>("expected");
        QTest::newRow("two dots") << QStringLiteral("org/a..b") << QString()
                                  << QStringLiteral("Repository id:");
        QTest::newRow("three parts") << QStringLiteral("a/b/c") << QString()
                                     << QStringLiteral("Repository id:");
        QTest::newRow("revision ..") << kRepo << QStringLiteral("../x") << QStringLiteral("Revision:");
    }
    void badNamesNeverReachTheNetwork()
    {
        QFETCH(QString, repo);
        QFETCH(QString, revision);
        QFETCH(QString, expected);
        auto d = dialog();
        type(*d, repo);
        QTest::keyClicks(d->revisionEdit(), revision);
        QVERIFY2(d->statusLabel()->text().startsWith(expected), qPrintable(d->statusLabel()->text()));
        QVERIFY(!d->downloadButton()->isEnabled());
        QVERIFY(!d->flow()->start(repo, revision));
        QCOMPARE(d->flow()->state(), State::Failed);
        QCOMPARE(m_hub->requests().size(), size_t(0));
    }

    // A repo of .gguf files: the dialog lists them with their sizes; the one chosen is fetched and opened.
    void ggufRepoListsTheFilesWithSizes()
    {
        const StandInRepo gguf = HubStandIn::ggufQuantsRepo();
        m_hub->addRepo(gguf);
        auto d = dialog();
        QSignalSpy ready(d.get(), &GetModelDialog::modelReady);
        type(*d, gguf.id);
        QTest::mouseClick(d->downloadButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(d->flow()->state() != State::Listing, kHung);
        QCOMPARE(d->flow()->state(), State::ChoosingFile);
        QTreeWidget* files = d->fileList();
        QVERIFY(files->isVisible());
        QCOMPARE(files->topLevelItemCount(), 2);
        QCOMPARE(files->topLevelItem(0)->text(0), QStringLiteral("m-Q4_K_M.gguf"));
        QCOMPARE(files->topLevelItem(0)->text(1), formatBytes(3000, QLocale()));
        QCOMPARE(files->topLevelItem(1)->text(0), QStringLiteral("m-Q8_0.gguf"));
        QCOMPARE(files->topLevelItem(1)->text(1), formatBytes(5000, QLocale()));
        QVERIFY(d->statusLabel()->text().contains(QLatin1String("2 GGUF files")));
        QVERIFY(!d->downloadButton()->isEnabled()); // nothing chosen yet
        files->setCurrentItem(files->topLevelItem(1));
        QVERIFY(d->downloadButton()->isEnabled());
        QTest::mouseClick(d->downloadButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(ready.size() == 1 || d->flow()->state() == State::Failed, kHung);
        QVERIFY2(d->flow()->state() == State::Done, qPrintable(d->statusLabel()->text()));
        const QString snapshot =
            m_dir->filePath(QStringLiteral("hf/hub/models--org--quants/snapshots/")) + gguf.commit;
        QCOMPARE(ready[0][0].toString(), snapshot + QStringLiteral("/m-Q8_0.gguf"));
        QCOMPARE(QDir(snapshot).entryList(QDir::Files), QStringList{QStringLiteral("m-Q8_0.gguf")});
    }

    void durationsForPeople()
    {
        QCOMPARE(durationForPeople(-1), QString());
        QCOMPARE(durationForPeople(42), QStringLiteral("42 s"));
        QCOMPARE(durationForPeople(65), QStringLiteral("1 min 05 s"));
        QCOMPARE(durationForPeople(2 * 3600 + 3 * 60 + 59), QStringLiteral("2 h 03 min"));
    }
};

QTEST_MAIN(TestHubDialog)
#include "tst_hub_dialog.moc"
