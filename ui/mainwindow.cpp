#include "mainwindow.h"

#include "attention/attentionmaps.h"
#include "census/censuslauncher.h"
#include "explorer/arcwidget.h"
#include "explorer/attentionmeasure.h"
#include "explorer/backenddescription.h"
#include "explorer/comparisonwidget.h"
#include "explorer/examplesentences.h"
#include "explorer/explorersession.h"
#include "explorer/flowview.h"
#include "explorer/gridpane.h"
#include "explorer/guidedmodellist.h"
#include "explorer/headgridwidget.h"
#include "explorer/headheatmap.h"
#include "explorer/headstatsmodel.h"
#include "explorer/heatmaptab.h"
#include "explorer/heatmapwidget.h"
#include "explorer/heatmapzoom.h"
#include "explorer/inputbar.h"
#include "explorer/modeldroptarget.h"
#include "explorer/modelloader.h"
#include "explorer/progresspanel.h"
#include "explorer/runstatebanner.h"
#include "explorer/statisticstab.h"
#include "explorer/statusreadouts.h"
#include "explorer/workedexampleengine.h"
#include "generation/generatetab.h"
#include "generation/streamingtab.h"
#include "hub/getmodeldialog.h"
#include "lesson/lessonlauncher.h"
#include "mainmenus.h"
#include "mainwindowfeatures.h"
#include "model/memoryestimate.h"
#include "presenter/presentermode.h"
#include "settings/appsettings.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace attnscope {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(tr("AttnScope"));
    m_session = new ExplorerSession(this);
    auto* drops = new ModelDropTarget(this);
    connect(drops, &ModelDropTarget::modelDropped, this, &MainWindow::openModelFolder);
    connect(drops, &ModelDropTarget::dropRefused, this, &MainWindow::showFailure);
    m_progress = new ProgressPanel(this);
    connect(m_session, &ExplorerSession::resultChanged, this,
            [this](std::shared_ptr<const ExplorerResult> result, bool sameAblatedInput) {
                showResult(std::move(result), sameAblatedInput);
                if (!isLoadingModel()) m_progress->finish();
            });
    connect(m_session, &ExplorerSession::runFailed, this, [this](const QString& message, int limit) {
        showRunFailure(message, limit);
        if (!isLoadingModel()) m_progress->finish();
    });
    connect(m_session, &ExplorerSession::textEmpty, this, [this] {
        clearViews(RunStateBanner::emptyTextMessage());
        m_banner->showEmptyText();
        m_readouts->showNoRun();
        statusBar()->clearMessage();
        if (!isLoadingModel()) m_progress->finish();
    });
    connect(m_session, &ExplorerSession::selectFailed, this, [this](const QString& message) {
        showFailure(message);
        m_inputBar->modelBox()->setCurrentIndex(std::max(0, m_session->currentIndex()));
    });
    connect(m_session, &ExplorerSession::notAModel, this, &MainWindow::showFailure);
    connect(m_session, &ExplorerSession::currentModelChanged, this, &MainWindow::showCurrentModel);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(6, 6, 6, 0);
    m_inputBar = new InputBar(m_session, central);
    connect(m_inputBar, &InputBar::modelChosen, this, &MainWindow::selectEngine);
    connect(m_inputBar, &InputBar::openGgufRequested, this, &MainWindow::openGgufFile);
    connect(m_inputBar, &InputBar::openFolderRequested, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open model folder"));
        if (!dir.isEmpty()) openModelFolder(dir);
    });
    layout->addWidget(m_inputBar);
    m_banner = new RunStateBanner(central);
    connect(m_banner, &RunStateBanner::windowRequested, m_session, &ExplorerSession::setTokenWindow);
    layout->addWidget(m_banner);
    auto* splitter = new QSplitter(Qt::Horizontal, central);
    m_gridPane = new GridPane(m_session, splitter);
    connect(m_gridPane, &GridPane::headActivated, this, &MainWindow::openHead);
    connect(m_gridPane, &GridPane::statusMessage, this,
            [this](const QString& message) { statusBar()->showMessage(message, 10000); });
    splitter->addWidget(m_gridPane);
    buildTabs(splitter);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    layout->addWidget(splitter, 1);
    setCentralWidget(central);

    m_readouts = new StatusReadouts(statusBar(), m_progress, m_session);
    connect(heatmap(), &HeatmapWidget::hoverChanged, m_readouts->hoverLabel(), &QLabel::setText);
    connectLoading();
    m_menus = new MainMenus(this, m_openInLesson);
    {
        BackendKind kind = BackendKind::Auto;
        parseBackendKind(AppSettings().computeBackend(), &kind);
        m_session->startBackend(kind); // not written back: opening a window changes no setting
    }
    // The comparison's second model is any real model of the list.
    connect(m_session->models(), &ModelList::rowsInserted, this, &MainWindow::updateComparisonChoices);
    connect(m_session->models(), &ModelList::rowsRemoved, this, &MainWindow::updateComparisonChoices);
    m_session->populate();
    m_guidedModels = new GuidedModelList(m_tabs);
    m_tabs->addTab(m_guidedModels, QString());
    connect(m_guidedModels, &GuidedModelList::downloadRequested, this,
            [this](const QString& repo, const QString& file) { openGetModelDialog(repo, file); });
    onRetranslate([this] { m_tabs->setTabText(m_tabs->indexOf(m_guidedModels), tr("Get a model")); });
    applyStyle();
    // A built-in model when there is one, else the worked example.
    const int workedExample = findModel(WorkedExampleEngine().displayName());
    if (!m_session->models()->at(0).folder.isEmpty() && selectEngine(0))
        setTexts(exampleSentences().front());
    else
        selectEngine(workedExample);
    if (m_session->onlyBuiltinModels())
        m_tabs->setCurrentWidget(m_guidedModels); // the toys alone: show what to get
    resize(1280, 800);
    m_features = new MainWindowFeatures(this);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildTabs(QWidget* parent)
{
    m_tabs = new QTabWidget(parent);
    m_openInLesson = new QAction(this);
    m_openInLesson->setObjectName(QStringLiteral("openInLessonAction"));
    m_openInLesson->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    m_openInLesson->setEnabled(false);
    connect(m_openInLesson, &QAction::triggered, this, [this] { openInLesson(); });
    m_heatmapTab = new HeatmapTab(m_openInLesson, m_tabs);
    connect(m_heatmapTab, &HeatmapTab::styleChosen, this, &MainWindow::applyStyle);
    connect(m_heatmapTab, &HeatmapTab::wordLevelToggled, this, [this] { openHead(m_layer, m_head); });
    m_tabs->addTab(m_heatmapTab, QString());
    m_comparison = new ComparisonWidget(m_tabs);
    m_tabs->addTab(m_comparison, QString());
    m_arcs = new ArcWidget(m_tabs);
    m_tabs->addTab(m_arcs, QString());
    m_statisticsTab = new StatisticsTab(m_tabs);
    connect(m_statisticsTab, &StatisticsTab::headActivated, this, &MainWindow::openHead);
    connect(m_statisticsTab, &StatisticsTab::thresholdsChanged, this,
            [this] { grid()->setStats(m_statisticsTab->model()->stats()); });
    m_tabs->addTab(m_statisticsTab, QString());
    m_generateTab = new GenerateTab([this] { return textAEdit()->toPlainText(); }, m_tabs);
    m_tabs->addTab(m_generateTab, QString());
    m_streamingTab = new StreamingTab(m_tabs);
    m_tabs->addTab(m_streamingTab, QString());
    m_flow = new FlowView(m_tabs);
    connect(m_session, &ExplorerSession::measureChanged, m_flow, [this](AttentionMeasure measure) {
        m_flow->followMeasure(measure == AttentionMeasure::Contribution);
    });
    m_tabs->addTab(m_flow, QString());
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::placeGridPane);
    connect(m_comparison, &ComparisonWidget::modeChanged, this, &MainWindow::placeGridPane);
    onRetranslate([this] {
        m_tabs->setTabText(0, tr("Heatmap"));
        m_tabs->setTabText(1, tr("Compare heads"));
        m_tabs->setTabText(2, tr("Arcs"));
        m_tabs->setTabText(3, tr("Statistics"));
        m_tabs->setTabText(4, tr("Generate"));
        m_tabs->setTabText(5, tr("Streaming"));
        m_tabs->setTabText(6, tr("Flow"));
        m_tabs->setTabToolTip(6, tr("Attention rollout and the residual stream's size per layer and token"));
    });
}

