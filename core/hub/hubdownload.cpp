#include "hub/hubdownload.h"

#include "hub/hubcache.h"
#include "hub/huberror.h"
#include "hub/hubnames.h"
#include "model/memoryestimate.h"
#include "model/modelconfig.h"
#include "model/modelerror.h"
#include "model/modelshape.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxyFactory>
#include <QNetworkReply>
#include <QStorageInfo>
#include <QTimer>
#include <QUrlQuery>

namespace attnscope::hub {

namespace {

constexpr qint64 kListingLimitBytes = 64 << 20; // gpt2's listing is ~10 kB; a huge repo's a few MB
constexpr qint64 kDiskMarginBytes = 64 << 20;

int firstInt(const QJsonObject& json, std::initializer_list<const char*> keys)
{
    for (const char* key : keys)
        if (json.value(QLatin1String(key)).isDouble()) return json.value(QLatin1String(key)).toInt();
    return 0;
}

} // namespace

HubDownload::HubDownload(const HubSettings& settings, QObject* parent) : QObject(parent), m_settings(settings)
{
    // http_proxy, https_proxy and no_proxy on Linux; the desktop's settings elsewhere.
    QNetworkProxyFactory::setUseSystemConfiguration(true);
}

HubDownload::~HubDownload()
{
    m_ended = true;
    delete m_transfer;
    if (m_listingReply) m_listingReply->abort();
}

void HubDownload::failSoon(const QString& message)
{
    QTimer::singleShot(0, this, [this, message] { fail(message); });
}

void HubDownload::start(const HubDownloadRequest& request)
{
    m_request = request;
    if (const QString problem = repoIdProblem(request.repoId); !problem.isEmpty())
        return failSoon(QStringLiteral("'%1' is not a repo id: %2").arg(request.repoId.left(200), problem));
    if (const QString problem = revisionProblem(request.revision); !problem.isEmpty())
        return failSoon(
            QStringLiteral("'%1' is not a revision: %2").arg(request.revision.left(200), problem));
    if (m_settings.offline) {
        QTimer::singleShot(0, this, &HubDownload::finishOffline);
        return;
    }
    if (!m_settings.endpoint.isValid() || m_settings.endpoint.host().isEmpty())
        return failSoon(QStringLiteral("HF_ENDPOINT '%1' is not a URL").arg(m_settings.endpoint.toString()));
    m_network = std::make_unique<QNetworkAccessManager>();
    requestListing();
}

void HubDownload::cancel()
{
    if (m_ended) return;
    if (m_transfer) m_transfer->cancel();
    if (m_listingReply) {
        QNetworkReply* reply = m_listingReply;
        m_listingReply = nullptr;
        reply->abort();
    }
    fail(QStringLiteral("cancelled"));
}

void HubDownload::finishOffline()
{
    const HubRepoCache cache(m_settings.cacheDir, m_request.repoId);
    QString why;
    const QString snapshot = cache.completeSnapshot(m_request.revision, m_request.includeGlobs, &why);
    if (snapshot.isEmpty()) {
        fail(QStringLiteral(
                 "%1 (revision %2) is not fully in the cache %3 and HF_HUB_OFFLINE forbids the network: %4")
                 .arg(m_request.repoId, m_request.revision, m_settings.cacheDir, why));
        return;
    }
    m_ended = true;
    emit finished(snapshot);
}

void HubDownload::requestListing()
{
    QUrl url = m_settings.endpoint;
    url.setPath(url.path() + QStringLiteral("/api/models/") + m_request.repoId +
                    QStringLiteral("/revision/") +
                    QString::fromLatin1(QUrl::toPercentEncoding(m_request.revision)),
                QUrl::TolerantMode);
    url.setQuery(QStringLiteral("blobs=true"));
    QNetworkRequest r(url);
    r.setHeader(QNetworkRequest::UserAgentHeader,
                QStringLiteral("attnscope/" ATTNSCOPE_VERSION "; hf_hub/compatible"));
    if (!m_settings.token.isEmpty()) r.setRawHeader("Authorization", "Bearer " + m_settings.token);
    r.setTransferTimeout(m_options.transferTimeoutMs);
    QNetworkReply* reply = m_network->get(r);
    reply->setReadBufferSize(0);
    m_listingReply = reply;
    connect(reply, &QNetworkReply::downloadProgress, this, [this, reply](qint64 received, qint64) {
        if (received > kListingLimitBytes && m_listingReply == reply) {
            m_listingReply = nullptr;
            reply->abort();
            fail(QStringLiteral("%1: the listing is larger than %2 MB")
                     .arg(m_request.repoId)
                     .arg(kListingLimitBytes >> 20));
        }
    });
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        reply->deleteLater();
        if (m_listingReply != reply) return;
        m_listingReply = nullptr;
        onListing(reply);
    });
}

