#pragma once

// `attnscope download` and File > Get a model…: a model repo from the Hugging Face Hub into the official
// client's cache (hubcache.h), only the files a run needs (hublisting.h), each verified (hubfiletransfer.h).
//
// The order refuses early: the listing, then config.json (an architecture no family runs is refused before
// any weight is asked for, naming those that run), then the disk space and the memory estimate the model
// picker shows (model/memoryestimate.h), then the weights. With HF_HUB_OFFLINE set it makes no request at all
// and answers from the cache.
//
// Asynchronous, for a GUI thread as for the command line: start() returns at once; exactly one of finished()
// or failed() follows (failed("cancelled") after cancel()).

#include "hub/hubfiletransfer.h"
#include "hub/hublisting.h"
#include "hub/hubsettings.h"

#include <QElapsedTimer>
#include <QObject>
#include <QStringList>
#include <memory>

class QNetworkAccessManager;
class QNetworkReply;

namespace attnscope::hub {

struct HubDownloadRequest
{
    QString repoId;                            // "gpt2", "org/name"
    QString revision = QStringLiteral("main"); // branch, tag or commit
    QStringList includeGlobs;                  // with a .gguf repo: the file to take
    bool checkMemory = true;                   // refuse a model whose estimate exceeds MemAvailable
};

class HubDownload : public QObject
{
    Q_OBJECT
public:
    explicit HubDownload(const HubSettings& settings, QObject* parent = nullptr);
    ~HubDownload() override;

    void setTransferOptions(const TransferOptions& options) { m_options = options; }
    void start(const HubDownloadRequest& request);
    void cancel();

    // After failed() for a repo of .gguf files without --include: the files to choose from, with sizes.
    const std::vector<HubFile>& ggufChoices() const { return m_ggufChoices; }

signals:
    // bytesDone counts the bytes already in the cache; rate (bytes/s) and eta (s, -1 unknown) only this
    // run's.
    void progress(qint64 bytesDone, qint64 bytesTotal, double bytesPerSecond, int etaSeconds,
                  const QString& currentFile);
    void notice(const QString& message); // a resume, a retry, a wait for another process's lock
    void finished(const QString& snapshotPath);
    void failed(const QString& message);

private:
    void failSoon(const QString& message);
    void finishOffline();
    void requestListing();
    void onListing(QNetworkReply* reply);
    void nextFile();
    bool checkArchitecture();
    bool checkResources();
    void onFileBytes(qint64 bytes);
    void finishAll();
    void fail(const QString& message);

    HubSettings m_settings;
    TransferOptions m_options;
    HubDownloadRequest m_request;
    std::unique_ptr<QNetworkAccessManager> m_network;
    QNetworkReply* m_listingReply = nullptr;
    HubListing m_listing;
    std::vector<HubFile> m_files;
    std::vector<HubFile> m_ggufChoices;
    size_t m_next = 0;
    HubFileTransfer* m_transfer = nullptr;
    qint64 m_total = 0;
    qint64 m_doneBefore = 0;  // bytes of the files finished
    qint64 m_startBytes = -1; // bytesDone when this run's first byte arrived (for the rate)
    QElapsedTimer m_clock;
    bool m_resourcesChecked = false;
    bool m_ended = false;
};

} // namespace attnscope::hub
