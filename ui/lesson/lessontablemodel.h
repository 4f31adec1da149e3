#pragma once

#include "lesson/lessonmodel.h"

#include <QAbstractTableModel>

namespace attnscope {

// What the lesson's editable tables (the token names, each input matrix) share: every cell editable, a
// reset when the lesson changes from outside, and lessonEdited() after each edit that went into the lesson.
class LessonTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    explicit LessonTableModel(LessonModel* lesson, QObject* parent = nullptr);

    // The lesson changed shape or content from outside (token count, a new lesson): show it afresh.
    void reload();
    Qt::ItemFlags flags(const QModelIndex& index) const override;

Q_SIGNALS:
    void lessonEdited();

protected:
    // After an edit of `index` went into the lesson: the views repaint it and lessonEdited() follows.
    void cellEdited(const QModelIndex& index);

    LessonModel* m_lesson;
};

} // namespace attnscope
