#include "generation/decodertab.h"

#include "explorer/backgroundjob.h"
#include "explorer/transformerengine.h"
#include "model/transformermodel.h"

#include <QDoubleSpinBox>
#include <QEvent>
#include <QLabel>
#include <QSpinBox>

namespace attnscope {

DecoderTab::DecoderTab(QWidget* parent) : QWidget(parent), m_job(new BackgroundJob(this)) {}

void DecoderTab::chooseDecoder(const std::shared_ptr<const AttentionEngine>& engine, const QString& noModel,
                               const QString& encoder)
{
    cancel();
    auto transformer = std::dynamic_pointer_cast<const TransformerEngine>(engine);
    m_unavailable.clear();
    if (!transformer)
        m_unavailable = noModel;
    else if (transformer->model().info().kind != QLatin1String("decoder"))
        m_unavailable = encoder.arg(transformer->displayName());
    if (!m_unavailable.isEmpty()) transformer.reset();
    m_engine = transformer;
    m_ending.clear();
}

QSpinBox* DecoderTab::newSpinBox(int minimum, int maximum, int value)
{
    auto* box = new QSpinBox(this);
    box->setRange(minimum, maximum);
    box->setValue(value);
    return box;
}

QDoubleSpinBox* DecoderTab::newDoubleSpinBox(double minimum, double maximum, double step, double value)
{
    auto* box = new QDoubleSpinBox(this);
    box->setRange(minimum, maximum);
    box->setSingleStep(step);
    box->setValue(value);
    return box;
}

void DecoderTab::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

void DecoderTab::setMessage(const QString& text)
{
    m_messageLabel->setText(text);
    m_messageLabel->setVisible(!text.isEmpty());
}

QString DecoderTab::message() const
{
    return m_messageLabel->text();
}

bool DecoderTab::isRunning() const
{
    return m_job->isRunning();
}

bool DecoderTab::waitForIdle(int msecs)
{
    return m_job->waitForIdle(msecs);
}

void DecoderTab::cancel()
{
    m_job->cancel();
}

} // namespace attnscope
