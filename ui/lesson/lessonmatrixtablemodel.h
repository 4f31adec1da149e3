#pragma once

#include "lesson/lessontablemodel.h"

namespace attnscope {

// One input matrix of a LessonModel (Q, K, V, X or a weight matrix) as an editable table. Rows of
// token matrices are labelled with the token names, weight rows with d1, d2, ...; columns with 1..d.
// Edits go straight into the lesson, which recomputes its steps; lessonEdited() tells the view.
class LessonMatrixTableModel : public LessonTableModel
{
    Q_OBJECT
public:
    LessonMatrixTableModel(LessonModel* lesson, LessonInput which, QObject* parent = nullptr);

    LessonInput input() const { return m_which; }

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    bool isTokenMatrix() const;

    LessonInput m_which;
};

} // namespace attnscope
