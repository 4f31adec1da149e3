#pragma once

// One file of a repo into the cache, as huggingface_hub's hf_hub_download does it: HEAD
// /{id}/resolve/{commit}/{path} without following redirects (the answer's X-Linked-Etag, X-Linked-Size and
// X-Repo-Commit describe the blob; an LFS file's Location is the CDN), then under the blob's lock a GET of
// that location into blobs/<etag>.incomplete, with Range from its size when it exists. The bytes are hashed
// as they arrive (sha256 for LFS, git's blob sha1 otherwise) and checked before the blob is renamed into
// place and linked into snapshots/<commit>/: nothing partial or unverified is ever linked. A cut connection
// or a 5xx retries with backoff from the bytes on disk; an answer past the announced size is cut and refused.
//
// Asynchronous: never blocks the thread it lives on (a resumed prefix is hashed a slice per event-loop turn).

#include "hub/hubcache.h"
#include "hub/hublisting.h"
#include "hub/hubsettings.h"

#include <QCryptographicHash>
#include <QFile>
#include <QObject>
#include <QPointer>
#include <QUrl>
#include <memory>

class QNetworkAccessManager;
class QNetworkReply;
class QNetworkRequest;

namespace attnscope::hub {

struct TransferOptions
{
    int maxAttempts = 5;           // GETs per file before giving up (the official client's 5)
    int retryDelayMs = 1000;       // before the 2nd attempt; doubles for each next one
    int transferTimeoutMs = 60000; // no byte for this long: the connection counts as cut
};

struct TransferContext
{
    QNetworkAccessManager* network = nullptr;
    HubSettings settings;
    QString repoId;
    QString revision;
    QString commit;
    TransferOptions options;
};

class HubFileTransfer : public QObject
{
    Q_OBJECT
public:
    HubFileTransfer(const TransferContext& context, const HubFile& file, QObject* parent = nullptr);
    ~HubFileTransfer() override;

    void start();
    // Stops at once; the .incomplete file stays for the next run to resume. Emits nothing after.
    void cancel();
    const HubFile& file() const { return m_file; }

signals:
    void bytesOnDisk(qint64 bytes); // of this file, the resumed prefix included
    void notice(const QString& message);
    void done();
    void failed(const QString& message);

private:
    QNetworkRequest request(const QUrl& url, bool withToken) const;
    void head(const QUrl& url, int relativeRedirectsLeft);
    void onHeadFinished(QNetworkReply* reply, int relativeRedirectsLeft);
    void acquire();
    void prepareResume();
    void hashPrefixSlice();
    void get();
    void onData();
    void onGetFinished();
    void retryOrFail(const QString& reason);
    void verifyAndLink();
    void resetHash();
    void linkAndFinish();
    void fail(const QString& message);

    TransferContext m_context;
    HubFile m_file;
    HubRepoCache m_cache;
    QUrl m_location;
    QString m_blob;
    qint64 m_expectedSize = -1;
    std::unique_ptr<BlobLock> m_lock;
    bool m_waitNoticed = false;
    QFile m_incomplete;
    std::unique_ptr<QFile> m_prefixReader;
    std::unique_ptr<QCryptographicHash> m_hash;
    qint64 m_onDisk = 0;
    int m_attempts = 0;
    QPointer<QNetworkReply> m_reply;
    bool m_statusChecked = false;
    bool m_tooLarge = false;
    bool m_stopped = false;
};

} // namespace attnscope::hub
