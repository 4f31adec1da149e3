#include "hub/hubdownloadflow.h"

#include "hub/hubnames.h"
#include "model/memoryestimate.h"

#include <QDir>
#include <QLocale>

namespace attnscope {

HubDownloadFlow::HubDownloadFlow(const hub::HubSettings& settings, QObject* parent)
    : QObject(parent), m_settings(settings)
{}

HubDownloadFlow::~HubDownloadFlow()
{
    if (m_download) {
        m_download->disconnect(this);
        m_download->cancel();
    }
}

QString HubDownloadFlow::requestProblem(const QString& repoId, const QString& revision)
{
    if (repoId.trimmed().isEmpty()) return tr("Type a repository id, such as gpt2 or org/name.");
    if (const QString problem = hub::repoIdProblem(repoId.trimmed()); !problem.isEmpty())
        return tr("Repository id: %1").arg(problem);
    if (!revision.trimmed().isEmpty())
        if (const QString problem = hub::revisionProblem(revision.trimmed()); !problem.isEmpty())
            return tr("Revision: %1").arg(problem);
    return QString();
}

bool HubDownloadFlow::start(const QString& repoId, const QString& revision, const QString& ggufFile)
{
    if (m_state == State::Listing || m_state == State::Downloading) return false;
    m_repoId = repoId.trimmed();
    m_revision = revision.trimmed().isEmpty() ? QStringLiteral("main") : revision.trimmed();
    m_ggufFile = ggufFile;
    m_choices.clear();
    m_modelPath.clear();
    if (const QString problem = requestProblem(m_repoId, m_revision); !problem.isEmpty()) {
        m_message = problem;
        setState(State::Failed);
        return false;
    }
    run(ggufFile.isEmpty() ? QStringList() : QStringList{ggufFile});
    return true;
}

bool HubDownloadFlow::chooseFile(const QString& path)
{
    if (m_state != State::ChoosingFile) return false;
    const auto it =
        std::find_if(m_choices.begin(), m_choices.end(), [&](const auto& f) { return f.path == path; });
    if (it == m_choices.end()) return false;
    m_ggufFile = path;
    run({path});
    return true;
}

void HubDownloadFlow::cancel()
{
    if (m_download) m_download->cancel(); // answers failed("cancelled") at once
}

void HubDownloadFlow::run(const QStringList& includeGlobs)
{
    if (m_download) {
        m_download->disconnect(this);
        m_download->deleteLater();
    }
    m_download = new hub::HubDownload(m_settings, this);
    m_download->setTransferOptions(m_options);
    connect(m_download, &hub::HubDownload::progress, this, &HubDownloadFlow::onProgress);
    connect(m_download, &hub::HubDownload::finished, this, &HubDownloadFlow::onFinished);
    connect(m_download, &hub::HubDownload::failed, this, &HubDownloadFlow::onFailed);
    m_bytesDone = m_bytesTotal = 0;
    m_rate = 0;
    m_eta = -1;
    m_file.clear();
    m_message.clear();
    hub::HubDownloadRequest request;
    request.repoId = m_repoId;
    request.revision = m_revision;
    request.includeGlobs = includeGlobs;
    setState(State::Listing);
    m_download->start(request);
}

void HubDownloadFlow::setState(State state)
{
    m_state = state;
    emit changed();
}

void HubDownloadFlow::onProgress(qint64 done, qint64 total, double rate, int eta, const QString& file)
{
    m_bytesDone = done;
    m_bytesTotal = total;
    m_rate = rate;
    m_eta = eta;
    m_file = file;
    setState(State::Downloading);
}

void HubDownloadFlow::onFinished(const QString& snapshot)
{
    m_download->deleteLater();
    // A .gguf repo's model is the file; a safetensors repo's is the snapshot folder.
    m_modelPath = m_ggufFile.isEmpty() ? snapshot : QDir(snapshot).filePath(m_ggufFile);
    setState(State::Done);
    emit modelReady(m_modelPath);
}

void HubDownloadFlow::onFailed(const QString& message)
{
    auto* download = m_download.data();
    download->deleteLater();
    if (message == QLatin1String("cancelled")) {
        m_message = tr(
            "Cancelled. Nothing partial is in the cache's snapshots; a new try resumes the unfinished file.");
        setState(State::Idle);
        return;
    }
    if (!download->ggufChoices().empty() && m_ggufFile.isEmpty()) {
        m_choices = download->ggufChoices();
        setState(State::ChoosingFile);
        return;
    }
    m_message = message;
    setState(State::Failed);
}

QString HubDownloadFlow::statusText() const
{
    const QLocale locale;
    switch (m_state) {
    case State::Idle:
        return m_message.isEmpty() ? tr("Type a Hugging Face repository id and press Download.") : m_message;
    case State::Listing:
        return tr("Asking %1 for the files of %2 (%3)…")
            .arg(m_settings.endpoint.host(), m_repoId, m_revision);
    case State::ChoosingFile:
        return tr("%1 holds %n GGUF file(s): choose one.", nullptr, int(m_choices.size())).arg(m_repoId);
    case State::Downloading: {
        QString line =
            tr("%1 of %2").arg(formatBytes(m_bytesDone, locale), formatBytes(m_bytesTotal, locale));
        if (m_rate > 0) line += QStringLiteral(" · ") + tr("%1/s").arg(formatBytes(qint64(m_rate), locale));
        if (m_eta >= 0) line += QStringLiteral(" · ") + tr("%1 left").arg(durationForPeople(m_eta));
        if (!m_file.isEmpty()) line += QStringLiteral(" · ") + m_file;
        return line;
    }
    case State::Done:
        return tr("Done: %1 is open in the explorer.").arg(QDir::toNativeSeparators(m_modelPath));
    case State::Failed:
        return m_message;
    }
    return QString();
}

QString durationForPeople(int seconds)
{
    if (seconds < 0) return QString();
    if (seconds < 60) return HubDownloadFlow::tr("%1 s").arg(seconds);
    if (seconds < 3600)
        return HubDownloadFlow::tr("%1 min %2 s")
            .arg(seconds / 60)
            .arg(seconds % 60, 2, 10, QLatin1Char('0'));
    return HubDownloadFlow::tr("%1 h %2 min")
        .arg(seconds / 3600)
        .arg((seconds % 3600) / 60, 2, 10, QLatin1Char('0'));
}

} // namespace attnscope
