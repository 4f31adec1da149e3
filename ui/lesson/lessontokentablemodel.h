#pragma once

#include "lesson/lessonmodel.h"

#include <QAbstractTableModel>

namespace attnscope {

// The token names as a one-column editable table.
class LessonTokenTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    explicit LessonTokenTableModel(LessonModel* lesson, QObject* parent = nullptr);
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
    LessonModel* m_lesson;
};

} // namespace attnscope
