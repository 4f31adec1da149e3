#include "lesson/lessonhistogrampainter.h"

#include "lesson/lessonnumbers.h"

#include <QFontMetricsF>
#include <QLocale>
#include <QPainter>

namespace attnscope {

LessonHistogramPainter::LessonHistogramPainter(const ScoreHistogram& histogram, const QString& title,
                                               double fontPointSize)
    : m_histogram(histogram), m_title(title), m_fontPointSize(fontPointSize)
{
}

void LessonHistogramPainter::paint(QPainter& painter, const QRectF& target) const
{
    painter.save();
    QFont font = painter.font();
    font.setPointSizeF(m_fontPointSize);
    painter.setFont(font);
    const QFontMetricsF metrics(font, painter.device());
    painter.setPen(Qt::black);
    painter.drawText(QRectF(target.left(), target.top(), target.width(), metrics.height() * 1.3),
                     Qt::AlignLeft | Qt::AlignVCenter, m_title);
    const int bins = int(m_histogram.counts.size());
    const int top = m_histogram.maxCount();
    // The count axis on the left: 0 and the tallest bar's count.
    const QString topText = QLocale().toString(top);
    const double axisWidth = metrics.horizontalAdvance(topText) + 8;
    const QRectF plot(target.left() + axisWidth, target.top() + metrics.height() * 1.5,
                      target.width() - axisWidth - 4, target.height() - metrics.height() * 3.0);
    if (bins == 0 || top == 0 || plot.height() < 4) {
        painter.restore();
        return;
    }
    painter.drawLine(plot.bottomLeft(), plot.topLeft());
    painter.drawText(
        QRectF(target.left(), plot.top() - metrics.height() / 2, axisWidth - 4, metrics.height()),
        Qt::AlignRight | Qt::AlignVCenter, topText);
    painter.drawText(
        QRectF(target.left(), plot.bottom() - metrics.height() / 2, axisWidth - 4, metrics.height()),
        Qt::AlignRight | Qt::AlignVCenter, QLocale().toString(0));
    const double barWidth = plot.width() / bins;
    for (int b = 0; b < bins; ++b) {
        const double h = plot.height() * m_histogram.counts[size_t(b)] / top;
        painter.fillRect(QRectF(plot.left() + b * barWidth + 1, plot.bottom() - h, barWidth - 2, h), QColor(59, 82, 139));
    }
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    auto tick = [&](double value, Qt::Alignment align) {
        const double x = plot.left() + (value - m_histogram.low) / (m_histogram.high - m_histogram.low) * plot.width();
        painter.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4));
        QRectF box(x - 100, plot.bottom() + 4, 200, metrics.height() * 1.2);
        if (align & Qt::AlignLeft)
            box.moveLeft(x);
        if (align & Qt::AlignRight)
            box.moveRight(x);
        painter.drawText(box, align | Qt::AlignTop, lessonNumber(value));
    };
    tick(m_histogram.low, Qt::AlignLeft);
    tick(m_histogram.high, Qt::AlignRight);
    if (m_histogram.low < 0 && m_histogram.high > 0)
        tick(0.0, Qt::AlignHCenter);
    painter.restore();
}

} // namespace attnscope
