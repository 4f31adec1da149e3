#pragma once

#include <QString>
#include <QWidget>
#include <memory>

class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace attnscope {

class AttentionEngine;
class BackgroundJob;
class TransformerEngine;

// What the Generate and Streaming tabs share: the decoder model they run (or why there is none), the one
// background job that runs it, and the message line (why the tab cannot run, or how its last run ended). Each
// tab builds its own widgets, places m_messageLabel among them, and cancels and waits for the job in its own
// destructor, while the state the job's updates land in still exists.
class DecoderTab : public QWidget
{
    Q_OBJECT
public:
    void cancel();
    bool isRunning() const;
    bool waitForIdle(int msecs);
    QString message() const; // why the tab cannot run, or how the run ended

protected:
    explicit DecoderTab(QWidget* parent);

    // Cancels the job and forgets how the last run ended; m_engine becomes `engine` when it is a decoder
    // model. Else m_engine is null and m_unavailable says why in the tab's words: `noModel` for the worked
    // example and the demos (no model at all), `encoder` (with the model's name for %1) for an encoder.
    // m_unavailable is empty for a decoder.
    void chooseDecoder(const std::shared_ptr<const AttentionEngine>& engine, const QString& noModel,
                       const QString& encoder);
    // The tab's number fields: a spin box with its range and value; a double one with its step too.
    QSpinBox* newSpinBox(int minimum, int maximum, int value);
    QDoubleSpinBox* newDoubleSpinBox(double minimum, double maximum, double step, double value);
    void changeEvent(QEvent* event) override;
    virtual void retranslate() {} // the texts of the tab's widgets, again on a language change
    void setMessage(const QString& text);

    std::shared_ptr<const TransformerEngine> m_engine;
    QString m_unavailable; // why the current engine cannot run here
    QString m_ending;      // how the last run ended
    BackgroundJob* m_job = nullptr;
    QLabel* m_messageLabel = nullptr;
};

} // namespace attnscope
