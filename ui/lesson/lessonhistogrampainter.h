#pragma once

#include "lesson/dkexperiment.h"

#include <QString>

class QPainter;
class QRectF;

namespace attnscope {

// Paints a histogram of scores (bars, x axis with low/0/high, a title) from plain data.
class LessonHistogramPainter
{
public:
    LessonHistogramPainter(const ScoreHistogram& histogram, const QString& title, double fontPointSize);
    void paint(QPainter& painter, const QRectF& target) const;

private:
    const ScoreHistogram& m_histogram;
    QString m_title;
    double m_fontPointSize;
};

} // namespace attnscope
