#include "hub/hubfiletransfer.h"

#include "hub/huberror.h"
#include "hub/hubnames.h"

#include <QDir>
#include <QFileInfo>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRegularExpression>
#include <QTimer>

namespace attnscope::hub {

namespace {

constexpr qint64 kPrefixSliceBytes = 16 << 20; // hashed per event-loop turn when resuming
constexpr qint64 kReadBufferBytes = 4 << 20;

bool isGitSha1(const QString& blob)
{
    static const QRegularExpression sha1(QStringLiteral("^[0-9a-f]{40}$"));
    return sha1.match(blob).hasMatch();
}

std::optional<qint64> headerSize(const QNetworkReply* reply)
{
    QByteArray value = reply->rawHeader("X-Linked-Size");
    if (value.isEmpty()) value = reply->rawHeader("Content-Length");
    bool ok = false;
    const qint64 size = value.trimmed().toLongLong(&ok);
    if (!ok || size < 0) return std::nullopt;
    return size;
}

// "/org/name/resolve/<commit>/dir/file name.json" with each segment percent-encoded.
QString encodedPath(const QString& path)
{
    QStringList segments;
    for (const QString& segment : path.split(QLatin1Char('/')))
        segments << QString::fromLatin1(QUrl::toPercentEncoding(segment));
    return segments.join(QLatin1Char('/'));
}

} // namespace

HubFileTransfer::HubFileTransfer(const TransferContext& context, const HubFile& file, QObject* parent)
    : QObject(parent), m_context(context), m_file(file), m_cache(context.settings.cacheDir, context.repoId)
{}

HubFileTransfer::~HubFileTransfer()
{
    cancel();
}

QNetworkRequest HubFileTransfer::request(const QUrl& url, bool withToken) const
{
    QNetworkRequest r(url);
    r.setHeader(QNetworkRequest::UserAgentHeader,
                QStringLiteral("attnscope/" ATTNSCOPE_VERSION "; hf_hub/compatible"));
    // The real size, not a compressed one; a header set by hand also turns off Qt's own decompression.
    r.setRawHeader("Accept-Encoding", "identity");
    if (withToken && !m_context.settings.token.isEmpty())
        r.setRawHeader("Authorization", "Bearer " + m_context.settings.token);
    r.setTransferTimeout(m_context.options.transferTimeoutMs);
    return r;
}

void HubFileTransfer::start()
{
    if (QFileInfo::exists(m_cache.pointerPath(m_context.commit, m_file.path))) {
        emit bytesOnDisk(std::max<qint64>(m_file.size, 0));
        emit done();
        return;
    }
    QUrl url = m_context.settings.endpoint;
    url.setPath(url.path() + QLatin1Char('/') + m_context.repoId + QStringLiteral("/resolve/") +
                    m_context.commit + QLatin1Char('/') + encodedPath(m_file.path),
                QUrl::TolerantMode);
    head(url, 5);
}

void HubFileTransfer::head(const QUrl& url, int relativeRedirectsLeft)
{
    QNetworkRequest r = request(url, true);
    r.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    QNetworkReply* reply = m_context.network->head(r);
    m_reply = reply;
    connect(reply, &QNetworkReply::finished, this,
            [this, reply, relativeRedirectsLeft] { onHeadFinished(reply, relativeRedirectsLeft); });
}

void HubFileTransfer::onHeadFinished(QNetworkReply* reply, int relativeRedirectsLeft)
{
    reply->deleteLater();
    if (m_stopped) return;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status == 0) {
        ++m_attempts;
        retryOrFail(QStringLiteral("%1: %2").arg(m_file.path, reply->errorString()));
        return;
    }
    if (status >= 300 && status < 400) {
        const QByteArray location = reply->rawHeader("Location");
        const QUrl target = reply->url().resolved(QUrl::fromEncoded(location));
        if (location.isEmpty() || !target.isValid()) {
            fail(QStringLiteral("%1: redirect without a usable Location").arg(m_file.path));
            return;
        }
        // A relative Location is the Hub's own (a renamed repo): followed as the official client does. An
        // absolute one is the CDN: the GET goes there, and these headers describe the blob.
        if (QUrl::fromEncoded(location).isRelative()) {
            if (relativeRedirectsLeft == 0) {
                fail(QStringLiteral("%1: too many redirects").arg(m_file.path));
                return;
            }
            head(target, relativeRedirectsLeft - 1);
            return;
        }
        m_location = target;
    } else if (status == 200) {
        m_location = reply->url();
    } else {
        HubErrorContext c{m_context.settings.endpoint, m_context.repoId, m_context.revision, m_file.path,
                          !m_context.settings.token.isEmpty()};
        if (status >= 500) {
            ++m_attempts;
            retryOrFail(hubErrorMessage(status, reply->rawHeader("X-Error-Code"), c));
            return;
        }
        fail(hubErrorMessage(status, reply->rawHeader("X-Error-Code"), c));
        return;
    }
    QByteArray etag = reply->rawHeader("X-Linked-Etag");
    if (etag.isEmpty()) etag = reply->rawHeader("ETag");
    m_blob = blobNameFromEtag(etag);
    if (m_blob.isEmpty()) {
        fail(QStringLiteral("%1: the Hub's answer has no usable ETag").arg(m_file.path));
        return;
    }
    const QString commit = QString::fromLatin1(reply->rawHeader("X-Repo-Commit"));
    if (!commit.isEmpty() && commit != m_context.commit) {
        fail(QStringLiteral("%1: the Hub answered for commit %2, the listing is of %3")
                 .arg(m_file.path, commit.left(40), m_context.commit));
        return;
    }
    const std::optional<qint64> announced = headerSize(reply);
    if (m_file.size >= 0 && announced && *announced != m_file.size) {
        fail(QStringLiteral("%1: the Hub announces %2 bytes, the listing %3")
                 .arg(m_file.path)
                 .arg(*announced)
                 .arg(m_file.size));
        return;
    }
    m_expectedSize = m_file.size >= 0 ? m_file.size : announced.value_or(-1);
    if (m_expectedSize < 0) {
        fail(QStringLiteral("%1: neither the listing nor the Hub says its size").arg(m_file.path));
        return;
    }
    if (m_file.isLfs() && m_blob != m_file.lfsSha256) {
        fail(QStringLiteral("%1: the Hub's ETag %2 is not the listing's sha256 %3")
                 .arg(m_file.path, m_blob, m_file.lfsSha256));
        return;
    }
    m_attempts = 0;
    acquire();
}

