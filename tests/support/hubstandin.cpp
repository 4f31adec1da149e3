#include "support/hubstandin.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QUrl>
#include <algorithm>

namespace attnscope::test {

// A body in flight: bytes [offset, end) of `source` (end -1: endless), paused at holdAt, cut at cutAt.
struct HubStandIn::Connection
{
    QByteArray input;
    bool streaming = false;
    QByteArray source;
    qint64 offset = 0;
    qint64 end = 0;
    qint64 holdAt = -1;
    qint64 cutAt = -1;
    QString faultPath;
};

namespace {

QByteArray reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 206:
        return "Partial Content";
    case 302:
        return "Found";
    case 401:
        return "Unauthorized";
    case 404:
        return "Not Found";
    case 416:
        return "Range Not Satisfiable";
    default:
        return "Status";
    }
}

} // namespace

HubStandIn::HubStandIn()
{
    m_thread.start();
    m_context = new QObject;
    m_context->moveToThread(&m_thread);
    QMetaObject::invokeMethod(
        m_context,
        [this] {
            for (bool cdn : {false, true}) {
                auto* server = new QTcpServer(m_context);
                server->listen(QHostAddress::LocalHost, 0);
                (cdn ? m_cdn : m_hub) = server;
                (cdn ? m_cdnPort : m_hubPort) = server->serverPort();
                QObject::connect(server, &QTcpServer::newConnection, m_context, [this, server, cdn] {
                    while (QTcpSocket* socket = server->nextPendingConnection()) {
                        m_connections.insert(socket, std::make_shared<Connection>());
                        QObject::connect(socket, &QTcpSocket::readyRead, m_context,
                                         [this, socket, cdn] { onReadable(socket, cdn); });
                        QObject::connect(socket, &QTcpSocket::bytesWritten, m_context,
                                         [this, socket] { pump(socket); });
                        QObject::connect(socket, &QTcpSocket::disconnected, m_context, [this, socket] {
                            m_connections.remove(socket);
                            socket->deleteLater();
                        });
                    }
                });
            }
        },
        Qt::BlockingQueuedConnection);
}

HubStandIn::~HubStandIn()
{
    QMetaObject::invokeMethod(
        m_context,
        [this] {
            m_connections.clear();
            delete m_context;
        },
        Qt::BlockingQueuedConnection);
    m_thread.quit();
    m_thread.wait();
}

QString HubStandIn::endpoint() const
{
    return QStringLiteral("http://127.0.0.1:%1").arg(m_hubPort);
}

void HubStandIn::addRepo(const StandInRepo& repo)
{
    QMutexLocker lock(&m_mutex);
    m_repos.push_back(repo);
}

void HubStandIn::setFault(const QString& path, const StandInFault& fault)
{
    QMutexLocker lock(&m_mutex);
    m_faults[path] = fault;
}

void HubStandIn::setAcceptedToken(const QByteArray& token)
{
    QMutexLocker lock(&m_mutex);
    m_token = token;
}

std::vector<StandInRequest> HubStandIn::requests() const
{
    QMutexLocker lock(&m_mutex);
    return m_requests;
}

std::vector<StandInRequest> HubStandIn::requestsFor(const QByteArray& needle) const
{
    std::vector<StandInRequest> found;
    for (const StandInRequest& r : requests())
        if (r.target.contains(needle)) found.push_back(r);
    return found;
}

void HubStandIn::release()
{
    QMetaObject::invokeMethod(m_context, [this] {
        {
            QMutexLocker lock(&m_mutex);
            for (StandInFault& fault : m_faults)
                fault.holdAt = -1;
        }
        m_held = false;
        for (auto it = m_connections.begin(); it != m_connections.end(); ++it) {
            it.value()->holdAt = -1;
            pump(it.key());
        }
    });
}

QByteArray HubStandIn::gitBlobSha1(const QByteArray& bytes)
{
    return QCryptographicHash::hash("blob " + QByteArray::number(bytes.size()) + '\0' + bytes,
                                    QCryptographicHash::Sha1)
        .toHex();
}

