#pragma once

#include "settings/savedsession.h"

#include <QObject>
#include <QPointer>
#include <QString>

namespace attnscope {

class MainWindow;

// A picker entry as a key that survives a restart and that --model accepts: "worked-example",
// "synthetic-encoder", "synthetic-decoder", a built-in model's name, else the model folder's absolute path.
// "" for an index outside the picker.
QString explorerModelKey(const MainWindow& window, int index);

// Selects the model a key (or anything --model accepts: a folder, a built-in name, a Hugging Face cache
// id) names, opening its folder when needed. Returns false with *problem (english(): one line for a
// terminal; modelProblemText: the window's words) when there is no such model or it cannot be opened; the
// window then keeps its model.
bool selectExplorerModel(MainWindow& window, const QString& key, ModelProblem* problem);

// The window's session now.
SavedSession currentExplorerSession(const MainWindow& window);

// Brings the window to a session: model, texts (unless the session's model has fixed text; with no model
// in the session, texts move the window off the worked example), tab, and the head once the first
// result of that input is in. Fields left empty keep the window's own. Returns false with
// *problem when the model cannot be selected (the rest is applied anyway).
bool applyExplorerSession(MainWindow& window, const SavedSession& session, ModelProblem* problem);

// The window's start (issue 36): applyExplorerSession (with no head in the session, the first result opens
// on its strongest sink or [SEP] head: firststart.h), and when the session's model cannot be opened the
// window still opens, on the model it has (the built-in one, else the worked example), with the failure on
// its banner, in the window's language, until the user chooses a model. Returns false with *problem as
// applyExplorerSession does.
bool startExplorerSession(MainWindow& window, const SavedSession& session, ModelProblem* problem);

// Keeps AppSettings' session up to date with a window: after every result, on a tab change, on close and
// when the application quits. Only the application's own window gets one (tests' windows leave the
// user's settings alone).
class SessionKeeper : public QObject
{
    Q_OBJECT
public:
    explicit SessionKeeper(MainWindow* window);
    void saveNow();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QPointer<MainWindow> m_window;
    // The same window as a plain QObject, only compared, never used: QPointer<MainWindow> casts down to
    // MainWindow, which is undefined (UBSan: vptr) for events sent while ~QWidget runs, after ~MainWindow.
    const QObject* m_watched;
};

} // namespace attnscope
