#pragma once

#include <QWidget>

class QLabel;
class QSpinBox;

namespace attnscope {

// Above a lesson opened on a head of a long input: which tokens the lesson keeps ("tokens 5–20 of 193")
// and a spin box that moves the window (1-based first token). The launcher reopens the head on the window
// chosen (firstChosen).
class LessonTokenWindowBar : public QWidget
{
    Q_OBJECT
public:
    explicit LessonTokenWindowBar(QWidget* parent = nullptr);

    // total tokens in the input, count kept by the lesson, first the window's first token (0-based).
    void setWindow(int first, int count, int total);
    int first() const { return m_first; }
    QString text() const;
    QSpinBox* startBox() const { return m_start; }

Q_SIGNALS:
    void firstChosen(int first); // 0-based

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();

    QLabel* m_label = nullptr;
    QSpinBox* m_start = nullptr;
    int m_first = 0, m_count = 0, m_total = 0;
};

} // namespace attnscope
