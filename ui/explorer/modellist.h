#pragma once

#include "explorer/attentionengine.h"
#include "model/modelinfo.h"

#include <QAbstractListModel>
#include <memory>
#include <vector>

namespace attnscope {

// The explorer's models in picker order: model folders and .gguf files (built-in, recent, the Hugging Face
// cache, added folders; each opened when first chosen), then engines that need no folder (the worked
// example, the synthetic demos). One row per model: Qt::DisplayRole the name, Qt::ToolTipRole the folder and
// its details (an engine's architecture), kDetailsRole the details alone, kFolderRole the folder ("" for
// an engine).
class ModelList : public QAbstractListModel
{
    Q_OBJECT
public:
    static constexpr int kDetailsRole = Qt::UserRole + 17; // ModelPickerDelegate::kModelDetailsRole
    static constexpr int kFolderRole = Qt::UserRole + 18;

    struct Entry
    {
        QString name;
        QString folder;                                // empty for the worked example and the demos
        std::shared_ptr<const AttentionEngine> engine; // null until a folder is opened
        ModelInfo info;                                // from the headers (ModelCatalog::describe)
    };

    explicit ModelList(QObject* parent = nullptr);

    int count() const { return int(m_entries.size()); }
    bool contains(int row) const { return row >= 0 && row < count(); }
    const Entry& at(int row) const { return m_entries[size_t(row)]; }
    // Appends; returns the row.
    int addEngine(std::shared_ptr<const AttentionEngine> engine);
    // Appends a folder (described from its headers, shown as `name`); returns the row.
    int addFolder(const QString& folder, const QString& name);
    // Inserts a described model before the engines that need no folder, after the other folders.
    int insertFolderBeforeEngines(const QString& folder, const ModelInfo& info);
    void remove(int row);
    // The opened folder's engine (the row keeps it for the next choice).
    void setEngine(int row, std::shared_ptr<const AttentionEngine> engine);
    // The first row whose name starts with `name`, -1 when none.
    int find(const QString& name) const;
    // The row holding this folder or .gguf file (compared canonically), -1 when none.
    int findFolder(const QString& path) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    int insert(int row, Entry entry);

    std::vector<Entry> m_entries;
};

} // namespace attnscope
