#include "explorer/runstatebanner.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace attnscope {

RunStateBanner::RunStateBanner(QWidget* parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("runStateBanner"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    m_label = new QLabel(this);
    m_label->setWordWrap(true);
    m_label->setTextFormat(Qt::PlainText);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_label, 1);
    m_first = new QPushButton(this);
    m_last = new QPushButton(this);
    layout->addWidget(m_first);
    layout->addWidget(m_last);
    connect(m_first, &QPushButton::clicked, this, [this] {
        Q_EMIT windowRequested(TokenWindow{m_limit, false});
    });
    connect(m_last, &QPushButton::clicked, this, [this] {
        Q_EMIT windowRequested(TokenWindow{m_limit, true});
    });
    clear();
}

void RunStateBanner::setColours(QColor background, QColor border)
{
    QPalette p = palette();
    p.setColor(QPalette::Window, background);
    p.setColor(QPalette::WindowText, Qt::black);
    p.setColor(QPalette::Light, border);
    p.setColor(QPalette::Dark, border);
    setPalette(p);
    m_label->setPalette(p);
}

void RunStateBanner::showFailure(const QString& message)
{
    m_state = State::Failure;
    m_message = message;
    setColours(QColor(253, 226, 226), QColor(200, 60, 60));
    retranslate();
    show();
}

void RunStateBanner::showTooLong(const QString& message, int limit)
{
    m_state = State::TooLong;
    m_message = message;
    m_limit = limit;
    setColours(QColor(253, 226, 226), QColor(200, 60, 60));
    retranslate();
    show();
}

void RunStateBanner::showWindow(int shown, int total, bool fromEnd)
{
    m_state = State::Window;
    m_shown = shown;
    m_total = total;
    m_fromEnd = fromEnd;
    setColours(QColor(255, 244, 200), QColor(200, 160, 40));
    retranslate();
    show();
}

void RunStateBanner::showEmptyText()
{
    m_state = State::EmptyText;
    m_message.clear();
    setColours(QColor(225, 236, 252), QColor(80, 120, 190));
    retranslate();
    show();
}

void RunStateBanner::clear()
{
    m_state = State::Hidden;
    m_message.clear();
    hide();
}

QString RunStateBanner::emptyTextMessage()
{
    return tr("Type a sentence above to see what each head attends to.");
}

QString RunStateBanner::text() const
{
    return m_label->text();
}

void RunStateBanner::retranslate()
{
    const bool tooLong = m_state == State::TooLong;
    m_first->setVisible(tooLong);
    m_last->setVisible(tooLong);
    switch (m_state) {
    case State::Hidden:
        m_label->clear();
        break;
    case State::Failure:
        m_label->setText(tr("Failed: %1").arg(m_message));
        break;
    case State::TooLong:
        m_label->setText(tr("Failed: %1. The views are cleared.").arg(m_message));
        m_first->setText(tr("Run the first %n token(s)", nullptr, m_limit));
        m_last->setText(tr("Run the last %n token(s)", nullptr, m_limit));
        break;
    case State::EmptyText:
        m_label->setText(emptyTextMessage());
        break;
    case State::Window:
        m_label->setText(
            m_fromEnd
                ? tr("Showing the last %1 of %2 tokens (the model takes no more)").arg(m_shown).arg(m_total)
                : tr("Showing the first %1 of %2 tokens (the model takes no more)")
                      .arg(m_shown)
                      .arg(m_total));
        break;
    }
}

void RunStateBanner::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslate();
    QFrame::changeEvent(event);
}

} // namespace attnscope
