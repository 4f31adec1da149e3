#pragma once

#include <QWidget>
#include <vector>

class QDoubleSpinBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace attnscope {

struct ExplorerResult;
class HeadStatsModel;
class LayerChartWidget;

// The Statistics tab: the label thresholds, one table row per head (every HeadMetric, sortable) and the
// per-layer chart, for the result shown. Double-clicking a row opens that head.
class StatisticsTab : public QWidget
{
    Q_OBJECT
public:
    explicit StatisticsTab(QWidget* parent = nullptr);

    HeadStatsModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* table() const { return m_table; }
    LayerChartWidget* chart() const { return m_chart; }

    // The result's statistics and per-layer summaries; decoders (no [SEP]) get no [SEP] column or bars.
    void showResult(const ExplorerResult& result);
    void clear();
    // Marks the head's row and scrolls to it (in whatever order the table is sorted).
    void selectHead(int layer, int head);

Q_SIGNALS:
    void headActivated(int layer, int head);
    // New thresholds relabelled every head (model()->stats()).
    void thresholdsChanged();

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void applyThresholds();
    // Each column as wide as its widest cell or header line; only the sorted one gets room for the sort
    // arrow (ResizeToContents gave every column that room and pushed the table past a 1280-px window).
    void fitColumns();

    HeadStatsModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table = nullptr;
    LayerChartWidget* m_chart = nullptr;
    std::vector<QDoubleSpinBox*> m_thresholdBoxes;
    std::vector<QLabel*> m_thresholdLabels;
    QLabel* m_thresholdsLabel = nullptr;
};

} // namespace attnscope
