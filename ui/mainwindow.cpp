#include "mainwindow.h"

#include "attention/attentionmaps.h"
#include "explorer/arcwidget.h"
#include "explorer/comparisonwidget.h"
#include "explorer/examplesentences.h"
#include "explorer/headgridwidget.h"
#include "explorer/headheatmap.h"
#include "explorer/headstatsmodel.h"
#include "explorer/layerchartwidget.h"
#include "explorer/syntheticengine.h"
#include "explorer/workedexampleengine.h"
#include "heatmapwidget.h"
#include "mainwindowfeatures.h"
#include "presenter/presentermode.h"

#include <QAction>

#include <algorithm>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace attnscope {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    qRegisterMetaType<std::shared_ptr<const ExplorerResult>>();
    setWindowTitle(tr("AttnScope"));
    setAcceptDrops(true);
    m_runner = new AnalysisRunner(this);
    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(300);
    connect(m_debounce, &QTimer::timeout, this, &MainWindow::runNow);
    connect(m_runner, &AnalysisRunner::resultReady, this, &MainWindow::showResult);
    connect(m_runner, &AnalysisRunner::failed, this, [this](quint64, const QString& message) { showFailure(message); });
    connect(m_runner, &AnalysisRunner::started, this, [this] { m_timeLabel->setText(tr("computing…")); });

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(6, 6, 6, 0);
    layout->addWidget(buildInputBar());
    auto* splitter = new QSplitter(Qt::Horizontal, central);
    splitter->addWidget(buildGridPane());
    m_tabs = new QTabWidget(splitter);
    m_tabs->addTab(buildHeatmapTab(), tr("Heatmap"));
    m_comparison = new ComparisonWidget(m_tabs);
    m_tabs->addTab(m_comparison, tr("Compare heads"));
    m_arcs = new ArcWidget(m_tabs);
    m_tabs->addTab(m_arcs, tr("Arcs"));
    m_tabs->addTab(buildStatisticsTab(), tr("Statistics"));
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    layout->addWidget(splitter, 1);
    setCentralWidget(central);

    m_tokensLabel = new QLabel(this);
    m_backendLabel = new QLabel(this);
    m_timeLabel = new QLabel(this);
    m_hoverLabel = new QLabel(this);
    statusBar()->addWidget(m_hoverLabel, 1);
    statusBar()->addPermanentWidget(m_tokensLabel);
    statusBar()->addPermanentWidget(m_backendLabel);
    statusBar()->addPermanentWidget(m_timeLabel);
    connect(m_heatmap, &HeatmapWidget::hoverChanged, m_hoverLabel, &QLabel::setText);

    buildMenus();
    addEngine(std::make_shared<WorkedExampleEngine>());
    addEngine(std::make_shared<SyntheticEngine>(SyntheticEngine::Config{}));
    SyntheticEngine::Config decoder;
    decoder.causal = true;
    addEngine(std::make_shared<SyntheticEngine>(decoder));
    m_modelBox->insertSeparator(m_modelBox->count());
    m_modelBox->addItem(tr("Open folder…"));
    applyStyle();
    selectEngine(0);
    resize(1280, 800);
    m_features = new MainWindowFeatures(this);
}

int MainWindow::currentEngineIndex() const
{
    return m_modelBox->currentIndex();
}