// A model loads on a worker: progress and Cancel in the status bar, the picker back on the current model
// when it fails or is cancelled.
void MainWindow::connectLoading()
{
    connect(m_progress, &ProgressPanel::cancelRequested, this, [this] {
        if (isLoadingModel()) {
            modelLoader()->cancel(); // ModelLoader::cancelled ends the loading
            return;
        }
        m_session->cancelRun();
        m_progress->finish();
        m_readouts->setTimeText(tr("cancelled"));
    });
    connect(modelLoader(), &ModelLoader::progress, this,
            [this](quint64, ModelLoader::Stage stage, qint64 done, qint64 total) {
                if (!isLoadingModel()) return;
                const QString name = modelBox()->itemText(m_session->loadingIndex());
                if (stage == ModelLoader::Stage::Opening)
                    m_progress->showProgress(tr("Loading %1: opening…").arg(name), 0, 0);
                else
                    m_progress->showProgress(
                        tr("Loading %1: reading weights, %2 of %3")
                            .arg(name, formatBytes(done, QLocale()), formatBytes(total, QLocale())),
                        done, total);
            });
    connect(m_session, &ExplorerSession::loadingStarted, this,
            [this](int row) { modelBox()->setCurrentIndex(row); });
    connect(m_session, &ExplorerSession::loadingFinished, m_progress, &ProgressPanel::finish);
    connect(m_session, &ExplorerSession::loadingAbandoned, m_progress, &ProgressPanel::finish);
    connect(m_session, &ExplorerSession::loadingEnded, this, [this](const QString& message) {
        m_progress->finish();
        modelBox()->setCurrentIndex(std::max(0, m_session->currentIndex()));
        m_inputBar->showModelDetails(m_session->currentIndex());
        if (!message.isEmpty()) showFailure(message);
    });
    // After the session's own handler (connected first), which ends the loading.
    connect(modelLoader(), &ModelLoader::cancelled, this, [this](quint64, const QString& folder) {
        m_readouts->setTimeText(tr("loading %1 cancelled").arg(QFileInfo(folder).fileName()));
    });
}

