#include "lesson/lessonstepwidget.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace attnscope {

LessonStepWidget::LessonStepWidget(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void LessonStepWidget::setStep(const LessonStep& step)
{
    m_step = step;
    update();
}

void LessonStepWidget::setPaintStyle(const LessonPaintStyle& style)
{
    m_style = style;
    updateGeometry();
    update();
}

QRectF LessonStepWidget::contentRect() const
{
    return QRectF(rect()).adjusted(10, 8, -10, -8);
}

LessonStepLayout LessonStepWidget::currentLayout() const
{
    return LessonStepPainter(m_step, m_style).layout(contentRect(), font(), const_cast<LessonStepWidget*>(this));
}

QString LessonStepWidget::hoverText(QPointF position) const
{
    if (m_step.rows() == 0)
        return {};
    const std::optional<std::pair<int, int>> cell = currentLayout().cellAt(position);
    if (!cell || m_step.explanations.empty())
        return {};
    const auto [row, col] = *cell;
    const QString rowLabel = row < m_step.rowLabels.size() ? m_step.rowLabels[row] : QString::number(row + 1);
    const QString colLabel = col < m_step.colLabels.size() ? m_step.colLabels[col] : QString::number(col + 1);
    return tr("%1 → %2: %3").arg(rowLabel, colLabel, m_step.explanation(row, col));
}

QSize LessonStepWidget::sizeHint() const
{
    const double scale = m_style.fontPointSize / 12.0;
    return QSize(int(520 * scale), int(360 * scale));
}

QSize LessonStepWidget::minimumSizeHint() const
{
    return QSize(200, 150);
}

bool LessonStepWidget::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QString text = hoverText(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(e);
}

void LessonStepWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), Qt::white);
    painter.setRenderHint(QPainter::TextAntialiasing);
    if (m_step.rows() > 0)
        LessonStepPainter(m_step, m_style).paint(painter, contentRect());
}

void LessonStepWidget::mouseMoveEvent(QMouseEvent* e)
{
    Q_EMIT hoverChanged(hoverText(e->position()));
    QWidget::mouseMoveEvent(e);
}

void LessonStepWidget::leaveEvent(QEvent* e)
{
    Q_EMIT hoverChanged(QString());
    QWidget::leaveEvent(e);
}

} // namespace attnscope