QString MainWindow::textB() const
{
    return m_textB->text();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("Open model folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open model folder"));
        if (!dir.isEmpty())
            openModelFolder(dir);
    });
    file->addSeparator();
    file->addAction(tr("Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* examples = menuBar()->addMenu(tr("E&xamples"));
    for (const QString& sentence : exampleSentences()) {
        const QString title = sentence.size() > 70 ? tr("Long paragraph (attention sinks)") : sentence;
        examples->addAction(title, this, [this, sentence] { setTexts(sentence); });
    }

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    m_viewMenu->setObjectName(QStringLiteral("viewMenu"));
    m_viewMenu->addAction(tr("Fit heatmap"), QKeySequence(Qt::CTRL | Qt::Key_0), m_heatmap, &HeatmapWidget::fitToView);
    QAction* discount = m_viewMenu->addAction(tr("Discount special tokens"));
    discount->setCheckable(true);
    connect(discount, &QAction::toggled, m_discount, &QCheckBox::setChecked);
    connect(m_discount, &QCheckBox::toggled, discount, &QAction::setChecked);

    m_exportMenu = menuBar()->addMenu(tr("E&xport"));
    m_exportMenu->setObjectName(QStringLiteral("exportMenu"));
    m_languageMenu = menuBar()->addMenu(tr("&Language"));
    m_languageMenu->setObjectName(QStringLiteral("languageMenu"));
}

QWidget* MainWindow::buildInputBar()
{
    auto* bar = new QWidget(this);
    auto* form = new QFormLayout(bar);
    form->setContentsMargins(0, 0, 0, 0);
    auto* modelRow = new QHBoxLayout;
    m_modelBox = new QComboBox(bar);
    m_modelBox->setMinimumContentsLength(36);
    modelRow->addWidget(m_modelBox, 1);
    auto* open = new QPushButton(tr("Open folder…"), bar);
    modelRow->addWidget(open);
    form->addRow(tr("Model:"), modelRow);
    m_textA = new QPlainTextEdit(bar);
    m_textA->setPlaceholderText(tr("Type a sentence…"));
    m_textA->setFixedHeight(m_textA->fontMetrics().lineSpacing() * 3 + 12);
    form->addRow(tr("Text A:"), m_textA);
    m_textB = new QLineEdit(bar);
    m_textB->setPlaceholderText(tr("Optional second sentence (encoders: [SEP] between A and B)"));
    form->addRow(tr("Text B:"), m_textB);

    connect(open, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open model folder"));
        if (!dir.isEmpty())
            openModelFolder(dir);
    });
    connect(m_modelBox, qOverload<int>(&QComboBox::activated), this, [this](int index) {
        if (index >= int(m_engines.size())) { // "Open folder…"
            const QString dir = QFileDialog::getExistingDirectory(this, tr("Open model folder"));
            if (!dir.isEmpty())
                openModelFolder(dir);
            else
                m_modelBox->setCurrentIndex(0);
            return;
        }
        selectEngine(index);
    });
    connect(m_textA, &QPlainTextEdit::textChanged, this, &MainWindow::scheduleRun);
    connect(m_textB, &QLineEdit::textChanged, this, &MainWindow::scheduleRun);
    return bar;
}

QWidget* MainWindow::buildGridPane()
{
    auto* pane = new QWidget(this);
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* controls = new QHBoxLayout;
    m_sortBox = new QComboBox(pane);
    m_colorByBox = new QComboBox(pane);
    m_sortBox->addItem(tr("Head order"));
    m_colorByBox->addItem(tr("No colour"));
    for (HeadMetric metric : allHeadMetrics()) {
        m_sortBox->addItem(headMetricDisplayName(metric), int(metric));
        m_colorByBox->addItem(headMetricDisplayName(metric), int(metric));
    }
    controls->addWidget(new QLabel(tr("Sort:"), pane));
    controls->addWidget(m_sortBox, 1);
    controls->addWidget(new QLabel(tr("Colour:"), pane));
    controls->addWidget(m_colorByBox, 1);
    layout->addLayout(controls);
    m_grid = new HeadGridWidget(pane);
    layout->addWidget(m_grid, 1);
    auto metricOf = [](QComboBox* box) -> std::optional<HeadMetric> {
        if (box->currentIndex() <= 0)
            return std::nullopt;
        return HeadMetric(box->currentData().toInt());
    };
    connect(m_sortBox, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this, metricOf] { m_grid->setSortMetric(metricOf(m_sortBox)); });
    connect(m_colorByBox, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this, metricOf] { m_grid->setColorMetric(metricOf(m_colorByBox)); });
    connect(m_grid, &HeadGridWidget::headActivated, this, &MainWindow::openHead);
    return pane;
}

QWidget* MainWindow::buildHeatmapTab()
{
    auto* tab = new QWidget(this);
    auto* layout = new QVBoxLayout(tab);
    auto* controls = new QHBoxLayout;
    m_colorMapBox = new QComboBox(tab);
    m_colorMapBox->addItem(tr("viridis"), int(ColorMapKind::Viridis));
    m_colorMapBox->addItem(tr("magma"), int(ColorMapKind::Magma));
    m_colorMapBox->addItem(tr("cividis"), int(ColorMapKind::Cividis));
    m_colorMapBox->addItem(tr("greys"), int(ColorMapKind::Greys));
    m_scaleBox = new QComboBox(tab);
    m_scaleBox->addItem(tr("absolute 0–1"), int(HeatmapScale::Absolute));
    m_scaleBox->addItem(tr("per-row max"), int(HeatmapScale::RowMax));
    m_scaleBox->addItem(tr("log"), int(HeatmapScale::Log));
    m_discount = new QCheckBox(tr("Discount special tokens"), tab);
    m_discount->setToolTip(tr("Renormalise each row without [CLS], [SEP] and BOS, as exBERT does"));
    auto* fit = new QToolButton(tab);
    fit->setText(tr("Fit"));
    controls->addWidget(new QLabel(tr("Colours:"), tab));
    controls->addWidget(m_colorMapBox);
    controls->addWidget(new QLabel(tr("Scale:"), tab));
    controls->addWidget(m_scaleBox);
    controls->addWidget(m_discount);
    controls->addWidget(fit);
    controls->addStretch();
    layout->addLayout(controls);
    m_heatmap = new HeatmapWidget(tab);
    layout->addWidget(m_heatmap, 1);
    connect(m_colorMapBox, qOverload<int>(&QComboBox::currentIndexChanged), this, &MainWindow::applyStyle);
    connect(m_scaleBox, qOverload<int>(&QComboBox::currentIndexChanged), this, &MainWindow::applyStyle);
    connect(m_discount, &QCheckBox::toggled, m_heatmap, &HeatmapWidget::setDiscountSpecial);
    connect(fit, &QToolButton::clicked, m_heatmap, &HeatmapWidget::fitToView);
    return tab;
}

