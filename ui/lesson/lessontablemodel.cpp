#include "lesson/lessontablemodel.h"

namespace attnscope {

LessonTableModel::LessonTableModel(LessonModel* lesson, QObject* parent)
    : QAbstractTableModel(parent), m_lesson(lesson)
{}

void LessonTableModel::reload()
{
    beginResetModel();
    endResetModel();
}

Qt::ItemFlags LessonTableModel::flags(const QModelIndex& index) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid)) return Qt::NoItemFlags;
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsEditable | Qt::ItemNeverHasChildren;
}

void LessonTableModel::cellEdited(const QModelIndex& index)
{
    Q_EMIT dataChanged(index, index, {Qt::DisplayRole, Qt::EditRole});
    Q_EMIT lessonEdited();
}

} // namespace attnscope