int MainWindow::addEngine(std::shared_ptr<const AttentionEngine> engine)
{
    return m_session->models()->addEngine(std::move(engine));
}

int MainWindow::addModelFolder(const QString& folder, const QString& name)
{
    return m_session->models()->addFolder(folder, name);
}

int MainWindow::modelCount() const
{
    return m_session->models()->count();
}

ModelInfo MainWindow::modelInfo(int index) const
{
    return m_session->models()->contains(index) ? m_session->models()->at(index).info : ModelInfo{};
}

// The real models (folders and .gguf files) the comparison can take as its second model.
void MainWindow::updateComparisonChoices()
{
    QVector<ComparisonWidget::ModelChoice> choices;
    const ModelList* models = m_session->models();
    for (int i = 0; i < models->count(); ++i)
        if (!models->at(i).folder.isEmpty()) choices.push_back({models->at(i).name, models->at(i).folder});
    m_comparison->setModelChoices(choices);
}

void MainWindow::openGgufFile()
{
    const QString file = QFileDialog::getOpenFileName(this, tr("Open GGUF file"), QString(),
                                                      tr("llama.cpp GGUF files (*.gguf);;All files (*)"));
    if (!file.isEmpty()) openModelFolder(file);
}

int MainWindow::findModel(const QString& name) const
{
    return m_session->models()->find(name);
}

