#pragma once

// File > Get a model…: a Hugging Face repository id, an optional revision, the list of .gguf files with
// their sizes when the repo holds several, the progress (bytes, rate, time left) with Cancel, and one line
// saying what happens or why it failed. The work is HubDownloadFlow's (asynchronous: the window never
// waits); the dialog shows it. modelReady says what to open in the explorer when the download is done.

#include "hub/hubsettings.h"

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTreeWidget;

namespace attnscope {

class HubDownloadFlow;

class GetModelDialog : public QDialog
{
    Q_OBJECT
public:
    explicit GetModelDialog(const hub::HubSettings& settings, QWidget* parent = nullptr);

    // The guided list's Download: the repo (and, for a .gguf repo, its file) typed in, ready to start.
    void prefill(const QString& repoId, const QString& ggufFile = {});
    // Shown, raised and activated; prefilled first when repoId is not empty (File ▸ Get a model… passes
    // none).
    void present(const QString& repoId, const QString& ggufFile = {});

    HubDownloadFlow* flow() const { return m_flow; }
    QLineEdit* repoEdit() const { return m_repo; }
    QLineEdit* revisionEdit() const { return m_revision; }
    QTreeWidget* fileList() const { return m_files; }
    QPushButton* downloadButton() const { return m_download; }
    QPushButton* cancelButton() const { return m_cancel; }
    QProgressBar* progressBar() const { return m_progress; }
    QLabel* statusLabel() const { return m_status; }

signals:
    void modelReady(const QString& path);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void startOrChoose();
    void updateView();
    void fillFiles();

    HubDownloadFlow* m_flow = nullptr;
    QString m_ggufFile; // prefilled by the guided list
    QLabel* m_intro = nullptr;
    QLabel* m_repoLabel = nullptr;
    QLabel* m_revisionLabel = nullptr;
    QLineEdit* m_repo = nullptr;
    QLineEdit* m_revision = nullptr;
    QLabel* m_filesLabel = nullptr;
    QTreeWidget* m_files = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QPushButton* m_download = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_close = nullptr;
};

} // namespace attnscope
