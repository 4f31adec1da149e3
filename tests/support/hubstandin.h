#pragma once

// A stand-in for the Hugging Face Hub in the test suite: HTTP/1.1 on 127.0.0.1 (port 0), in a thread of its
// own, answering as the Hub does (huggingface_hub's file_download.py and hf_api.py read these headers):
//   GET  /api/models/{id}/revision/{rev}?blobs=true   the listing:
//   {"id","sha","siblings":[{rfilename,size,blobId,lfs}]} HEAD/GET /{id}/resolve/{rev}/{path}   a git file:
//   200, ETag "<git sha1>", X-Repo-Commit, Content-Length;
//                                        an LFS file: 302 to the second listener (the CDN), X-Linked-Etag
//                                        "<sha256>", X-Linked-Size, X-Repo-Commit
//   GET  /blobs/<sha256> on the CDN       the bytes, with Range (206, Content-Range)
//   errors: 401 X-Error-Code: RepoNotFound / GatedRepo, 404 RevisionNotFound / EntryNotFound.
// Faults a test switches on: a flipped byte, a cut connection, more bytes than announced, an endless answer,
// a hold at a byte until the test releases it (so a test controls the pace, never the clock), a hostile
// listing. Every request is recorded (method, target, Range, Authorization) for the test to assert on.

#include <QByteArray>
#include <QMap>
#include <QMutex>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QThread>
#include <atomic>
#include <memory>
#include <vector>

class QTcpServer;
class QTcpSocket;

namespace attnscope::test {

struct StandInFile
{
    QString path;
    QByteArray bytes;
    bool lfs = false;
};

struct StandInRepo
{
    QString id;
    QString commit; // 40 hex
    std::vector<StandInFile> files;
    QByteArray listingOverride; // non-empty: sent as the listing instead of the one built from `files`
    bool gated = false;         // 401 GatedRepo unless the request carries `Bearer <acceptedToken>`
};

struct StandInRequest
{
    QByteArray method;
    QByteArray target; // path and query as sent
    QByteArray range;
    QByteArray authorization;
    bool cdn = false;
};

// Faults for the CDN body of one LFS file (by its repo path).
struct StandInFault
{
    qint64 flipByteAt = -1; // the byte at this offset is inverted
    qint64 cutAfter = -1;   // the first GET closes the connection after this many body bytes
    qint64 extraBytes = 0;  // sent past the file's size (Content-Length says so)
    bool endless = false;   // no Content-Length, bytes until the client hangs up
    qint64 holdAt = -1;     // stop at this file offset until release()
};

class HubStandIn
{
public:
    HubStandIn();
    ~HubStandIn();

    QString endpoint() const; // "http://127.0.0.1:<port>"
    void addRepo(const StandInRepo& repo);
    void setFault(const QString& path, const StandInFault& fault);
    void setAcceptedToken(const QByteArray& token);

    std::vector<StandInRequest> requests() const;
    // Requests whose target contains `needle` (e.g. "model.safetensors", a blob's sha256).
    std::vector<StandInRequest> requestsFor(const QByteArray& needle) const;
    bool isHeld() const { return m_held.load(); }
    void release(); // lets a held answer go on (the fault's holdAt is cleared)

    // The repo folder of tests/data/oracle/<name>: config.json, tokenizer files, model.safetensors (LFS).
    static StandInRepo repoFromFolder(const QString& id, const QString& folder);
    // The repo of tests/data/oracle/bert_s0 under id, its git files first and its LFS file (the weights,
    // model.safetensors) last: the download tests' fixture.
    static StandInRepo tinyBertRepo(const QString& id);
    // "org/quants": two .gguf files (LFS, 3,000 and 5,000 bytes) and a README, for the tests where a repo
    // of quantisations asks which file to fetch.
    static StandInRepo ggufQuantsRepo();
    static QByteArray gitBlobSha1(const QByteArray& bytes);
    static QByteArray sha256(const QByteArray& bytes);

    // Server side, called on its thread only.
    struct Connection;
    void onReadable(QTcpSocket* socket, bool cdn);
    void pump(QTcpSocket* socket);

private:
    void answer(QTcpSocket* socket, const QByteArray& method, const QByteArray& target,
                const QMap<QByteArray, QByteArray>& headers, bool cdn);
    void answerCdn(QTcpSocket* socket, const QByteArray& method, const QByteArray& target,
                   const QByteArray& range);
    void send(QTcpSocket* socket, int status, const QList<QPair<QByteArray, QByteArray>>& headers,
              const QByteArray& body, bool headOnly);

    QThread m_thread;
    QObject* m_context = nullptr; // lives on m_thread
    QTcpServer* m_hub = nullptr;
    QTcpServer* m_cdn = nullptr;
    quint16 m_hubPort = 0, m_cdnPort = 0;
    mutable QMutex m_mutex;
    std::vector<StandInRepo> m_repos;
    QMap<QString, StandInFault> m_faults;
    std::vector<StandInRequest> m_requests;
    QByteArray m_token;
    std::atomic<bool> m_held{false};
    QMap<QTcpSocket*, std::shared_ptr<Connection>> m_connections;
};

// The base of the download tests (core, app and ui): a stand-in Hub serving tinyBertRepo(id) as m_repo and a
// temporary folder (for the cache, HOME, ...), both new for each test function (startHub() from its init()),
// and that repo's weights (model.safetensors, last).
class TinyBertHubTest : public QObject
{
protected:
    // Also checks (QVERIFY) that the weights are the repo's last file.
    void startHub(const QString& id);
    // m_repo as "org/mamba", its config.json naming an architecture no family runs (not yet added to m_hub).
    StandInRepo unsupportedArchitectureRepo() const;
    const StandInFile& weights() const { return m_repo.files.back(); }

    std::unique_ptr<HubStandIn> m_hub;
    std::unique_ptr<QTemporaryDir> m_dir;
    StandInRepo m_repo;
};

} // namespace attnscope::test
