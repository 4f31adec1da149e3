#pragma once

#include "render/headnames.h"
#include "stats/headstats.h"

#include <QAbstractTableModel>
#include <vector>

namespace attnscope {

// One row per head: layer, head, label, then every HeadMetric. Qt::DisplayRole gives text,
// Qt::UserRole the raw number (for sorting through a QSortFilterProxyModel).
class HeadStatsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { LayerColumn, HeadColumn, LabelColumn, FirstMetricColumn };
    static constexpr int SortRole = Qt::UserRole;

    explicit HeadStatsModel(QObject* parent = nullptr);

    // `causal`: the stats are of a decoder (its columns are named for it, metricColumnTitle).
    void setStats(std::vector<HeadStats> stats, bool causal = false);
    const std::vector<HeadStats>& stats() const { return m_stats; }
    // New thresholds relabel every head in place.
    void setThresholds(const LabelThresholds& thresholds);
    const LabelThresholds& thresholds() const { return m_thresholds; }
    static HeadMetric metricForColumn(int column);
    // After a language change: headers and label names are shown anew.
    void retranslate();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<HeadStats> m_stats;
    LabelThresholds m_thresholds;
    bool m_causal = false;
};

} // namespace attnscope