CorpusWindow* MainWindow::openCorpusCensus()
{
    if (!m_census) {
        m_census = new CensusLauncher(this);
        connect(m_census, &CensusLauncher::openInExplorer, this, [this](const QString& a, const QString& b) {
            setTexts(a, b);
            raise();
            activateWindow();
        });
    }
    QString message;
    CorpusWindow* window = m_census->open(modelFolder(m_session->currentIndex()), &message);
    if (!window) statusBar()->showMessage(message);
    return window;
}

QString MainWindow::modelFolder(int index) const
{
    return m_session->models()->contains(index) ? m_session->models()->at(index).folder : QString();
}

std::shared_ptr<const AttentionEngine> MainWindow::currentEngine() const
{
    return m_session->currentEngine();
}

bool MainWindow::selectEngine(int index)
{
    m_startFailure.clear(); // a model of the user's choice: the start's failure is over
    // A model chosen from the guided list's tab is shown, not the list again (at start the constructor
    // makes the list current after this call when only the built-in models are there).
    if (m_guidedModels && m_tabs->currentWidget() == m_guidedModels && m_session->models()->contains(index))
        m_tabs->setCurrentIndex(0);
    return m_session->select(index);
}

void MainWindow::openModelFolder(const QString& path)
{
    m_startFailure.clear();
    m_session->openModel(path);
}

GetModelDialog* MainWindow::openGetModelDialog(const QString& repo, const QString& ggufFile)
{
    if (!m_getModelDialog) {
        m_getModelDialog = new GetModelDialog(hub::HubSettings::fromEnvironment(), this);
        connect(m_getModelDialog, &GetModelDialog::modelReady, this, &MainWindow::openModelFolder);
    }
    m_getModelDialog->present(repo, ggufFile);
    return m_getModelDialog;
}

QString MainWindow::ablationUnavailableReason() const
{
    return m_session->ablationUnavailableReason();
}

AttentionMeasure MainWindow::measure() const
{
    return m_session->measure();
}

void MainWindow::setTokenWindow(const TokenWindow& window)
{
    m_session->setTokenWindow(window);
}

TokenWindow MainWindow::tokenWindow() const
{
    return m_session->tokenWindow();
}

void MainWindow::showFailure(const QString& message)
{
    m_banner->showFailure(message);
}

LessonWindow* MainWindow::openInLesson()
{
    const auto result = currentResult();
    QString message;
    LessonWindow* window = lessonLauncher()->openHead(result.get(), m_layer, m_head, &message);
    if (!message.isEmpty()) statusBar()->showMessage(message, 10000);
    return window;
}

void MainWindow::applyHeatmapStyle()
{
    const int n = heatmap()->data().rows;
    HeatmapStyle heatmapStyle = m_style;
    heatmapStyle.showValues = n <= 12;
    heatmapStyle.fontPointSize = n <= 12 ? 11 : 9;
    if (m_presenting)
        heatmapStyle = PresenterMode::presenterStyle(heatmapStyle); // projector: large labels, dark page
    heatmap()->setStyle(heatmapStyle);
    HeatmapStyle zoomStyle = heatmapStyle; // the zoom window's block is small: values are not written
    zoomStyle.showValues = false;
    m_heatmapTab->zoomWindow()->setStyle(zoomStyle);
}

HeadStatsModel* MainWindow::statsModel() const
{
    return m_statisticsTab->model();
}

QSortFilterProxyModel* MainWindow::statsProxy() const
{
    return m_statisticsTab->proxy();
}

QTableView* MainWindow::statsTable() const
{
    return m_statisticsTab->table();
}

LayerChartWidget* MainWindow::layerChart() const
{
    return m_statisticsTab->chart();
}

std::vector<std::shared_ptr<const AttentionEngine>> MainWindow::engines() const
{
    std::vector<std::shared_ptr<const AttentionEngine>> out;
    for (int i = 0; i < modelCount(); ++i)
        out.push_back(m_session->models()->at(i).engine);
    return out;
}

void MainWindow::setComputeBackend(BackendKind kind)
{
    AppSettings().setComputeBackend(backendKindName(kind));
    m_session->startBackend(kind);
}

