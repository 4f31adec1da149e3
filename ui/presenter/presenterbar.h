#pragma once

#include <QWidget>

class QAction;
class QLabel;
class QLineEdit;
class QMenu;
class QToolButton;

namespace attnscope {

// Presenter mode's one strip under the view: the sentence (typed anew in class), the head on screen with
// previous/next buttons, the example sentences, and the hover read-out, all in the window's large type. It
// knows no window: the presenter gives it the step actions and the window's text; textEntered() says a new
// sentence was typed.
class PresenterBar : public QWidget
{
    Q_OBJECT
public:
    PresenterBar(QAction* previousHead, QAction* nextHead, QWidget* parent = nullptr);

    QLineEdit* textEdit() const { return m_text; }
    QLabel* headLabel() const { return m_head; }
    QLabel* readout() const { return m_readout; }
    QToolButton* examplesButton() const { return m_examples; }

    // The example sentences' menu, opened by the strip's "Examples" button (the menu bar is far away on a
    // projector, and its Examples menu is the window's, not in large type).
    void setExamplesMenu(QMenu* menu);

    void setText(const QString& text); // the window's Text A, without emitting textEntered
    void setHead(int layer, int head);
    void retranslate();

Q_SIGNALS:
    void textEntered(const QString& text); // Return pressed in the field

private:
    QLineEdit* m_text = nullptr;
    QLabel* m_head = nullptr;
    QLabel* m_readout = nullptr;
    QToolButton* m_previous = nullptr;
    QToolButton* m_next = nullptr;
    QToolButton* m_examples = nullptr;
    QAction* m_previousAction = nullptr;
    QAction* m_nextAction = nullptr;
    int m_layer = -1, m_headIndex = -1;
};

} // namespace attnscope
