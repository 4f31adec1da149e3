#pragma once

#include "lesson/dkexperiment.h"

#include <QWidget>

namespace attnscope {

// The d_k experiment's histogram of scores, painted by LessonHistogramPainter.
class LessonHistogramWidget : public QWidget
{
    Q_OBJECT
public:
    explicit LessonHistogramWidget(QWidget* parent = nullptr);
    void setHistogram(const ScoreHistogram& histogram, const QString& title);
    void setFontPointSize(double size);
    const ScoreHistogram& histogram() const { return m_histogram; }
    QSize sizeHint() const override { return QSize(320, 200); }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    ScoreHistogram m_histogram;
    QString m_title;
    double m_fontPointSize = 10;
};

} // namespace attnscope