QByteArray HubStandIn::sha256(const QByteArray& bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

StandInRepo HubStandIn::repoFromFolder(const QString& id, const QString& folder)
{
    StandInRepo repo;
    repo.id = id;
    repo.commit =
        QString::fromLatin1(QCryptographicHash::hash(id.toUtf8(), QCryptographicHash::Sha1).toHex());
    for (const QString& name : QDir(folder).entryList(QDir::Files, QDir::Name)) {
        if (!(name.endsWith(QLatin1String(".safetensors")) || name == QLatin1String("config.json") ||
              name.startsWith(QLatin1String("tokenizer")) || name.startsWith(QLatin1String("vocab")) ||
              name == QLatin1String("merges.txt")))
            continue;
        QFile file(QDir(folder).filePath(name));
        if (!file.open(QIODevice::ReadOnly)) continue;
        repo.files.push_back({name, file.readAll(), name.endsWith(QLatin1String(".safetensors"))});
    }
    return repo;
}

StandInRepo HubStandIn::tinyBertRepo(const QString& id)
{
    StandInRepo repo = repoFromFolder(id, QStringLiteral(ATTNSCOPE_SOURCE_DIR "/tests/data/oracle/bert_s0"));
    std::stable_partition(repo.files.begin(), repo.files.end(), [](const auto& f) { return !f.lfs; });
    return repo;
}

StandInRepo HubStandIn::ggufQuantsRepo()
{
    StandInRepo repo;
    repo.id = QStringLiteral("org/quants");
    repo.commit = QString(40, QLatin1Char('b'));
    repo.files = {{QStringLiteral("m-Q4_K_M.gguf"), QByteArray(3000, 'q'), true},
                  {QStringLiteral("m-Q8_0.gguf"), QByteArray(5000, 'r'), true},
                  {QStringLiteral("README.md"), "hi", false}};
    return repo;
}

void TinyBertHubTest::startHub(const QString& id)
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_hub = std::make_unique<HubStandIn>();
    m_repo = HubStandIn::tinyBertRepo(id);
    m_hub->addRepo(m_repo);
    QVERIFY(weights().path == QLatin1String("model.safetensors") && weights().bytes.size() > 100000);
}

StandInRepo TinyBertHubTest::unsupportedArchitectureRepo() const
{
    StandInRepo other = m_repo;
    other.id = QStringLiteral("org/mamba");
    const auto config = std::find_if(other.files.begin(), other.files.end(), [](const StandInFile& f) {
        return f.path == QLatin1String("config.json");
    });
    if (config == other.files.end()) qFatal("the tiny BERT repo has no config.json");
    config->bytes.replace("\"bert\"", "\"mamba\"").replace("BertForMaskedLM", "MambaForCausalLM");
    return other;
}

void HubStandIn::send(QTcpSocket* socket, int status, const QList<QPair<QByteArray, QByteArray>>& headers,
                      const QByteArray& body, bool headOnly)
{
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reason(status) + "\r\n";
    bool hasLength = false;
    for (const auto& [name, value] : headers) {
        head += name + ": " + value + "\r\n";
        hasLength = hasLength || name == "Content-Length";
    }
    if (!hasLength) head += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    socket->write(head + "\r\n");
    if (!headOnly) socket->write(body);
}

void HubStandIn::onReadable(QTcpSocket* socket, bool cdn)
{
    const std::shared_ptr<Connection> c = m_connections.value(socket);
    if (!c) return;
    c->input += socket->readAll();
    while (!c->streaming) {
        const int endOfHead = c->input.indexOf("\r\n\r\n");
        if (endOfHead < 0) return;
        const QList<QByteArray> lines = c->input.left(endOfHead).split('\n');
        c->input.remove(0, endOfHead + 4);
        const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
        QMap<QByteArray, QByteArray> headers;
        for (int i = 1; i < lines.size(); ++i) {
            const int colon = lines[i].indexOf(':');
            if (colon > 0)
                headers.insert(lines[i].left(colon).trimmed().toLower(), lines[i].mid(colon + 1).trimmed());
        }
        const QByteArray method = requestLine.value(0), target = requestLine.value(1);
        {
            QMutexLocker lock(&m_mutex);
            m_requests.push_back(
                {method, target, headers.value("range"), headers.value("authorization"), cdn});
        }
        if (cdn)
            answerCdn(socket, method, target, headers.value("range"));
        else
            answer(socket, method, target, headers, cdn);
        if (socket->state() != QAbstractSocket::ConnectedState) return;
    }
}

