#pragma once

#include "explorer/attentionengine.h"

#include <QFrame>

class QLabel;
class QPushButton;

namespace attnscope {

// The line above the views that says what they show when it is not simply "the text on this model":
// a failed run (red, with why: "495 tokens > 256 positions of tiny-llama-en-tr", and for too long an
// input the actions "Run the first 256 tokens" / "Run the last 256 tokens"), or a run on a window of the
// input (yellow: "Showing the first 256 of 495 tokens"), or no text to run (blue: "Type a sentence…").
// Hidden otherwise.
class RunStateBanner : public QFrame
{
    Q_OBJECT
public:
    enum class State { Hidden, Failure, TooLong, Window, EmptyText };

    explicit RunStateBanner(QWidget* parent = nullptr);

    void showFailure(const QString& message);
    void showTooLong(const QString& message, int limit);
    void showWindow(int shown, int total, bool fromEnd);
    void showEmptyText();
    void clear();

    State state() const { return m_state; }
    // The one line shown when there is no text (also the cleared views' placeholder).
    static QString emptyTextMessage();
    QString text() const;
    // The failure's own message ("…: no model.safetensors"), without "Failed: "; empty when none is shown.
    QString failureMessage() const
    {
        return m_state == State::Failure || m_state == State::TooLong ? m_message : QString();
    }
    QPushButton* firstTokensButton() const { return m_first; }
    QPushButton* lastTokensButton() const { return m_last; }

Q_SIGNALS:
    void windowRequested(attnscope::TokenWindow window);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void setColours(QColor background, QColor border);

    State m_state = State::Hidden;
    int m_limit = 0, m_shown = 0, m_total = 0;
    bool m_fromEnd = false;
    QString m_message;
    QLabel* m_label = nullptr;
    QPushButton* m_first = nullptr;
    QPushButton* m_last = nullptr;
};

} // namespace attnscope
