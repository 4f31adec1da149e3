#pragma once

// The first start (issue 36, point 2): the window opens on the most instructive head of its model, the
// strongest sink or [SEP] head (core strongestSinkOrSepHead, as "Find sink / no-op heads" opens it), and a
// one-line hint says what to do first until it is closed for good (AppSettings::firstRunHintDismissed).

#include <QFrame>

class QLabel;
class QPushButton;

namespace attnscope {

class MainWindow;

// Once the window's next result is in, opens its strongest sink or [SEP] head.
void openStrongestHeadOnNextResult(MainWindow& window);

// "Type a sentence, click a head, open it in the lesson", with a Close button that remembers the choice.
class FirstRunHint : public QFrame
{
    Q_OBJECT
public:
    explicit FirstRunHint(QWidget* parent = nullptr);
    QString text() const;
    QPushButton* closeButton() const { return m_close; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();

    QLabel* m_text = nullptr;
    QPushButton* m_close = nullptr;
};

// Adds the hint under the window's banner unless the settings say it was closed; returns it, or null.
FirstRunHint* installFirstRunHint(MainWindow& window);

} // namespace attnscope