void HubStandIn::answer(QTcpSocket* socket, const QByteArray& method, const QByteArray& target,
                        const QMap<QByteArray, QByteArray>& headers, bool)
{
    const bool headOnly = method == "HEAD";
    const QString path =
        QUrl::fromPercentEncoding(target.left(target.indexOf('?') < 0 ? target.size() : target.indexOf('?')));
    QMutexLocker lock(&m_mutex);
    const StandInRepo* repo = nullptr;
    QString rest;
    bool api = false;
    for (const StandInRepo& r : m_repos) {
        const QString apiPrefix = QStringLiteral("/api/models/") + r.id + QStringLiteral("/revision/");
        const QString filePrefix = QLatin1Char('/') + r.id + QStringLiteral("/resolve/");
        if (path.startsWith(apiPrefix)) {
            repo = &r, rest = path.mid(apiPrefix.size()), api = true;
            break;
        }
        if (path.startsWith(filePrefix)) {
            repo = &r, rest = path.mid(filePrefix.size());
            break;
        }
    }
    auto error = [&](int status, const QByteArray& code, const QByteArray& message) {
        send(socket, status,
             {{"X-Error-Code", code}, {"X-Error-Message", message}, {"Content-Type", "application/json"}},
             "{\"error\":\"" + message + "\"}", headOnly);
    };
    if (!repo) return error(401, "RepoNotFound", "Repository not found");
    if (repo->gated && (m_token.isEmpty() || headers.value("authorization") != "Bearer " + m_token))
        return error(401, "GatedRepo", "Access to this model is restricted");
    const QString revision = api ? rest : rest.section(QLatin1Char('/'), 0, 0);
    if (revision != QLatin1String("main") && revision != repo->commit)
        return error(404, "RevisionNotFound", "Invalid rev id");
    const QByteArray commit = repo->commit.toLatin1();
    if (api) {
        QByteArray body = repo->listingOverride;
        if (body.isEmpty()) {
            QJsonArray siblings;
            for (const StandInFile& f : repo->files) {
                QJsonObject s{{QStringLiteral("rfilename"), f.path},
                              {QStringLiteral("size"), double(f.bytes.size())},
                              {QStringLiteral("blobId"), QString::fromLatin1(gitBlobSha1(f.bytes))}};
                if (f.lfs)
                    s.insert(QStringLiteral("lfs"),
                             QJsonObject{{QStringLiteral("sha256"), QString::fromLatin1(sha256(f.bytes))},
                                         {QStringLiteral("size"), double(f.bytes.size())},
                                         {QStringLiteral("pointerSize"), 134}});
                siblings.append(s);
            }
            body =
                QJsonDocument(
                    QJsonObject{{QStringLiteral("id"), repo->id},
                                {QStringLiteral("modelId"), repo->id},
                                // Always sent by the Hub; huggingface_hub's ModelInfo requires them.
                                {QStringLiteral("private"), false},
                                {QStringLiteral("gated"), repo->gated},
                                {QStringLiteral("disabled"), false},
                                {QStringLiteral("downloads"), 0},
                                {QStringLiteral("likes"), 0},
                                {QStringLiteral("tags"), QJsonArray()},
                                {QStringLiteral("lastModified"), QStringLiteral("2024-01-01T00:00:00.000Z")},
                                {QStringLiteral("sha"), repo->commit},
                                {QStringLiteral("siblings"), siblings}})
                    .toJson(QJsonDocument::Compact);
        }
        return send(socket, 200, {{"Content-Type", "application/json; charset=utf-8"}}, body, headOnly);
    }
    const QString filePath = rest.section(QLatin1Char('/'), 1);
    const StandInFile* file = nullptr;
    for (const StandInFile& f : repo->files)
        if (f.path == filePath) file = &f;
    if (!file) return error(404, "EntryNotFound", "Entry not found");
    if (file->lfs) {
        const QByteArray sha = sha256(file->bytes);
        const QByteArray location = "http://127.0.0.1:" + QByteArray::number(m_cdnPort) + "/blobs/" + sha +
                                    "?file=" + QUrl::toPercentEncoding(file->path);
        const QByteArray body = "Found. Redirecting to " + location;
        return send(socket, 302,
                    {{"Location", location},
                     {"X-Repo-Commit", commit},
                     {"X-Linked-Etag", '"' + sha + '"'},
                     {"X-Linked-Size", QByteArray::number(file->bytes.size())},
                     {"ETag", "W/\"1f-abc\""},
                     {"Content-Type", "text/plain; charset=utf-8"}},
                    body, headOnly);
    }
    send(socket, 200,
         {{"X-Repo-Commit", commit},
          {"ETag", '"' + gitBlobSha1(file->bytes) + '"'},
          {"Accept-Ranges", "bytes"}},
         file->bytes, headOnly);
}