QWidget* MainWindow::buildStatisticsTab()
{
    auto* tab = new QWidget(this);
    auto* layout = new QVBoxLayout(tab);
    auto* thresholds = new QHBoxLayout;
    thresholds->addWidget(new QLabel(tr("Label thresholds:"), tab));
    const LabelThresholds defaults;
    const std::vector<std::pair<QString, double>> fields{
        {tr("sink ≥"), defaults.sink},         {tr("[SEP] ≥"), defaults.noOp},  {tr("prev ≥"), defaults.previous},
        {tr("next ≥"), defaults.next},         {tr("self ≥"), defaults.self},
        {tr("broad: norm. entropy ≥"), defaults.broadEntropy}};
    for (const auto& [name, value] : fields) {
        thresholds->addWidget(new QLabel(name, tab));
        auto* box = new QDoubleSpinBox(tab);
        box->setRange(0.0, 1.0);
        box->setSingleStep(0.05);
        box->setDecimals(2);
        box->setValue(value);
        connect(box, qOverload<double>(&QDoubleSpinBox::valueChanged), this, &MainWindow::applyThresholds);
        thresholds->addWidget(box);
        m_thresholdBoxes.push_back(box);
    }
    thresholds->addStretch();
    layout->addLayout(thresholds);
    auto* splitter = new QSplitter(Qt::Vertical, tab);
    m_statsModel = new HeadStatsModel(this);
    m_statsProxy = new QSortFilterProxyModel(this);
    m_statsProxy->setSourceModel(m_statsModel);
    m_statsProxy->setSortRole(HeadStatsModel::SortRole);
    m_statsTable = new QTableView(splitter);
    m_statsTable->setModel(m_statsProxy);
    m_statsTable->setSortingEnabled(true);
    m_statsTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_statsTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_statsTable->verticalHeader()->hide();
    connect(m_statsTable, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        const QModelIndex source = m_statsProxy->mapToSource(index);
        const HeadStats& s = m_statsModel->stats()[size_t(source.row())];
        openHead(s.layer, s.head);
    });
    m_layerChart = new LayerChartWidget(splitter);
    splitter->addWidget(m_statsTable);
    splitter->addWidget(m_layerChart);
    layout->addWidget(splitter, 1);
    return tab;
}

int MainWindow::addEngine(std::shared_ptr<const AttentionEngine> engine)
{
    const int index = int(m_engines.size());
    m_modelBox->insertItem(index, engine->displayName());
    m_modelBox->setItemData(index, engine->architecture(), Qt::ToolTipRole);
    m_engines.push_back(std::move(engine));
    return index;
}

std::shared_ptr<const AttentionEngine> MainWindow::currentEngine() const
{
    const int index = m_modelBox->currentIndex();
    return index >= 0 && index < int(m_engines.size()) ? m_engines[size_t(index)] : nullptr;
}

void MainWindow::selectEngine(int index)
{
    if (index < 0 || index >= int(m_engines.size()))
        return;
    m_modelBox->setCurrentIndex(index);
    const auto engine = m_engines[size_t(index)];
    m_textB->setEnabled(engine->supportsTextB());
    m_comparison->setEngine(engine);
    if (const auto fixed = engine->fixedText()) {
        const QSignalBlocker blocker(m_textA);
        m_textA->setPlainText(*fixed);
        m_textA->setReadOnly(true);
    } else {
        m_textA->setReadOnly(false);
    }
    runNow();
}

void MainWindow::setTexts(const QString& textA, const QString& textB)
{
    // Examples on the fixed worked example switch to the synthetic encoder demo so that they show.
    if (currentEngine() && currentEngine()->fixedText() && m_engines.size() > 1)
        selectEngine(1);
    {
        const QSignalBlocker a(m_textA), b(m_textB);
        m_textA->setPlainText(textA);
        m_textB->setText(textB);
    }
    runNow();
}