QString MainWindow::computeBackendDescription() const
{
    const auto backend = m_session->backend();
    return backend ? backendDescription(*backend) : cpuBackendDescription();
}

void MainWindow::onRetranslate(std::function<void()> retranslate)
{
    retranslate();
    m_retranslators.push_back(std::move(retranslate));
}

void MainWindow::addModelListFolder(const QString& folder)
{
    const int added = m_session->addModelListFolder(folder);
    m_readouts->setTimeText(
        tr("%n model(s) added from %1", nullptr, added).arg(QDir::toNativeSeparators(folder)));
}

void MainWindow::showCurrentModel(int index, bool switched)
{
    const auto engine = m_session->currentEngine();
    m_inputBar->showModel(index, *engine);
    if (switched && currentResult()) {
        // Until the new model's result arrives the views still show the old one: say so.
        heatmap()->setStale(tr("Computing on %1…").arg(engine->displayName()));
        m_gridPane->setStale(true);
        setWindowTitle(tr("AttnScope — %1 — computing…").arg(engine->displayName()));
    }
    m_comparison->setEngine(engine);
    if (switched) {
        m_generateTab->setEngine(engine);
        m_streamingTab->setEngine(engine);
        lessonLauncher()->setLoadedEngine(*engine);
    }
}

void MainWindow::showStartFailure(const QString& message)
{
    m_startFailure = message;
    const auto engine = currentEngine();
    m_banner->showFailure(
        engine ? tr("%1 — showing %2 instead; choose a model above.").arg(message, engine->displayName())
               : message);
}

void MainWindow::addNotice(QWidget* notice)
{
    auto* layout = static_cast<QVBoxLayout*>(centralWidget()->layout());
    layout->insertWidget(layout->indexOf(m_banner) + 1, notice);
}

void MainWindow::setTexts(const QString& textA, const QString& textB)
{
    m_inputBar->setTexts(textA, textB);
}

QMenu* MainWindow::headContextMenu(int layer, int head)
{
    return m_gridPane->headContextMenu(layer, head);
}

void MainWindow::ablateHeads(const std::vector<HeadAblation>& heads, const QString& description)
{
    m_gridPane->ablateHeads(heads, description);
}

void MainWindow::scanAllHeads(AblationMode mode)
{
    m_gridPane->scanAllHeads(mode);
}

void MainWindow::clearAblation()
{
    m_session->clearAblation();
}

void MainWindow::setMeasure(AttentionMeasure measure)
{
    m_gridPane->setMeasure(measure);
}

void MainWindow::findSinkAndNoOpHeads()
{
    m_gridPane->findSinkAndNoOpHeads();
}

void MainWindow::showResult(const std::shared_ptr<const ExplorerResult>& result, bool sameAblatedInput)
{
    statusBar()->clearMessage();
    heatmap()->setStale(QString());
    if (result->run.totalTokens > 0)
        m_banner->showWindow(result->run.maps->queries(), result->run.totalTokens, result->run.keptFromEnd);
    else
        m_banner->clear();
    if (!m_startFailure.isEmpty()) showStartFailure(m_startFailure);
    m_readouts->showRun(*result);
    m_statisticsTab->showResult(*result);
    m_gridPane->showResult(result, m_statisticsTab->model()->stats(), sameAblatedInput);
    m_layer = std::min(m_layer, result->analysis.layers - 1);
    m_head = std::min(m_head, result->analysis.heads - 1);
    m_comparison->setFocusHead(m_layer, m_head);
    m_comparison->setResult(result);
    m_arcs->setResult(result);
    m_flow->setResult(result);
    m_heatmapTab->setTokenCount(result->run.maps ? result->run.maps->queries() : 0);
    openHead(m_layer, m_head);
    setWindowTitle(tr("AttnScope — %1").arg(result->modelName));
}

void MainWindow::showRunFailure(const QString& message, int limit)
{
    clearViews(message);
    if (limit > 0)
        m_banner->showTooLong(message, limit);
    else
        m_banner->showFailure(message);
    const auto engine = currentEngine();
    setWindowTitle(tr("AttnScope — %1 — failed").arg(engine ? engine->displayName() : QString()));
    m_readouts->showFailedRun();
    statusBar()->clearMessage();
}

