#include "lesson/lessontokentablemodel.h"

namespace attnscope {

LessonTokenTableModel::LessonTokenTableModel(LessonModel* lesson, QObject* parent)
    : LessonTableModel(lesson, parent)
{
}

int LessonTokenTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_lesson->tokenCount();
}

int LessonTokenTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : 1;
}

QVariant LessonTokenTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (role == Qt::DisplayRole || role == Qt::EditRole)
        return m_lesson->tokens().at(index.row());
    return {};
}

bool LessonTokenTableModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || !index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return false;
    const QString name = value.toString().trimmed();
    if (name.isEmpty())
        return false;
    m_lesson->setToken(index.row(), name);
    cellEdited(index);
    return true;
}

QVariant LessonTokenTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole || section < 0)
        return {};
    if (orientation == Qt::Horizontal)
        return section == 0 ? QVariant(tr("Token")) : QVariant();
    return section < rowCount() ? QVariant(QString::number(section + 1)) : QVariant();
}

} // namespace attnscope
