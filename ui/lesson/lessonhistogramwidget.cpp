#include "lesson/lessonhistogramwidget.h"

#include "lesson/lessonhistogrampainter.h"

#include <QPainter>

namespace attnscope {

LessonHistogramWidget::LessonHistogramWidget(QWidget* parent) : QWidget(parent)
{
    setMinimumHeight(140);
}

void LessonHistogramWidget::setHistogram(const ScoreHistogram& histogram, const QString& title)
{
    m_histogram = histogram;
    m_title = title;
    update();
}

void LessonHistogramWidget::setFontPointSize(double size)
{
    m_fontPointSize = size;
    update();
}

void LessonHistogramWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), Qt::white);
    LessonHistogramPainter(m_histogram, m_title, m_fontPointSize).paint(painter, QRectF(rect()).adjusted(6, 4, -6, -4));
}

} // namespace attnscope
