#pragma once

#include <QWidget>

class QLabel;
class QProgressBar;
class QToolButton;

namespace attnscope {

// The status bar's progress for long work: loading a model ("Loading Llama-3.2-1B: reading weights 1.2 of
// 2.5 GB") and a forward pass ("Layer 7 of 16"), with a Cancel button. Hidden when nothing long runs.
class ProgressPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ProgressPanel(QWidget* parent = nullptr);

    // total 0: no measure yet (a busy indicator).
    void showProgress(const QString& text, qint64 done, qint64 total);
    void finish();

    QString text() const;
    int percent() const; // -1 while busy without a measure
    QToolButton* cancelButton() const { return m_cancel; }

Q_SIGNALS:
    void cancelRequested();

protected:
    void changeEvent(QEvent* event) override;

private:
    QLabel* m_label = nullptr;
    QProgressBar* m_bar = nullptr;
    QToolButton* m_cancel = nullptr;
};

} // namespace attnscope
