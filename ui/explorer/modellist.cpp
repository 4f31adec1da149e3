#include "explorer/modellist.h"

#include "explorer/modeldetails.h"
#include "model/modelcatalog.h"

#include <QDir>
#include <QFileInfo>

namespace attnscope {

ModelList::ModelList(QObject* parent) : QAbstractListModel(parent) {}

int ModelList::insert(int row, Entry entry)
{
    beginInsertRows({}, row, row);
    m_entries.insert(m_entries.begin() + row, std::move(entry));
    endInsertRows();
    return row;
}

int ModelList::addEngine(std::shared_ptr<const AttentionEngine> engine)
{
    QString name = engine->displayName();
    return insert(count(), Entry{std::move(name), QString(), std::move(engine), ModelInfo{}});
}

int ModelList::addFolder(const QString& folder, const QString& name)
{
    ModelInfo info = ModelCatalog::describe(folder).value_or(ModelInfo{});
    info.name = name;
    return insert(count(), Entry{name, folder, nullptr, info});
}

int ModelList::insertFolderBeforeEngines(const QString& folder, const ModelInfo& info)
{
    int at = 0;
    while (at < count() && !m_entries[size_t(at)].folder.isEmpty())
        ++at;
    return insert(at, Entry{info.name, folder, nullptr, info});
}

void ModelList::remove(int row)
{
    if (!contains(row)) return;
    beginRemoveRows({}, row, row);
    m_entries.erase(m_entries.begin() + row);
    endRemoveRows();
}

void ModelList::setEngine(int row, std::shared_ptr<const AttentionEngine> engine)
{
    if (!contains(row)) return;
    m_entries[size_t(row)].engine = std::move(engine);
    emit dataChanged(index(row), index(row));
}

int ModelList::find(const QString& name) const
{
    for (int i = 0; i < count(); ++i)
        if (m_entries[size_t(i)].name.startsWith(name)) return i;
    return -1;
}

int ModelList::findFolder(const QString& path) const
{
    const QString canonical = QFileInfo(path).canonicalFilePath();
    for (int i = 0; i < count(); ++i)
        if (!m_entries[size_t(i)].folder.isEmpty() &&
            QFileInfo(m_entries[size_t(i)].folder).canonicalFilePath() == canonical)
            return i;
    return -1;
}

int ModelList::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : count();
}

QVariant ModelList::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Entry& entry = m_entries[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return entry.name;
    case Qt::ToolTipRole: {
        if (entry.folder.isEmpty()) return entry.engine ? entry.engine->architecture() : QString();
        const QString details = modelDetailsText(entry.info);
        return details.isEmpty() ? QDir::toNativeSeparators(entry.folder)
                                 : QDir::toNativeSeparators(entry.folder) + QLatin1Char('\n') + details;
    }
    case kDetailsRole:
        return entry.folder.isEmpty() ? QVariant() : QVariant(modelDetailsText(entry.info));
    case kFolderRole:
        return entry.folder;
    default:
        return {};
    }
}

} // namespace attnscope