void HubDownload::onListing(QNetworkReply* reply)
{
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status == 0) {
        fail(QStringLiteral("%1: %2").arg(m_settings.endpoint.toString(), reply->errorString()));
        return;
    }
    if (status != 200) {
        const HubErrorContext c{m_settings.endpoint, m_request.repoId, m_request.revision, QString(),
                                !m_settings.token.isEmpty()};
        fail(hubErrorMessage(status, reply->rawHeader("X-Error-Code"), c));
        return;
    }
    QString error;
    const std::optional<HubListing> listing = parseListing(reply->readAll(), &error);
    if (!listing) {
        fail(QStringLiteral("%1: %2").arg(m_request.repoId, error));
        return;
    }
    m_listing = *listing;
    HubSelection selection = selectFiles(m_listing, m_request.includeGlobs);
    if (!selection.problem.isEmpty()) {
        m_ggufChoices = selection.ggufChoices;
        fail(QStringLiteral("%1: %2").arg(m_request.repoId, selection.problem));
        return;
    }
    m_files = selection.files;
    for (const HubFile& f : m_files)
        m_total += std::max<qint64>(f.size, 0);
    m_clock.start();
    nextFile();
}

void HubDownload::nextFile()
{
    if (m_ended) return;
    if (m_next == 1 && m_files.front().path == QLatin1String("config.json") && !checkArchitecture()) return;
    // Once, before the first file after config.json.
    if (!m_resourcesChecked &&
        (m_next == m_files.size() || m_files[m_next].path != QLatin1String("config.json"))) {
        m_resourcesChecked = true;
        if (!checkResources()) return;
    }
    if (m_next == m_files.size()) {
        finishAll();
        return;
    }
    TransferContext context{m_network.get(),    m_settings,       m_request.repoId,
                            m_request.revision, m_listing.commit, m_options};
    const HubFile file = m_files[m_next++];
    m_transfer = new HubFileTransfer(context, file, this);
    connect(m_transfer, &HubFileTransfer::bytesOnDisk, this, &HubDownload::onFileBytes);
    connect(m_transfer, &HubFileTransfer::notice, this, &HubDownload::notice);
    connect(m_transfer, &HubFileTransfer::failed, this, &HubDownload::fail);
    connect(m_transfer, &HubFileTransfer::done, this, [this] {
        m_doneBefore += std::max<qint64>(m_transfer->file().size, 0);
        m_transfer->deleteLater();
        m_transfer = nullptr;
        nextFile();
    });
    m_transfer->start();
}

bool HubDownload::checkArchitecture()
{
    const HubRepoCache cache(m_settings.cacheDir, m_request.repoId);
    QFile file(cache.pointerPath(m_listing.commit, QStringLiteral("config.json")));
    if (!file.open(QIODevice::ReadOnly)) {
        fail(QStringLiteral("%1: %2").arg(file.fileName(), file.errorString()));
        return false;
    }
    try {
        ModelConfig::fromJsonBytes(file.read(16 << 20), m_request.repoId + QStringLiteral("/config.json"));
    } catch (const ModelError& e) {
        fail(e.message() + QStringLiteral(" (nothing else was fetched)"));
        return false;
    }
    return true;
}

