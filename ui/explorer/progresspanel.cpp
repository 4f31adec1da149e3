#include "explorer/progresspanel.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QToolButton>

namespace attnscope {

ProgressPanel::ProgressPanel(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("progressPanel"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_label = new QLabel(this);
    m_bar = new QProgressBar(this);
    m_bar->setFixedWidth(160);
    m_bar->setTextVisible(false);
    m_cancel = new QToolButton(this);
    m_cancel->setObjectName(QStringLiteral("cancelLongWork"));
    m_cancel->setText(tr("Cancel"));
    // No taller than a status bar label: showing the panel then never changes the status bar's height,
    // which would relayout (and repaint) the whole window in the middle of a run.
    const int height = m_label->sizeHint().height();
    m_bar->setFixedHeight(height);
    m_cancel->setAutoRaise(true);
    m_cancel->setMaximumHeight(height);
    layout->addWidget(m_label);
    layout->addWidget(m_bar);
    layout->addWidget(m_cancel);
    connect(m_cancel, &QToolButton::clicked, this, &ProgressPanel::cancelRequested);
    // Polished now, while the window is built, not at the first show in the middle of a run (a style's
    // polish of a progress bar costs tens of milliseconds on a loaded machine, and the GUI must not stall).
    ensurePolished();
    m_bar->ensurePolished();
    m_cancel->ensurePolished();
    setVisible(false);
}

void ProgressPanel::showProgress(const QString& text, qint64 done, qint64 total)
{
    if (m_label->text() != text) m_label->setText(text);
    if (total <= 0) {
        m_bar->setRange(0, 0); // busy
    } else {
        m_bar->setRange(0, 1000);
        m_bar->setValue(int(1000 * std::min(done, total) / total));
    }
    setVisible(true);
}

void ProgressPanel::finish()
{
    setVisible(false);
}

QString ProgressPanel::text() const
{
    return m_label->text();
}

int ProgressPanel::percent() const
{
    return m_bar->maximum() == 0 ? -1 : m_bar->value() / 10;
}

void ProgressPanel::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) m_cancel->setText(tr("Cancel"));
    QWidget::changeEvent(event);
}

} // namespace attnscope
