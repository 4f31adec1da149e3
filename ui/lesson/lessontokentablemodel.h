#pragma once

#include "lesson/lessontablemodel.h"

namespace attnscope {

// The token names as a one-column editable table.
class LessonTokenTableModel : public LessonTableModel
{
    Q_OBJECT
public:
    explicit LessonTokenTableModel(LessonModel* lesson, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

} // namespace attnscope