void MainWindow::clearViews(const QString& reason)
{
    heatmap()->clear(reason);
    m_heatmapTab->zoomWindow()->clear();
    m_gridPane->clear();
    m_statisticsTab->clear();
    m_comparison->setResult(nullptr);
    m_arcs->setResult(nullptr);
    m_flow->setResult(nullptr);
    m_openInLesson->setEnabled(false);
}

void MainWindow::openHead(int layer, int head)
{
    const auto result = currentResult();
    if (!result || layer < 0 || head < 0 || layer >= result->analysis.layers ||
        head >= result->analysis.heads)
        return;
    m_layer = layer;
    m_head = head;
    grid()->select(layer, head);
    m_comparison->setFocusHead(layer, head);
    m_statisticsTab->selectHead(layer, head);
    m_openInLesson->setEnabled(result->run.capture != nullptr);
    const int tokens = int(result->run.tokens.size());
    showHead(*heatmap(), result, layer, head,
             m_heatmapTab->wordLevel() || (m_presenting && PresenterMode::showsWords(tokens)));
    m_heatmapTab->zoomWindow()->setHead(result, layer, head);
    applyHeatmapStyle();
    // Arcs: this head, then the heads the user picked in the comparison tab (each in its own colour), at
    // most 4; not the heads the comparison shows by default beside the open one (issue 36).
    std::vector<std::pair<int, int>> arcHeads{{layer, head}};
    for (const auto& other : m_comparison->pickedHeads())
        if (std::find(arcHeads.begin(), arcHeads.end(), other) == arcHeads.end() && arcHeads.size() < 4)
            arcHeads.push_back(other);
    m_arcs->setHeads(arcHeads);
}

void MainWindow::placeGridPane()
{
    // Generation and streaming have their own grid and charts, the comparison's three-pane modes their own
    // head pickers and need the width (issue 36): the explorer's grid pane makes room. Presenter mode shows
    // no grid at all.
    const QWidget* page = m_tabs->currentWidget();
    m_gridPane->setVisible(!m_presenting && page != m_generateTab && page != m_streamingTab &&
                           !(page == m_comparison && m_comparison->wantsFullWidth()));
}

void MainWindow::setPresenting(bool presenting)
{
    m_presenting = presenting;
    // The classroom screen is the view: the input bar, the grid, the heatmap's controls and read-out line
    // and the status bar make room (the presenter's strip has the sentence, the head and the read-out).
    // The tabs stay, in large type. The banner stays: a failure is said.
    m_inputBar->setVisible(!presenting);
    placeGridPane(); // leaving on a tab that has no room for the grid (a three-pane comparison) keeps it
                     // hidden
    m_heatmapTab->setControlsVisible(!presenting);
    statusBar()->setVisible(!presenting);
    if (presenting) m_tabs->setCurrentIndex(0);
    openHead(m_layer, m_head); // beyond PresenterMode::kPieceLabelLimit tokens: words
    applyHeatmapStyle();
}

void MainWindow::applyStyle()
{
    m_style = m_heatmapTab->chosenStyle();
    applyHeatmapStyle();
    grid()->setColorMap(m_style.colorMap);
    grid()->setScale(m_style.scale);
    HeatmapStyle compareStyle = m_style;
    compareStyle.showValues = true;
    m_comparison->setStyle(compareStyle);
    m_flow->setStyle(m_style);
}

QString MainWindow::textB() const
{
    return m_inputBar->textBEdit()->text();
}

QString MainWindow::backendStatus() const
{
    return m_readouts->backendStatus();
}

QString MainWindow::statusText() const
{
    return m_readouts->statusText();
}

void MainWindow::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) {
        for (const auto& retranslate : m_retranslators)
            retranslate();
        if (currentResult()) m_readouts->showRun(*currentResult());
    }
    QMainWindow::changeEvent(event);
}

} // namespace attnscope
