#include "lesson/lessontokenwindowbar.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <algorithm>

namespace attnscope {

LessonTokenWindowBar::LessonTokenWindowBar(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("lessonTokenWindow"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    m_label = new QLabel(this);
    m_label->setTextFormat(Qt::PlainText);
    m_start = new QSpinBox(this);
    m_start->setObjectName(QStringLiteral("lessonWindowStart"));
    layout->addWidget(m_label);
    layout->addWidget(m_start);
    layout->addStretch();
    connect(m_start, qOverload<int>(&QSpinBox::valueChanged), this,
            [this](int oneBased) { Q_EMIT firstChosen(oneBased - 1); });
    retranslate();
}

void LessonTokenWindowBar::setWindow(int first, int count, int total)
{
    m_first = first;
    m_count = count;
    m_total = total;
    const QSignalBlocker blocker(m_start);
    m_start->setRange(1, std::max(1, total - count + 1));
    m_start->setValue(first + 1);
    retranslate();
}

QString LessonTokenWindowBar::text() const
{
    return m_label->text();
}

void LessonTokenWindowBar::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

void LessonTokenWindowBar::retranslate()
{
    m_label->setText(
        tr("The lesson keeps tokens %1–%2 of %3;").arg(m_first + 1).arg(m_first + m_count).arg(m_total));
    m_start->setPrefix(tr("from token "));
    m_start->setToolTip(tr("Choose which %1 consecutive tokens the lesson shows").arg(m_count));
}

} // namespace attnscope
