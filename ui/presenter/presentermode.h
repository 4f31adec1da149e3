#pragma once

#include "presenter/headcursor.h"
#include "render/heatmapdata.h"

#include <QFont>
#include <QObject>
#include <QPalette>
#include <QPointer>
#include <QStringList>

class QAction;
class QDockWidget;
class QLabel;
class QMainWindow;
class QMenu;

namespace attnscope {

class PresenterBar;

// Classroom mode for a main window: large fonts, a high-contrast theme, full screen (F11), keyboard
// stepping through heads (Page Down/Up), layers (Ctrl+Page Down/Up) and views (Alt+Page Down/Up), one
// strip docked at the bottom (PresenterBar: the sentence, the head with its buttons, the big hover
// read-out), and the example sentences in one menu. The window keeps its own widgets and logic: it connects
// headChanged()/viewStepped()/textEntered()/exampleChosen() to its selection and feeds hover text to
// showReadout(). Turning the mode off restores the window's palette, font and screen state.
class PresenterMode : public QObject
{
    Q_OBJECT
public:
    explicit PresenterMode(QMainWindow* window);

    static constexpr double kFontScale = 1.75;
    // Up to this many tokens the heatmap labels every piece at 16 px or more on a 1280×800 projector;
    // beyond it presenter mode shows words (pieces merged), as long as the dense matrix is kept.
    static constexpr int kPieceLabelLimit = 40;
    static constexpr double kMinimumLabelPixels = 16;
    static bool showsWords(int tokens);
    static QPalette highContrastPalette();
    // The heatmap style for a projector: larger text, thicker lines, the colour bar kept.
    static HeatmapStyle presenterStyle(HeatmapStyle base);

    bool isActive() const { return m_active; }
    QAction* toggleAction() const { return m_toggle; }         // View ▸ Presenter mode (Ctrl+Shift+P)
    QAction* fullScreenAction() const { return m_fullScreen; } // F11, works in and out of presenter mode
    QList<QAction*> stepActions() const { return m_stepActions; }
    QAction* nextViewAction() const { return m_nextView; }
    QAction* previousViewAction() const { return m_previousView; }
    QLabel* readout() const { return m_readout; }
    PresenterBar* bar() const { return m_bar; }
    QDockWidget* readoutDock() const { return m_dock; }

    // The "Examples" menu (the strip's Examples button opens it): one action per sentence, named by its
    // title where `titles` has a non-empty one (a long paragraph), else by the sentence itself; choosing one
    // emits exampleChosen(sentence).
    QMenu* examplesMenu() const { return m_examples; }
    void setExamples(const QStringList& sentences, const QStringList& titles = {});

    // The head the keyboard steps from; the window calls it when its selection or model changes.
    void setHeadCursor(const HeadCursor& cursor);
    const HeadCursor& headCursor() const { return m_cursor; }

public Q_SLOTS:
    void setActive(bool active);
    void setFullScreen(bool on);
    void showReadout(const QString& text);

Q_SIGNALS:
    void activeChanged(bool active);
    void headChanged(int layer, int head); // after a keyboard step
    void viewStepped(int delta);           // Alt+Page Down: +1 (the next tab), Alt+Page Up: -1
    void textEntered(const QString& text); // a sentence typed into the strip
    void exampleChosen(const QString& text);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void retranslate();
    void step(bool layer, int delta);

    QPointer<QMainWindow> m_window;
    // The same window as a plain QObject, only compared, never used: QPointer<QMainWindow> casts down to
    // QMainWindow, which is undefined (UBSan: vptr) for events sent while ~QWidget runs, after ~QMainWindow.
    const QObject* m_watched;
    bool m_active = false;
    bool m_wasFullScreen = false;
    QPalette m_savedPalette;
    QFont m_savedFont;
    HeadCursor m_cursor;
    QAction* m_toggle = nullptr;
    QAction* m_fullScreen = nullptr;
    QAction* m_nextHead = nullptr;
    QAction* m_previousHead = nullptr;
    QAction* m_nextLayer = nullptr;
    QAction* m_previousLayer = nullptr;
    QAction* m_nextView = nullptr;
    QAction* m_previousView = nullptr;
    PresenterBar* m_bar = nullptr;
    QList<QAction*> m_stepActions;
    QDockWidget* m_dock = nullptr;
    QLabel* m_readout = nullptr;
    QMenu* m_examples = nullptr;
};

} // namespace attnscope
