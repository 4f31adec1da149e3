#pragma once

#include "lesson/lessonstep.h"
#include "lesson/lessonsteppainter.h"

#include <QWidget>

namespace attnscope {

// Shows one lesson step and explains the cell under the mouse: the read-out text is the cell's
// arithmetic ("kedi → mindere: 3·0 + 1·1 + 3·0 + 1·1 = 2"), sent with hoverChanged and shown as a tooltip.
class LessonStepWidget : public QWidget
{
    Q_OBJECT
public:
    explicit LessonStepWidget(QWidget* parent = nullptr);

    void setStep(const LessonStep& step);
    const LessonStep& step() const { return m_step; }
    void setPaintStyle(const LessonPaintStyle& style);
    const LessonPaintStyle& paintStyle() const { return m_style; }

    LessonStepLayout currentLayout() const;
    // The explanation of the cell at a widget position; empty outside the cells.
    QString hoverText(QPointF position) const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void hoverChanged(const QString& text);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    QRectF contentRect() const;

    LessonStep m_step;
    LessonPaintStyle m_style;
};

} // namespace attnscope
