#include "lesson/lessonmatrixtablemodel.h"

#include "lesson/lessonnumbers.h"

#include <QLocale>

#include <cmath>
#include <stdexcept>

namespace attnscope {

LessonMatrixTableModel::LessonMatrixTableModel(LessonModel* lesson, LessonInput which, QObject* parent)
    : LessonTableModel(lesson, parent), m_which(which)
{
}

bool LessonMatrixTableModel::isTokenMatrix() const
{
    return m_which == LessonInput::Q || m_which == LessonInput::K || m_which == LessonInput::V ||
           m_which == LessonInput::X;
}

int LessonMatrixTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_lesson->input(m_which).rows());
}

int LessonMatrixTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_lesson->input(m_which).cols());
}

QVariant LessonMatrixTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const double v = m_lesson->input(m_which)(index.row(), index.column());
    switch (role) {
    case Qt::DisplayRole:
        return lessonNumber(v);
    case Qt::EditRole:
        // Text, so that the editor is a line edit taking any precision, "0.5", "0,5" or "−1".
        return QString::number(v, 'g', 15);
    case Qt::TextAlignmentRole:
        return int(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

bool LessonMatrixTableModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || !index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return false;
    bool ok = false;
    double v = value.toDouble(&ok);
    if (!ok) // typed text: accept both "0.5" and the locale's "0,5", and the minus sign U+2212
        v = QLocale().toDouble(value.toString().replace(QChar(0x2212), QLatin1Char('-')), &ok);
    if (!ok)
        v = value.toString().replace(QChar(0x2212), QLatin1Char('-')).toDouble(&ok);
    if (!ok || !std::isfinite(v))
        return false;
    try {
        m_lesson->setInputValue(m_which, index.row(), index.column(), v);
    } catch (const std::invalid_argument&) {
        return false;
    }
    cellEdited(index);
    return true;
}

QVariant LessonMatrixTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole || section < 0)
        return {};
    if (orientation == Qt::Horizontal)
        return section < columnCount() ? QVariant(QString::number(section + 1)) : QVariant();
    if (section >= rowCount())
        return {};
    if (isTokenMatrix() && section < m_lesson->tokens().size())
        return m_lesson->tokens().at(section);
    return QStringLiteral("d%1").arg(section + 1);
}

} // namespace attnscope