void HubFileTransfer::acquire()
{
    if (m_stopped) return;
    if (QFileInfo::exists(m_cache.blobPath(m_blob))) { // fetched before, by another revision or client
        linkAndFinish();
        return;
    }
    if (!m_lock) m_lock = std::make_unique<BlobLock>(m_cache.lockPath(m_blob));
    QString error;
    switch (m_lock->tryLock(&error)) {
    case BlobLock::Result::Failed:
        fail(error);
        return;
    case BlobLock::Result::Busy:
        if (!m_waitNoticed)
            emit notice(QStringLiteral("%1: waiting for another process that is fetching it (%2)")
                            .arg(m_file.path, m_cache.lockPath(m_blob)));
        m_waitNoticed = true;
        QTimer::singleShot(200, this, &HubFileTransfer::acquire);
        return;
    case BlobLock::Result::Locked:
        break;
    }
    // The lock's holder may have just finished it.
    if (QFileInfo::exists(m_cache.blobPath(m_blob))) {
        linkAndFinish();
        return;
    }
    prepareResume();
}

void HubFileTransfer::prepareResume()
{
    QDir().mkpath(m_cache.repoDir() + QStringLiteral("/blobs"));
    m_incomplete.setFileName(m_cache.incompletePath(m_blob));
    if (!m_incomplete.open(QIODevice::ReadWrite | QIODevice::Append | QIODevice::Unbuffered)) {
        fail(QStringLiteral("%1: %2").arg(m_incomplete.fileName(), m_incomplete.errorString()));
        return;
    }
    m_onDisk = m_incomplete.size();
    if (m_onDisk > m_expectedSize) { // not this blob's prefix
        m_incomplete.resize(0);
        m_onDisk = 0;
    }
    resetHash();
    if (m_onDisk == 0) {
        get();
        return;
    }
    m_prefixReader = std::make_unique<QFile>(m_incomplete.fileName());
    if (!m_prefixReader->open(QIODevice::ReadOnly)) {
        fail(QStringLiteral("%1: %2").arg(m_prefixReader->fileName(), m_prefixReader->errorString()));
        return;
    }
    emit notice(
        QStringLiteral("%1: resuming at byte %2 of %3").arg(m_file.path).arg(m_onDisk).arg(m_expectedSize));
    hashPrefixSlice();
}

