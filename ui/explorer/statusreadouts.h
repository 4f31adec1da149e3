#pragma once

#include <QElapsedTimer>
#include <QObject>

class QLabel;
class QStatusBar;

namespace attnscope {

class ExplorerSession;
struct ExplorerResult;
class ProgressPanel;

// The explorer's status bar: the hovered cell (stretching), the backend's notice, the progress of a long
// pass or load (with Cancel), then the token count, the backend and the run's time as separate read-outs.
// It follows the session's runs and backend.
class StatusReadouts : public QObject
{
    Q_OBJECT
public:
    StatusReadouts(QStatusBar* bar, ProgressPanel* progress, ExplorerSession* session);

    QLabel* hoverLabel() const { return m_hover; }
    // "19 token(s) · backend: CPU · … · 12 ms".
    QString statusText() const;
    QString backendStatus() const; // the backend read-out
    // The run shown: its token count (the tokens as the tooltip), backend and time.
    void showRun(const ExplorerResult& result);
    void showFailedRun();
    // No run (the text is empty): nothing to time or count.
    void showNoRun();
    // A state of the run or the load in the time read-out ("cancelled", "loading x cancelled", …).
    void setTimeText(const QString& text);
    // The session's backend in the read-out, its notice (when the one chosen could not start) beside it.
    void showBackend();

private:
    ExplorerSession* m_session;
    ProgressPanel* m_progress;
    QElapsedTimer m_runClock; // since the current run started: its progress shows after a moment
    QLabel* m_hover = nullptr;
    QLabel* m_notice = nullptr;
    QLabel* m_tokens = nullptr;
    QLabel* m_backend = nullptr;
    QLabel* m_time = nullptr;
};

} // namespace attnscope
