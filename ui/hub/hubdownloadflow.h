#pragma once

// What File > Get a model… does, with no widget: a hub::HubDownload (core/hub) driven through the states the
// dialog shows, and the one line it shows in each. Tests drive it (and the dialog over it) against the
// stand-in Hub (tests/support/hubstandin.h).
//
//   Idle --start()--> Listing --(a repo of .gguf files, no file named)--> ChoosingFile --chooseFile()-->
//   Downloading --> Done (modelReady) | Failed (the core's one-line reason) ; cancel() goes back to Idle.
//
// Listing and Downloading are one HubDownload run: the core asks for the listing first and says which .gguf
// files there are (ggufChoices) by failing before any byte of weights, so "listing" ends at the first
// progress or at that answer.

#include "hub/hubdownload.h"
#include "hub/hublisting.h"
#include "hub/hubsettings.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <vector>

namespace attnscope {

class HubDownloadFlow : public QObject
{
    Q_OBJECT
public:
    enum class State { Idle, Listing, ChoosingFile, Downloading, Done, Failed };
    Q_ENUM(State)

    explicit HubDownloadFlow(const hub::HubSettings& settings, QObject* parent = nullptr);
    ~HubDownloadFlow() override;

    // For tests: retries, backoff and timeouts of each file's transfer (hubfiletransfer.h).
    void setTransferOptions(const hub::TransferOptions& options) { m_options = options; }
    const hub::HubSettings& settings() const { return m_settings; }

    // "" when the repo id and revision may be asked for (the core's name checks, hubnames.h); else one line.
    static QString requestProblem(const QString& repoId, const QString& revision);

    // A repo id, a revision ("" = main) and, for a repo of .gguf files, the file to take ("" = list them).
    // False (and Failed with the reason) when the names are refused; nothing is asked of the network then.
    bool start(const QString& repoId, const QString& revision, const QString& ggufFile = {});
    // In ChoosingFile: downloads this one of choices().
    bool chooseFile(const QString& path);
    // Stops a listing or a transfer; a partial file stays as .incomplete in blobs/ for the next try, nothing
    // appears under snapshots/.
    void cancel();

    State state() const { return m_state; }
    // One line for the state: what is going on, the progress, or the reason it failed.
    QString statusText() const;
    // The last run's own line (a cancel, a failure), "" before any.
    QString message() const { return m_message; }
    // In ChoosingFile: the .gguf files with their sizes.
    const std::vector<hub::HubFile>& choices() const { return m_choices; }
    qint64 bytesDone() const { return m_bytesDone; }
    qint64 bytesTotal() const { return m_bytesTotal; }
    QString repoId() const { return m_repoId; }
    QString revision() const { return m_revision; }
    // After Done: what the explorer opens (the snapshot folder, or the .gguf file in it).
    QString modelPath() const { return m_modelPath; }

signals:
    void changed(); // the state, the text or the progress
    void modelReady(const QString& path);

private:
    void run(const QStringList& includeGlobs);
    void setState(State state);
    void onProgress(qint64 done, qint64 total, double rate, int eta, const QString& file);
    void onFinished(const QString& snapshot);
    void onFailed(const QString& message);

    hub::HubSettings m_settings;
    hub::TransferOptions m_options;
    QPointer<hub::HubDownload> m_download;
    State m_state = State::Idle;
    QString m_repoId, m_revision, m_ggufFile;
    std::vector<hub::HubFile> m_choices;
    qint64 m_bytesDone = 0, m_bytesTotal = 0;
    double m_rate = 0;
    int m_eta = -1;
    QString m_file, m_message, m_modelPath;
};

// "1 min 05 s", "42 s", "2 h 03 min" in the UI's language; "" for a negative (unknown) time.
QString durationForPeople(int seconds);

} // namespace attnscope