void HubFileTransfer::hashPrefixSlice()
{
    if (m_stopped) return;
    const qint64 left = m_onDisk - m_prefixReader->pos();
    const QByteArray slice = m_prefixReader->read(std::min(left, kPrefixSliceBytes));
    if (slice.isEmpty() && left > 0) {
        fail(QStringLiteral("%1: %2").arg(m_prefixReader->fileName(), m_prefixReader->errorString()));
        return;
    }
    if (m_hash) m_hash->addData(slice);
    emit bytesOnDisk(m_prefixReader->pos());
    if (m_prefixReader->pos() < m_onDisk) {
        QTimer::singleShot(0, this, &HubFileTransfer::hashPrefixSlice);
        return;
    }
    m_prefixReader.reset();
    get();
}

void HubFileTransfer::resetHash()
{
    m_hash.reset();
    if (m_file.isLfs()) {
        m_hash = std::make_unique<QCryptographicHash>(QCryptographicHash::Sha256);
    } else if (isGitSha1(m_blob)) { // git's object id: sha1 of "blob <size>\0" and the bytes
        m_hash = std::make_unique<QCryptographicHash>(QCryptographicHash::Sha1);
        m_hash->addData("blob " + QByteArray::number(m_expectedSize) + '\0');
    }
}

void HubFileTransfer::get()
{
    if (m_stopped) return;
    ++m_attempts;
    m_statusChecked = false;
    // The token goes to the Hub only, never to the CDN a redirect names (as the official client drops it).
    const QUrl& endpoint = m_context.settings.endpoint;
    const bool sameHost = m_location.host() == endpoint.host() && m_location.port(-1) == endpoint.port(-1) &&
                          m_location.scheme() == endpoint.scheme();
    QNetworkRequest r = request(m_location, sameHost);
    if (m_onDisk > 0) r.setRawHeader("Range", "bytes=" + QByteArray::number(m_onDisk) + '-');
    QNetworkReply* reply = m_context.network->get(r);
    reply->setReadBufferSize(kReadBufferBytes);
    m_reply = reply;
    connect(reply, &QNetworkReply::readyRead, this, &HubFileTransfer::onData);
    connect(reply, &QNetworkReply::finished, this, &HubFileTransfer::onGetFinished);
}

void HubFileTransfer::onData()
{
    QNetworkReply* reply = m_reply;
    if (!reply || m_stopped || m_tooLarge) return;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (!m_statusChecked) {
        if (status == 206) {
            const QByteArray range = reply->rawHeader("Content-Range");
            if (!range.startsWith("bytes " + QByteArray::number(m_onDisk) + '-')) {
                m_tooLarge = true; // refused below, like an answer past the announced size
                reply->abort();
                return;
            }
        } else if (status == 200) {
            if (m_onDisk > 0) { // the server ignored Range: the whole file again
                m_incomplete.resize(0);
                m_onDisk = 0;
                resetHash();
            }
        } else {
            return; // an error answer: its body is not the file (onGetFinished says what it was)
        }
        m_statusChecked = true;
    }
    const QByteArray chunk = reply->readAll();
    if (m_onDisk + chunk.size() > m_expectedSize) {
        m_tooLarge = true;
        reply->abort();
        return;
    }
    if (m_incomplete.write(chunk) != chunk.size()) {
        fail(QStringLiteral("%1: %2").arg(m_incomplete.fileName(), m_incomplete.errorString()));
        return;
    }
    if (m_hash) m_hash->addData(chunk);
    m_onDisk += chunk.size();
    emit bytesOnDisk(m_onDisk);
}

