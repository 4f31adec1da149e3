#include "explorer/statisticstab.h"

#include "explorer/explorerresult.h"
#include "explorer/headstatsmodel.h"
#include "explorer/layerchartwidget.h"
#include "explorer/statisticscolumns.h"

#include <QDoubleSpinBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyle>
#include <QStyleOptionHeader>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

namespace attnscope {

StatisticsTab::StatisticsTab(QWidget* parent)
    : QWidget(parent), m_model(new HeadStatsModel(this)), m_proxy(new QSortFilterProxyModel(this))
{
    auto* layout = new QVBoxLayout(this);
    // Two rows of three thresholds: one row of six made the window wider than a 1280-pixel screen.
    auto* thresholds = new QGridLayout;
    m_thresholdsLabel = new QLabel(this);
    thresholds->addWidget(m_thresholdsLabel, 0, 0);
    const LabelThresholds defaults;
    const std::vector<double> values{defaults.sink, defaults.noOp, defaults.previous,
                                     defaults.next, defaults.self, defaults.broadEntropy};
    for (double value : values) {
        const int index = int(m_thresholdLabels.size());
        m_thresholdLabels.push_back(new QLabel(this));
        auto* box = new QDoubleSpinBox(this);
        box->setRange(0.0, 1.0);
        box->setSingleStep(0.05);
        box->setDecimals(2);
        box->setValue(value);
        m_thresholdLabels.back()->setBuddy(box);
        connect(box, qOverload<double>(&QDoubleSpinBox::valueChanged), this, &StatisticsTab::applyThresholds);
        // Label and box together in one cell, at its left: a label and its box in columns of their own
        // were padded out to the longest label of the other row ("broad: norm. entropy ≥"), leaving a gap
        // before "prev ≥".
        auto* pair = new QHBoxLayout;
        pair->setSpacing(4);
        pair->addWidget(m_thresholdLabels.back());
        pair->addWidget(box);
        pair->addStretch(1);
        thresholds->addLayout(pair, index / 3, 1 + index % 3);
        m_thresholdBoxes.push_back(box);
    }
    thresholds->setColumnStretch(4, 1);
    layout->addLayout(thresholds);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(HeadStatsModel::SortRole);
    m_table = new QTableView(splitter);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(HeadStatsModel::LayerColumn, Qt::AscendingOrder); // layer 0 head 0 first
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignCenter);
    connect(m_table->horizontalHeader(), &QHeaderView::sortIndicatorChanged, this,
            &StatisticsTab::fitColumns);
    connect(m_model, &QAbstractItemModel::modelReset, this, &StatisticsTab::fitColumns);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &StatisticsTab::fitColumns);
    connect(m_model, &QAbstractItemModel::headerDataChanged, this, &StatisticsTab::fitColumns);
    m_table->verticalHeader()->hide();
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        const QModelIndex source = m_proxy->mapToSource(index);
        const HeadStats& s = m_model->stats()[size_t(source.row())];
        emit headActivated(s.layer, s.head);
    });
    m_chart = new LayerChartWidget(splitter);
    splitter->addWidget(m_table);
    splitter->addWidget(m_chart);
    // The table is what people read; the chart's few bars need less height.
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);
    retranslate();
}

void StatisticsTab::retranslate()
{
    m_thresholdsLabel->setText(tr("Label thresholds:"));
    const QStringList names{tr("sink ≥"), tr("[SEP] ≥"), tr("prev ≥"),
                            tr("next ≥"), tr("self ≥"),  tr("broad: norm. entropy ≥")};
    for (size_t i = 0; i < m_thresholdLabels.size(); ++i)
        m_thresholdLabels[i]->setText(names.value(int(i)));
}

void StatisticsTab::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslate();
        m_model->retranslate();
        fitColumns();
    }
    QWidget::changeEvent(event);
}

void StatisticsTab::fitColumns()
{
    QHeaderView* header = m_table->horizontalHeader();
    const QFontMetrics cellMetrics(m_table->font());
    QFont bold = header->font();
    bold.setBold(true);
    QStyle* style = header->style();
    const int cellMargin = 2 * (style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_table) + 1) + 4;
    for (int column = 0; column < m_proxy->columnCount(); ++column) {
        // The header as the style sizes it (its margins and frame), the sort arrow only where it is.
        QStyleOptionHeader option;
        option.initFrom(header);
        option.section = column;
        option.text = m_proxy->headerData(column, Qt::Horizontal).toString();
        option.fontMetrics = QFontMetrics(bold); // highlighted sections are drawn bold
        if (header->sortIndicatorSection() == column) option.sortIndicator = QStyleOptionHeader::SortDown;
        int width = style->sizeFromContents(QStyle::CT_HeaderSection, &option, QSize(), header).width();
        // The arrow is drawn a little wider than the style's size allows for: a margin more.
        if (header->sortIndicatorSection() == column)
            width += style->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header) * 2;
        for (int row = 0; row < m_proxy->rowCount(); ++row)
            width =
                std::max(width, cellMetrics.horizontalAdvance(m_proxy->index(row, column).data().toString()) +
                                    cellMargin);
        header->resizeSection(column, width);
    }
}

void StatisticsTab::applyThresholds()
{
    LabelThresholds t;
    t.sink = m_thresholdBoxes[0]->value();
    t.noOp = m_thresholdBoxes[1]->value();
    t.previous = m_thresholdBoxes[2]->value();
    t.next = m_thresholdBoxes[3]->value();
    t.self = m_thresholdBoxes[4]->value();
    t.broadEntropy = m_thresholdBoxes[5]->value();
    m_model->setThresholds(t);
    emit thresholdsChanged();
}

void StatisticsTab::showResult(const ExplorerResult& result)
{
    const TokenRoles& roles = result.run.roles;
    m_model->setStats(result.analysis.stats, roles.causal);
    m_chart->setSummaries(result.analysis.layerSummaries);
    // Decoders have no [SEP]: no bars of zeros for it.
    m_chart->setShowSep(metricMeansSomething(HeadMetric::SepMass, roles));
    const auto metrics = allHeadMetrics();
    for (size_t i = 0; i < metrics.size(); ++i)
        m_table->setColumnHidden(HeadStatsModel::FirstMetricColumn + int(i),
                                 !metricMeansSomething(metrics[i], roles));
    // A causal mask has no next token: its threshold would label nothing.
    const bool forward = metricMeansSomething(HeadMetric::Next, roles);
    m_thresholdLabels[3]->setVisible(forward);
    m_thresholdBoxes[3]->setVisible(forward);
}

void StatisticsTab::clear()
{
    m_model->setStats({});
    m_chart->setSummaries({});
}

void StatisticsTab::selectHead(int layer, int head)
{
    const auto& stats = m_model->stats();
    for (size_t row = 0; row < stats.size(); ++row) {
        if (stats[row].layer != layer || stats[row].head != head) continue;
        const QModelIndex index = m_proxy->mapFromSource(m_model->index(int(row), 0));
        m_table->selectRow(index.row());
        m_table->scrollTo(index);
        break;
    }
}

} // namespace attnscope