void HubStandIn::answerCdn(QTcpSocket* socket, const QByteArray& method, const QByteArray& target,
                           const QByteArray& range)
{
    const QByteArray sha = target.mid(int(qstrlen("/blobs/")), 64);
    QMutexLocker lock(&m_mutex);
    const StandInFile* file = nullptr;
    for (const StandInRepo& r : m_repos)
        for (const StandInFile& f : r.files)
            if (f.lfs && sha256(f.bytes) == sha) file = &f;
    if (!file) return send(socket, 404, {}, "NoSuchKey", method == "HEAD");
    StandInFault& fault = m_faults[file->path];
    const auto c = m_connections.value(socket);
    c->source = file->bytes;
    if (fault.flipByteAt >= 0 && fault.flipByteAt < c->source.size())
        c->source[fault.flipByteAt] = char(~c->source[fault.flipByteAt]);
    c->source += QByteArray(fault.extraBytes, 'x');
    const qint64 size = c->source.size();
    qint64 start = 0;
    if (range.startsWith("bytes=")) start = range.mid(6, range.indexOf('-') - 6).toLongLong();
    if (start >= size && start > 0)
        return send(socket, 416, {{"Content-Range", "bytes */" + QByteArray::number(size)}}, {}, false);
    QList<QPair<QByteArray, QByteArray>> headers{
        {"ETag", '"' + sha + '"'}, {"Accept-Ranges", "bytes"}, {"Content-Type", "application/octet-stream"}};
    if (fault.endless) { // no length: the body ends when the connection does, which the server never does
        headers.append(qMakePair(QByteArray("Connection"), QByteArray("close")));
    } else {
        headers.append(qMakePair(QByteArray("Content-Length"), QByteArray::number(size - start)));
    }
    if (start > 0)
        headers.append(qMakePair(QByteArray("Content-Range"), "bytes " + QByteArray::number(start) + '-' +
                                                                  QByteArray::number(size - 1) + '/' +
                                                                  QByteArray::number(size)));
    QByteArray head = "HTTP/1.1 " + QByteArray(start > 0 ? "206 Partial Content" : "200 OK") + "\r\n";
    for (const auto& [name, value] : headers)
        head += name + ": " + value + "\r\n";
    socket->write(head + "\r\n");
    if (method == "HEAD") return;
    c->streaming = true;
    c->offset = start;
    c->end = fault.endless ? -1 : size;
    c->holdAt = fault.holdAt;
    c->cutAt = fault.cutAfter >= 0 ? fault.cutAfter : -1;
    fault.cutAfter = -1; // only the first answer is cut
    c->faultPath = file->path;
    lock.unlock();
    pump(socket);
}

void HubStandIn::pump(QTcpSocket* socket)
{
    const std::shared_ptr<Connection> c = m_connections.value(socket);
    if (!c || !c->streaming || socket->state() != QAbstractSocket::ConnectedState) return;
    while (socket->bytesToWrite() < (256 << 10)) {
        if (c->holdAt >= 0 && c->offset >= c->holdAt) {
            socket->flush();
            m_held = true;
            return;
        }
        if (c->cutAt >= 0 && c->offset >= c->cutAt) {
            c->streaming = false;
            socket->disconnectFromHost();
            return;
        }
        if (c->end >= 0 && c->offset >= c->end) {
            c->streaming = false;
            onReadable(socket, true); // a further request on this connection
            return;
        }
        qint64 stop = c->offset + (16 << 10);
        if (c->end >= 0) stop = std::min(stop, c->end);
        if (c->holdAt >= 0) stop = std::min(stop, c->holdAt);
        if (c->cutAt >= 0) stop = std::min(stop, c->cutAt);
        QByteArray chunk =
            c->offset < c->source.size() ? c->source.mid(c->offset, stop - c->offset) : QByteArray();
        if (chunk.size() < stop - c->offset)
            chunk += QByteArray(stop - c->offset - chunk.size(), 'x'); // endless tail
        socket->write(chunk);
        c->offset = stop;
    }
}

} // namespace attnscope::test
