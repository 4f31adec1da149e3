#pragma once

#include "lesson/lessonmodel.h"

#include <QAbstractTableModel>

namespace attnscope {

// One input matrix of a LessonModel (Q, K, V, X or a weight matrix) as an editable table. Rows of
// token matrices are labelled with the token names, weight rows with d1, d2, ...; columns with 1..d.
// Edits go straight into the lesson, which recomputes its steps; lessonEdited() tells the view.
class LessonMatrixTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    LessonMatrixTableModel(LessonModel* lesson, LessonInput which, QObject* parent = nullptr);

    LessonInput input() const { return m_which; }
    // The lesson changed shape or content from outside (token count, a new lesson): show it afresh.
    void reload();

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    void lessonEdited();

private:
    bool isTokenMatrix() const;

    LessonModel* m_lesson;
    LessonInput m_which;
};

} // namespace attnscope
