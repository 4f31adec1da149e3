#include "explorer/headstatsmodel.h"

#include "explorer/statisticscolumns.h"

#include <QCoreApplication>
#include <QLocale>

namespace attnscope {

HeadStatsModel::HeadStatsModel(QObject* parent) : QAbstractTableModel(parent) {}

void HeadStatsModel::setStats(std::vector<HeadStats> stats, bool causal)
{
    beginResetModel();
    m_stats = std::move(stats);
    m_causal = causal;
    for (HeadStats& s : m_stats)
        s.label = classifyHead(s, m_thresholds);
    endResetModel();
}

void HeadStatsModel::setThresholds(const LabelThresholds& thresholds)
{
    m_thresholds = thresholds;
    for (HeadStats& s : m_stats)
        s.label = classifyHead(s, m_thresholds);
    if (!m_stats.empty()) Q_EMIT dataChanged(index(0, LabelColumn), index(rowCount() - 1, LabelColumn));
}

void HeadStatsModel::retranslate()
{
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, columnCount() - 1);
    if (!m_stats.empty()) Q_EMIT dataChanged(index(0, LabelColumn), index(rowCount() - 1, LabelColumn));
}

HeadMetric HeadStatsModel::metricForColumn(int column)
{
    return allHeadMetrics()[size_t(column - FirstMetricColumn)];
}

int HeadStatsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_stats.size());
}

int HeadStatsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : FirstMetricColumn + int(allHeadMetrics().size());
}

QVariant HeadStatsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const HeadStats& s = m_stats[size_t(index.row())];
    const int column = index.column();
    if (role == Qt::TextAlignmentRole)
        return column == LabelColumn ? QVariant() : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole) return {};
    switch (column) {
    case LayerColumn:
        return s.layer;
    case HeadColumn:
        return s.head;
    case LabelColumn:
        return role == SortRole ? QVariant(int(s.label)) : QVariant(headLabelDisplayName(s.label));
    default: {
        const double value = headMetricValue(s, metricForColumn(column));
        if (role == SortRole) return value;
        return QLocale().toString(value, 'f', 4); // the locale's decimal mark, as the threshold boxes
    }
    }
}

QVariant HeadStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if ((role != Qt::DisplayRole && role != Qt::ToolTipRole) || orientation != Qt::Horizontal ||
        section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    // Shown a word a line (the columns fit a 1280-pixel window); the tooltip has the title on one line.
    if (role == Qt::DisplayRole)
        return stackedColumnTitle(headerData(section, orientation, Qt::ToolTipRole).toString());
    switch (section) {
    case LayerColumn:
        return tr("Layer");
    case HeadColumn:
        return tr("Head");
    case LabelColumn:
        return tr("Label");
    default:
        return metricColumnTitle(metricForColumn(section), m_causal);
    }
}

} // namespace attnscope
