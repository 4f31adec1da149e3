#include "presenter/presenterbar.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QToolButton>

namespace attnscope {

PresenterBar::PresenterBar(QAction* previousHead, QAction* nextHead, QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("presenterBar"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 2, 6, 2);
    m_text = new QLineEdit(this);
    m_text->setObjectName(QStringLiteral("presenterText"));
    m_text->setClearButtonEnabled(true);
    layout->addWidget(m_text, 3);
    m_examples = new QToolButton(this);
    m_examples->setObjectName(QStringLiteral("presenterExamples"));
    m_examples->setPopupMode(QToolButton::InstantPopup);
    m_examples->setEnabled(false); // until the presenter gives it its menu
    layout->addWidget(m_examples);
    // Plain buttons that trigger the step actions (a default action would put its long name on them).
    m_previous = new QToolButton(this);
    m_previous->setObjectName(QStringLiteral("presenterPreviousHead"));
    connect(m_previous, &QToolButton::clicked, previousHead, &QAction::trigger);
    m_head = new QLabel(this);
    m_head->setObjectName(QStringLiteral("presenterHead"));
    m_head->setAlignment(Qt::AlignCenter);
    m_next = new QToolButton(this);
    m_next->setObjectName(QStringLiteral("presenterNextHead"));
    connect(m_next, &QToolButton::clicked, nextHead, &QAction::trigger);
    m_previousAction = previousHead;
    m_nextAction = nextHead;
    layout->addWidget(m_previous);
    layout->addWidget(m_head);
    layout->addWidget(m_next);
    m_readout = new QLabel(this);
    m_readout->setObjectName(QStringLiteral("presenterReadout"));
    m_readout->setAlignment(Qt::AlignCenter);
    m_readout->setTextFormat(Qt::PlainText);
    m_readout->setMinimumWidth(200);
    QFont big = m_readout->font();
    big.setPointSizeF(28);
    big.setBold(true);
    m_readout->setFont(big);
    layout->addWidget(m_readout, 2);
    connect(m_text, &QLineEdit::returnPressed, this, [this] { Q_EMIT textEntered(m_text->text()); });
    retranslate();
}

void PresenterBar::setText(const QString& text)
{
    if (m_text->text() == text) return;
    const QSignalBlocker blocker(m_text);
    m_text->setText(text);
    m_text->setCursorPosition(0); // the sentence's start shows when it is longer than the field
}

void PresenterBar::setExamplesMenu(QMenu* menu)
{
    m_examples->setMenu(menu);
    m_examples->setEnabled(menu != nullptr);
}

void PresenterBar::setHead(int layer, int head)
{
    m_layer = layer;
    m_headIndex = head;
    retranslate();
}

void PresenterBar::retranslate()
{
    m_text->setPlaceholderText(tr("Type a sentence and press Enter"));
    m_text->setToolTip(tr("The sentence on screen: type a new one and press Enter"));
    m_examples->setText(tr("Examples"));
    m_examples->setToolTip(tr("Show one of the example sentences"));
    // Arrows rather than the actions' words: the strip is one line in large type.
    m_previous->setText(QStringLiteral("◀"));
    m_next->setText(QStringLiteral("▶"));
    m_previous->setToolTip(m_previousAction->text() + QStringLiteral(" (") +
                           m_previousAction->shortcut().toString(QKeySequence::NativeText) +
                           QLatin1Char(')'));
    m_next->setToolTip(m_nextAction->text() + QStringLiteral(" (") +
                       m_nextAction->shortcut().toString(QKeySequence::NativeText) + QLatin1Char(')'));
    m_head->setText(m_layer < 0 ? QString() : tr("Layer %1 · head %2").arg(m_layer).arg(m_headIndex));
}

} // namespace attnscope