void HubFileTransfer::onGetFinished()
{
    QNetworkReply* reply = m_reply;
    if (!reply || m_stopped) return;
    if (reply->bytesAvailable() > 0) onData();
    reply->deleteLater();
    m_reply = nullptr;
    if (m_stopped) return;
    if (m_tooLarge) {
        m_incomplete.close();
        QFile::remove(m_incomplete.fileName());
        fail(QStringLiteral("%1: the server sent more than the announced %2 bytes, or a range not asked for; "
                            "the partial file was deleted")
                 .arg(m_file.path)
                 .arg(m_expectedSize));
        return;
    }
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status >= 400) {
        HubErrorContext c{m_context.settings.endpoint, m_context.repoId, m_context.revision, m_file.path,
                          !m_context.settings.token.isEmpty()};
        const QString message = hubErrorMessage(status, reply->rawHeader("X-Error-Code"), c);
        if (status == 416) { // the prefix on disk is not what the server has: start over
            m_incomplete.resize(0);
            m_onDisk = 0;
            resetHash();
            retryOrFail(message);
        } else if (status >= 500 || status == 429) {
            retryOrFail(message);
        } else {
            fail(message);
        }
        return;
    }
    if (m_onDisk < m_expectedSize) {
        const QString why = reply->error() != QNetworkReply::NoError
                                ? reply->errorString()
                                : QStringLiteral("the answer ended early");
        retryOrFail(QStringLiteral("%1: connection lost at byte %2 of %3 (%4)")
                        .arg(m_file.path)
                        .arg(m_onDisk)
                        .arg(m_expectedSize)
                        .arg(why));
        return;
    }
    verifyAndLink();
}

void HubFileTransfer::retryOrFail(const QString& reason)
{
    if (m_attempts >= m_context.options.maxAttempts) {
        fail(QStringLiteral("%1; gave up after %2 attempts (run again to resume)")
                 .arg(reason)
                 .arg(m_attempts));
        return;
    }
    const int delay = m_context.options.retryDelayMs << std::min(m_attempts - 1, 6);
    emit notice(QStringLiteral("%1; retrying in %2 s").arg(reason).arg(delay / 1000.0, 0, 'f', 1));
    // A failed HEAD has no location yet: start over from it.
    QTimer::singleShot(std::max(delay, 0), this, [this] { m_location.isEmpty() ? start() : get(); });
}

void HubFileTransfer::verifyAndLink()
{
    m_incomplete.flush();
    m_incomplete.close();
    if (m_hash) {
        const QString got = QString::fromLatin1(m_hash->result().toHex());
        const QString want = m_file.isLfs() ? m_file.lfsSha256 : m_blob;
        if (got != want) {
            QFile::remove(m_incomplete.fileName());
            fail(QStringLiteral(
                     "%1: %2 of the received bytes is %3 but the Hub lists %4; the file was deleted (run "
                     "again to fetch it anew)")
                     .arg(m_file.path, m_file.isLfs() ? QStringLiteral("sha256") : QStringLiteral("git sha1"),
                          got, want));
            return;
        }
    }
    const QString blob = m_cache.blobPath(m_blob);
    QFile::remove(blob);
    if (!QFile::rename(m_incomplete.fileName(), blob)) {
        fail(QStringLiteral("%1: cannot rename it to %2").arg(m_incomplete.fileName(), blob));
        return;
    }
    linkAndFinish();
}

void HubFileTransfer::linkAndFinish()
{
    QString error;
    if (!m_cache.linkIntoSnapshot(m_blob, m_context.commit, m_file.path, &error)) {
        fail(error);
        return;
    }
    if (m_lock) m_lock->unlock();
    emit bytesOnDisk(m_expectedSize);
    emit done();
}

void HubFileTransfer::fail(const QString& message)
{
    if (m_stopped) return;
    m_stopped = true;
    if (m_reply) m_reply->abort();
    m_incomplete.close();
    if (m_lock) m_lock->unlock();
    emit failed(message);
}

void HubFileTransfer::cancel()
{
    if (m_stopped) return;
    m_stopped = true;
    if (m_reply) {
        QNetworkReply* reply = m_reply;
        m_reply = nullptr;
        reply->abort();
        reply->deleteLater();
    }
    m_incomplete.close();
    if (m_lock) m_lock->unlock();
}

} // namespace attnscope::hub