void MainWindow::openModelFolder(const QString& path)
{
    // The model runtime (core/model) plugs in here through an AttentionEngine; until it is part of the
    // build a folder cannot be opened.
    showFailure(tr("%1: opening model folders needs the model runtime, which is not in this build yet")
                    .arg(QDir::toNativeSeparators(path)));
}

void MainWindow::scheduleRun()
{
    m_debounce->start();
}

void MainWindow::runNow()
{
    m_debounce->stop();
    const auto engine = currentEngine();
    if (!engine)
        return;
    std::optional<QString> textB;
    if (engine->supportsTextB() && !m_textB->text().trimmed().isEmpty())
        textB = m_textB->text();
    m_runner->start(engine, m_textA->toPlainText(), textB);
}

void MainWindow::showResult(std::shared_ptr<const ExplorerResult> result)
{
    m_result = std::move(result);
    const int n = m_result->run.maps->queries();
    m_tokensLabel->setText(tr("%n token(s)", nullptr, n));
    m_tokensLabel->setToolTip(m_result->run.labels.join(QLatin1Char(' ')).left(2000));
    m_backendLabel->setText(tr("backend: %1").arg(m_result->run.backend));
    m_timeLabel->setText(tr("%1 ms").arg(QLocale().toString(m_result->seconds * 1000, 'f', m_result->seconds < 0.01 ? 2 : 0)));
    m_statsModel->setStats(m_result->analysis.stats);
    m_grid->setResult(m_result);
    m_grid->setStats(m_statsModel->stats());
    m_layerChart->setSummaries(m_result->analysis.layerSummaries);
    m_layer = std::min(m_layer, m_result->analysis.layers - 1);
    m_head = std::min(m_head, m_result->analysis.heads - 1);
    m_comparison->setResult(m_result);
    m_arcs->setResult(m_result);
    openHead(m_layer, m_head);
    setWindowTitle(tr("AttnScope — %1").arg(m_result->modelName));
}

void MainWindow::showFailure(const QString& message)
{
    m_timeLabel->setText(tr("failed"));
    statusBar()->showMessage(message, 10000);
    m_hoverLabel->setText(message);
}

void MainWindow::openHead(int layer, int head)
{
    if (!m_result || layer < 0 || head < 0)
        return;
    m_layer = layer;
    m_head = head;
    m_grid->select(layer, head);
    showHead(*m_heatmap, m_result, layer, head);
    applyHeatmapStyle();
    // Arcs: this head, then the heads picked in the comparison tab (each in its own colour), at most 4.
    std::vector<std::pair<int, int>> arcHeads{{layer, head}};
    for (const auto& other : m_comparison->heads())
        if (std::find(arcHeads.begin(), arcHeads.end(), other) == arcHeads.end() && arcHeads.size() < 4)
            arcHeads.push_back(other);
    m_arcs->setHeads(arcHeads);
}

void MainWindow::applyHeatmapStyle()
{
    const int n = m_heatmap->data().rows;
    HeatmapStyle heatmapStyle = m_style;
    heatmapStyle.showValues = n <= 12;
    heatmapStyle.fontPointSize = n <= 12 ? 11 : 9;
    if (m_features && m_features->presenter()->isActive())
        heatmapStyle = PresenterMode::presenterStyle(heatmapStyle); // projector: large labels, thick lines
    m_heatmap->setStyle(heatmapStyle);
}

void MainWindow::applyStyle()
{
    m_style.colorMap = ColorMapKind(m_colorMapBox->currentData().toInt());
    m_style.scale = HeatmapScale(m_scaleBox->currentData().toInt());
    m_style.fontPointSize = 9;
    applyHeatmapStyle();
    m_grid->setColorMap(m_style.colorMap);
    HeatmapStyle compareStyle = m_style;
    compareStyle.showValues = true;
    m_comparison->setStyle(compareStyle);
}

void MainWindow::applyThresholds()
{
    LabelThresholds t;
    t.sink = m_thresholdBoxes[0]->value();
    t.noOp = m_thresholdBoxes[1]->value();
    t.previous = m_thresholdBoxes[2]->value();
    t.next = m_thresholdBoxes[3]->value();
    t.self = m_thresholdBoxes[4]->value();
    t.broadEntropy = m_thresholdBoxes[5]->value();
    m_statsModel->setThresholds(t);
    m_grid->setStats(m_statsModel->stats());
}

QString MainWindow::statusText() const
{
    return m_tokensLabel->text() + QStringLiteral(" · ") + m_backendLabel->text() + QStringLiteral(" · ") +
           m_timeLabel->text();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    for (const QUrl& url : event->mimeData()->urls()) {
        const QFileInfo info(url.toLocalFile());
        if (info.isDir()) {
            openModelFolder(info.absoluteFilePath());
            return;
        }
    }
    showFailure(tr("Drop a model folder (with config.json and model.safetensors)"));
}

} // namespace attnscope