bool HubDownload::checkResources()
{
    const HubRepoCache cache(m_settings.cacheDir, m_request.repoId);
    qint64 needed = 0, weightFiles = 0;
    for (size_t i = m_next; i < m_files.size(); ++i) {
        const HubFile& f = m_files[i];
        if (f.path.endsWith(QLatin1String(".safetensors")) || f.path.endsWith(QLatin1String(".gguf")))
            weightFiles += std::max<qint64>(f.size, 0);
        if (f.isLfs() && QFileInfo::exists(cache.blobPath(f.lfsSha256))) continue;
        needed += std::max<qint64>(f.size, 0);
        if (f.isLfs()) needed -= QFileInfo(cache.incompletePath(f.lfsSha256)).size();
    }
    QDir().mkpath(m_settings.cacheDir);
    const QStorageInfo storage(m_settings.cacheDir);
    if (storage.isValid() && storage.bytesAvailable() < needed + kDiskMarginBytes) {
        fail(QStringLiteral("%1 needs %2 more on %3 but only %4 is free")
                 .arg(m_request.repoId, formatBytes(needed), m_settings.cacheDir,
                      formatBytes(storage.bytesAvailable())));
        return false;
    }
    if (!m_request.checkMemory) return true;
    QFile configFile(cache.pointerPath(m_listing.commit, QStringLiteral("config.json")));
    if (!configFile.open(QIODevice::ReadOnly)) return true; // a .gguf repo: its header says, once it is here
    const QByteArray bytes = configFile.read(16 << 20);
    const QJsonObject json = QJsonDocument::fromJson(bytes).object();
    ModelInfo info;
    try {
        const ModelConfig config =
            ModelConfig::fromJsonBytes(bytes, m_request.repoId + QStringLiteral("/config.json"));
        info.name = m_request.repoId;
        describeModelShape(config, info);
    } catch (const ModelError&) {
        return true; // checkArchitecture refused it already, or there is no config.json
    }
    info.intermediate = firstInt(json, {"intermediate_size", "n_inner", "ffn_dim", "hidden_dim"});
    // The weights' headers are not here yet: the files' size stands for the stored tensors, with no fp32
    // conversion buffer counted (the picker's estimate once the headers are read can only be higher for a
    // 16-bit checkpoint, by its largest tensor in fp32).
    info.fileBytes = weightFiles;
    const std::optional<qint64> available = availableMemoryBytes();
    if (!available) return true;
    const QString refusal = memoryRefusal(info, estimateMemory(info), *available);
    if (!refusal.isEmpty()) {
        fail(refusal + QStringLiteral("; nothing but config.json was fetched"));
        return false;
    }
    return true;
}

void HubDownload::onFileBytes(qint64 bytes)
{
    const qint64 done = m_doneBefore + bytes;
    if (m_startBytes < 0) {
        m_startBytes = done;
        m_clock.restart();
    }
    const double seconds = m_clock.elapsed() / 1000.0;
    const double rate = seconds > 0.2 ? (done - m_startBytes) / seconds : 0.0;
    const int eta = rate > 0 ? int((m_total - done) / rate) : -1;
    emit progress(done, m_total, rate, eta, m_transfer ? m_transfer->file().path : QString());
}

void HubDownload::finishAll()
{
    const HubRepoCache cache(m_settings.cacheDir, m_request.repoId);
    QString error;
    if (!cache.writeRef(m_request.revision, m_listing.commit, &error)) {
        fail(error);
        return;
    }
    m_ended = true;
    emit finished(QDir(cache.snapshotDir(m_listing.commit)).absolutePath());
}

void HubDownload::fail(const QString& message)
{
    if (m_ended) return;
    m_ended = true;
    if (m_transfer) {
        m_transfer->cancel();
        m_transfer->deleteLater();
        m_transfer = nullptr;
    }
    emit failed(message);
}

} // namespace attnscope::hub
