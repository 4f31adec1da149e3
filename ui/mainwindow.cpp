#include "mainwindow.h"

#include "analysis/sinkverdict.h"
#include "attention/attentionmaps.h"
#include "census/corpuswindow.h"
#include "explorer/ablationrunner.h"
#include "explorer/arcwidget.h"
#include "explorer/attentionmeasure.h"
#include "explorer/backenddescription.h"
#include "explorer/comparisonwidget.h"
#include "explorer/examplesentences.h"
#include "explorer/explorersession.h"
#include "explorer/flowview.h"
#include "explorer/guidedmodellist.h"
#include "explorer/headgridwidget.h"
#include "explorer/headheatmap.h"
#include "explorer/headstatsmodel.h"
#include "explorer/heatmapwidget.h"
#include "explorer/layerchartwidget.h"
#include "explorer/modeldetails.h"
#include "explorer/modelloader.h"
#include "explorer/modelpickerdelegate.h"
#include "explorer/predictionswidget.h"
#include "explorer/progresspanel.h"
#include "explorer/runstatebanner.h"
#include "explorer/statisticstab.h"
#include "explorer/syntheticengine.h"
#include "explorer/transformerengine.h"
#include "explorer/workedexampleengine.h"
#include "generation/generatetab.h"
#include "generation/kvcachesize.h"
#include "generation/streamingtab.h"
#include "hub/getmodeldialog.h"
#include "lesson/lessonlauncher.h"
#include "lesson/lessonview.h"
#include "lesson/lessonwindow.h"
#include "mainwindowfeatures.h"
#include "model/attentioncapture.h"
#include "model/modelcatalog.h"
#include "model/transformermodel.h"
#include "presenter/presentermode.h"
#include "settings/appsettings.h"

#include <QAction>
#include <QActionGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

namespace attnscope {

namespace {
constexpr int kColorByLabel = -1; // the grid colour box's "Label" entry

// The chosen model's KV cache for the lesson's calculator: decoders only (an encoder keeps no cache, a demo
// has no model).
std::optional<KvCacheShape> kvCacheShapeOf(const AttentionEngine& engine)
{
    const auto* transformer = dynamic_cast<const TransformerEngine*>(&engine);
    if (!transformer || !transformer->model().config().isDecoder()) return std::nullopt;
    return kvCacheShape(transformer->model().config(), engine.displayName());
}
} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(tr("AttnScope"));
    setAcceptDrops(true);
    m_session = new ExplorerSession(this);
    AnalysisRunner* runner = m_session->runner();
    connect(runner, &AnalysisRunner::started, this, [this] {
        m_timeLabel->setText(tr("computing…"));
        m_runClock.start();
    });
    m_progress = new ProgressPanel(this);
    // A pass's progress shows once it has run a moment: a quick pass never flashes a bar.
    connect(runner, &AnalysisRunner::progress, this, [this](quint64, int done, int total) {
        if (!isLoadingModel() && m_runClock.isValid() && m_runClock.elapsed() > 250)
            m_progress->showProgress(tr("Computing: layer %1 of %2").arg(done).arg(total), done, total);
    });
    connect(m_session, &ExplorerSession::resultChanged, this,
            [this](std::shared_ptr<const ExplorerResult> result, bool sameAblatedInput) {
                showResult(std::move(result), sameAblatedInput);
                if (!isLoadingModel()) m_progress->finish();
            });
    connect(m_session, &ExplorerSession::runFailed, this, [this](const QString& message, int limit) {
        showRunFailure(message, limit);
        if (!isLoadingModel()) m_progress->finish();
    });
    connect(m_progress, &ProgressPanel::cancelRequested, this, [this] {
        if (isLoadingModel()) {
            modelLoader()->cancel(); // ModelLoader::cancelled ends the loading
            return;
        }
        m_session->cancelRun();
        m_progress->finish();
        m_timeLabel->setText(tr("cancelled"));
    });
    connect(modelLoader(), &ModelLoader::progress, this,
            [this](quint64, ModelLoader::Stage stage, qint64 done, qint64 total) {
                if (!isLoadingModel()) return;
                const QString name = m_modelBox->itemText(m_session->loadingIndex());
                if (stage == ModelLoader::Stage::Opening)
                    m_progress->showProgress(tr("Loading %1: opening…").arg(name), 0, 0);
                else
                    m_progress->showProgress(
                        tr("Loading %1: reading weights, %2 of %3")
                            .arg(name, formatBytes(done, QLocale()), formatBytes(total, QLocale())),
                        done, total);
            });
    connect(m_session, &ExplorerSession::loadingStarted, this,
            [this](int row) { m_modelBox->setCurrentIndex(row); });
    connect(m_session, &ExplorerSession::loadingFinished, m_progress, &ProgressPanel::finish);
    connect(m_session, &ExplorerSession::loadingAbandoned, m_progress, &ProgressPanel::finish);
    connect(m_session, &ExplorerSession::loadingEnded, this, [this](const QString& message) {
        m_progress->finish();
        m_modelBox->setCurrentIndex(std::max(0, m_session->currentIndex()));
        showModelDetails(m_session->currentIndex());
        if (!message.isEmpty()) showFailure(message);
    });
    // After the session's own handler (connected first), which ends the loading.
    connect(modelLoader(), &ModelLoader::cancelled, this, [this](quint64, const QString& folder) {
        m_timeLabel->setText(tr("loading %1 cancelled").arg(QFileInfo(folder).fileName()));
    });
    connect(m_session, &ExplorerSession::selectFailed, this, [this](const QString& message) {
        showFailure(message);
        m_modelBox->setCurrentIndex(std::max(0, m_session->currentIndex()));
    });
    connect(m_session, &ExplorerSession::notAModel, this, &MainWindow::showFailure);
    connect(m_session, &ExplorerSession::currentModelChanged, this, &MainWindow::showCurrentModel);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(6, 6, 6, 0);
    m_inputBar = buildInputBar();
    layout->addWidget(m_inputBar);
    m_banner = new RunStateBanner(central);
    connect(m_banner, &RunStateBanner::windowRequested, m_session, &ExplorerSession::setTokenWindow);
    layout->addWidget(m_banner);
    auto* splitter = new QSplitter(Qt::Horizontal, central);
    m_gridPane = buildGridPane();
    splitter->addWidget(m_gridPane);
    m_tabs = new QTabWidget(splitter);
    m_tabs->addTab(buildHeatmapTab(), QString());
    m_comparison = new ComparisonWidget(m_tabs);
    m_tabs->addTab(m_comparison, QString());
    m_arcs = new ArcWidget(m_tabs);
    m_tabs->addTab(m_arcs, QString());
    m_statisticsTab = new StatisticsTab(m_tabs);
    connect(m_statisticsTab, &StatisticsTab::headActivated, this, &MainWindow::openHead);
    connect(m_statisticsTab, &StatisticsTab::thresholdsChanged, this,
            [this] { m_grid->setStats(m_statisticsTab->model()->stats()); });
    m_tabs->addTab(m_statisticsTab, QString());
    m_generateTab = new GenerateTab([this] { return m_textA->toPlainText(); }, m_tabs);
    m_tabs->addTab(m_generateTab, QString());
    m_streamingTab = new StreamingTab(m_tabs);
    m_tabs->addTab(m_streamingTab, QString());
    m_flow = new FlowView(m_tabs);
    m_tabs->addTab(m_flow, QString());
    // Generation and streaming have their own grid and charts: the explorer's grid pane makes room.
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int index) {
        const QWidget* page = m_tabs->widget(index);
        if (!m_presenting) m_gridPane->setVisible(page != m_generateTab && page != m_streamingTab);
    });
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
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    layout->addWidget(splitter, 1);
    setCentralWidget(central);

    m_tokensLabel = new QLabel(this);
    m_backendLabel = new QLabel(this);
    m_timeLabel = new QLabel(this);
    m_hoverLabel = new QLabel(this);
    m_noticeLabel = new QLabel(this);
    m_noticeLabel->setObjectName(QStringLiteral("backendNotice"));
    m_noticeLabel->setVisible(false);
    statusBar()->addWidget(m_hoverLabel, 1);
    statusBar()->addPermanentWidget(m_noticeLabel);
    statusBar()->addPermanentWidget(m_progress);
    // The read-outs are separate facts: a divider between them, or "19 tokens  backend: CPU · …" reads as one
    // phrase.
    auto addDivided = [this](QLabel* label, const QString& name) {
        auto* divider = new QFrame(this);
        divider->setObjectName(name + QStringLiteral("Divider"));
        divider->setFrameShape(QFrame::VLine);
        divider->setFrameShadow(QFrame::Sunken);
        statusBar()->addPermanentWidget(divider);
        label->setObjectName(name);
        statusBar()->addPermanentWidget(label);
    };
    statusBar()->addPermanentWidget(m_tokensLabel);
    addDivided(m_backendLabel, QStringLiteral("backendLabel"));
    addDivided(m_timeLabel, QStringLiteral("timeLabel"));
    connect(m_heatmap, &HeatmapWidget::hoverChanged, m_hoverLabel, &QLabel::setText);
    connect(m_heatmap, &HeatmapWidget::hoverChanged, m_heatmapReadout, &QLabel::setText);

    buildMenus();
    connect(m_session, &ExplorerSession::backendChanged, this, &MainWindow::showBackend);
    connect(m_session, &ExplorerSession::backendNoticeRaised, this, [this](const QString& message) {
        m_noticeLabel->setText(message);
        m_noticeLabel->setVisible(true);
    });
    {
        BackendKind kind = BackendKind::Auto;
        parseBackendKind(AppSettings().computeBackend(), &kind);
        m_session->startBackend(kind); // not written back: opening a window changes no setting
    }
    m_modelBox->insertSeparator(0);
    m_modelBox->addItem(QString());
    m_modelBox->addItem(QString());
    onRetranslate([this] {
        m_modelBox->setItemText(m_modelBox->count() - 2, tr("Open folder…"));
        m_modelBox->setItemText(m_modelBox->count() - 1, tr("Open GGUF file…"));
    });
    // The picker shows the session's model list, above its separator and the "Open …" entries.
    connect(
        m_session->models(), &ModelList::rowsInserted, this, [this](const QModelIndex&, int first, int last) {
            const ModelList* models = m_session->models();
            for (int row = first; row <= last; ++row) {
                const QModelIndex index = models->index(row);
                m_modelBox->insertItem(row, models->data(index).toString());
                m_modelBox->setItemData(row, models->data(index, Qt::ToolTipRole), Qt::ToolTipRole);
                if (const QVariant details = models->data(index, ModelList::kDetailsRole); details.isValid())
                    m_modelBox->setItemData(row, details, ModelPickerDelegate::kModelDetailsRole);
            }
            updateComparisonChoices();
        });
    connect(m_session->models(), &ModelList::rowsRemoved, this,
            [this](const QModelIndex&, int first, int last) {
                for (int row = last; row >= first; --row)
                    m_modelBox->removeItem(row);
                updateComparisonChoices();
            });
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

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(QString());
    onRetranslate([file] { file->setTitle(tr("&File")); });
    QAction* openAction = file->addAction(QString(), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open model folder"));
        if (!dir.isEmpty()) openModelFolder(dir);
    });
    QAction* openGgufAction = file->addAction(QString(), this, &MainWindow::openGgufFile);
    QAction* getModelAction = file->addAction(QString(), this, [this] { openGetModelDialog(); });
    getModelAction->setObjectName(QStringLiteral("getModel"));
    onRetranslate([getModelAction] { getModelAction->setText(tr("Get a model…")); });
    openGgufAction->setObjectName(QStringLiteral("openGguf"));
    QAction* addFolderAction = file->addAction(QString(), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Add a folder of models to the list"));
        if (!dir.isEmpty()) addModelListFolder(dir);
    });
    addFolderAction->setObjectName(QStringLiteral("addModelListFolder"));
    QAction* censusAction = file->addAction(QString(), this, [this] { openCorpusCensus(); });
    censusAction->setObjectName(QStringLiteral("corpusCensus"));
    onRetranslate([censusAction] { censusAction->setText(tr("Corpus census…")); });
    file->addSeparator();
    QAction* quitAction = file->addAction(QString(), QKeySequence::Quit, this, &QWidget::close);
    onRetranslate([openAction, openGgufAction, addFolderAction, quitAction] {
        openAction->setText(tr("Open model folder…"));
        openGgufAction->setText(tr("Open GGUF file…"));
        addFolderAction->setText(tr("Add folder to the model list (GGUF files, model folders)…"));
        quitAction->setText(tr("Quit"));
    });

    QMenu* examples = menuBar()->addMenu(QString());
    examples->setObjectName(QStringLiteral("examplesMenu"));
    for (const QString& sentence : exampleSentences()) {
        QAction* action = examples->addAction(sentence, this, [this, sentence] { setTexts(sentence); });
        if (sentence.size() > 70)
            onRetranslate([action] { action->setText(tr("Long paragraph (attention sinks)")); });
    }
    onRetranslate([examples] { examples->setTitle(tr("E&xamples")); });

    m_viewMenu = menuBar()->addMenu(QString());
    m_viewMenu->setObjectName(QStringLiteral("viewMenu"));
    QAction* fitAction = m_viewMenu->addAction(QString(), QKeySequence(Qt::CTRL | Qt::Key_0), m_heatmap,
                                               &HeatmapWidget::fitToView);
    QAction* discount = m_viewMenu->addAction(QString());
    onRetranslate([this, fitAction, discount] {
        m_viewMenu->setTitle(tr("&View"));
        fitAction->setText(tr("Fit heatmap"));
        discount->setText(tr("Discount special tokens"));
    });
    discount->setCheckable(true);
    connect(discount, &QAction::toggled, m_discount, &QCheckBox::setChecked);
    connect(m_discount, &QCheckBox::toggled, discount, &QAction::setChecked);

    // View > Compute backend: where real models compute attention.
    m_computeMenu = m_viewMenu->addMenu(QString());
    m_computeMenu->setObjectName(QStringLiteral("computeMenu"));
    auto* backends = new QActionGroup(m_computeMenu);
    for (const BackendKind kind :
         {BackendKind::Auto, BackendKind::Cpu, BackendKind::Vulkan, BackendKind::OpenGL}) {
        QAction* action = m_computeMenu->addAction(QString(), this, [this, kind] {
            if (kind != m_session->backendChoice()) setComputeBackend(kind);
        });
        action->setObjectName(QStringLiteral("backend-") + backendKindName(kind));
        action->setData(int(kind));
        action->setCheckable(true);
        backends->addAction(action);
        onRetranslate([action, kind] {
            switch (kind) {
            case BackendKind::Auto:
                action->setText(tr("Auto (a hardware GPU if there is one, else the CPU)"));
                break;
            case BackendKind::Cpu:
                action->setText(tr("CPU"));
                break;
            case BackendKind::Vulkan:
                action->setText(QStringLiteral("Vulkan"));
                break;
            case BackendKind::OpenGL:
                action->setText(QStringLiteral("OpenGL"));
                break;
            }
        });
    }
    onRetranslate([this] { m_computeMenu->setTitle(tr("Compute backend")); });

    m_lessonMenu = menuBar()->addMenu(QString());
    m_lessonMenu->setObjectName(QStringLiteral("lessonMenu"));
    m_lessons = new LessonLauncher(this, m_lessonMenu, m_openInLesson);

    m_exportMenu = menuBar()->addMenu(QString());
    m_exportMenu->setObjectName(QStringLiteral("exportMenu"));
    m_languageMenu = menuBar()->addMenu(QString());
    m_languageMenu->setObjectName(QStringLiteral("languageMenu"));
    onRetranslate([this] {
        m_exportMenu->setTitle(tr("E&xport"));
        m_languageMenu->setTitle(tr("&Language"));
    });
}

QWidget* MainWindow::buildInputBar()
{
    auto* bar = new QWidget(this);
    auto* form = new QFormLayout(bar);
    form->setContentsMargins(0, 0, 0, 0);
    auto* modelRow = new QHBoxLayout;
    m_modelBox = new QComboBox(bar);
    m_modelBox->setMinimumContentsLength(36);
    m_modelBox->setItemDelegate(new ModelPickerDelegate(m_modelBox));
    modelRow->addWidget(m_modelBox, 1);
    m_modelDetails = new QLabel(bar);
    m_modelDetails->setObjectName(QStringLiteral("modelDetails"));
    modelRow->addWidget(m_modelDetails);
    connect(m_modelBox, qOverload<int>(&QComboBox::highlighted), this, &MainWindow::showModelDetails);
    auto* open = new QPushButton(bar);
    modelRow->addWidget(open);
    auto* modelLabel = new QLabel(bar);
    form->addRow(modelLabel, modelRow);
    m_textA = new QPlainTextEdit(bar);
    m_textA->setFixedHeight(m_textA->fontMetrics().lineSpacing() * 3 + 12);
    auto* textALabel = new QLabel(bar);
    form->addRow(textALabel, m_textA);
    m_fixedTextNote = new QLabel(bar);
    m_fixedTextNote->setObjectName(QStringLiteral("fixedTextNote"));
    m_fixedTextNote->setWordWrap(true);
    m_fixedTextNote->setVisible(false);
    form->addRow(QString(), m_fixedTextNote);
    m_textB = new QLineEdit(bar);
    auto* textBLabel = new QLabel(bar);
    form->addRow(textBLabel, m_textB);
    onRetranslate([this, open, modelLabel, textALabel, textBLabel] {
        open->setText(tr("Open folder…"));
        modelLabel->setText(tr("Model:"));
        textALabel->setText(tr("Text A:"));
        textBLabel->setText(tr("Text B:"));
        m_textA->setPlaceholderText(tr("Type a sentence…"));
        m_fixedTextNote->setText(
            tr("The worked example has its own Q, K and V for these three words, so its text "
               "cannot change. Pick a model above to type your own text, or open it in "
               "Lesson ▸ Worked example."));
        m_textB->setPlaceholderText(tr("Optional second sentence (encoders: [SEP] between A and B)"));
    });

    connect(open, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open model folder"));
        if (!dir.isEmpty()) openModelFolder(dir);
    });
    connect(m_modelBox, qOverload<int>(&QComboBox::activated), this, [this](int index) {
        if (index >= modelCount()) { // the separator, "Open folder…" or "Open GGUF file…"
            m_modelBox->setCurrentIndex(m_session->currentIndex());
            if (index == m_modelBox->count() - 1) {
                openGgufFile();
                return;
            }
            const QString dir = QFileDialog::getExistingDirectory(this, tr("Open model folder"));
            if (!dir.isEmpty()) openModelFolder(dir);
            return;
        }
        selectEngine(index);
    });
    connect(m_textA, &QPlainTextEdit::textChanged, this,
            [this] { m_session->typeTextA(m_textA->toPlainText()); });
    connect(m_textB, &QLineEdit::textChanged, m_session, &ExplorerSession::typeTextB);
    // Texts set elsewhere (the session's own setTexts) show here; the window's setTexts sets them first.
    connect(m_session, &ExplorerSession::textsChanged, this, [this] {
        const QSignalBlocker a(m_textA), b(m_textB);
        if (m_textA->toPlainText() != m_session->textA()) m_textA->setPlainText(m_session->textA());
        if (m_textB->text() != m_session->textB()) m_textB->setText(m_session->textB());
    });
    return bar;
}

QWidget* MainWindow::buildGridPane()
{
    auto* pane = new QWidget(this);
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* measureRow = new QHBoxLayout;
    auto* measureLabel = new QLabel(pane);
    m_measureBox = new QComboBox(pane);
    m_measureBox->setObjectName(QStringLiteral("measureBox"));
    m_measureBox->addItem(QString(), int(AttentionMeasure::Weight));
    m_measureBox->addItem(QString(), int(AttentionMeasure::Contribution));
    m_measureNote = new QLabel(pane);
    m_measureNote->setObjectName(QStringLiteral("measureNote"));
    m_measureNote->setWordWrap(true);
    m_measureNote->setVisible(false);
    onRetranslate([this, measureLabel] {
        measureLabel->setText(tr("Measure:"));
        m_measureBox->setItemText(0, measureName(AttentionMeasure::Weight));
        m_measureBox->setItemText(1, measureName(AttentionMeasure::Contribution));
        m_measureBox->setToolTip(tr(
            "What every view shows: the attention weight α, or the contribution ‖αf(x)‖ of each key to the "
            "query's output (Kobayashi et al. 2020). Contributions are shown per row as shares of the row's "
            "total; the read-out gives the absolute size."));
        updateMeasureNote();
    });
    connect(m_measureBox, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this] { m_session->setMeasure(AttentionMeasure(m_measureBox->currentData().toInt())); });
    connect(m_session, &ExplorerSession::measureChanged, this, [this](AttentionMeasure measure) {
        const QSignalBlocker blocker(m_measureBox);
        m_measureBox->setCurrentIndex(m_measureBox->findData(int(measure)));
        updateMeasureNote();
    });
    measureRow->addWidget(measureLabel);
    measureRow->addWidget(m_measureBox, 1);
    layout->addLayout(measureRow);
    layout->addWidget(m_measureNote);
    auto* controls = new QHBoxLayout;
    m_sortBox = new QComboBox(pane);
    m_colorByBox = new QComboBox(pane);
    // Narrow when the pane is: the closed box elides its text, the list shows it whole.
    for (QComboBox* box : {m_sortBox, m_colorByBox}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(8);
    }
    m_sortBox->addItem(QString());
    m_colorByBox->addItem(QString());
    m_colorByBox->addItem(QString(), kColorByLabel);
    for (HeadMetric metric : allHeadMetrics()) {
        m_sortBox->addItem(QString(), int(metric));
        m_colorByBox->addItem(QString(), int(metric));
    }
    m_findSpecialHeads = new QPushButton(pane);
    m_findSpecialHeads->setObjectName(QStringLiteral("findSinkNoOpHeads"));
    m_findResult = new QLabel(pane);
    auto* sortLabel = new QLabel(pane);
    auto* colourLabel = new QLabel(pane);
    onRetranslate([this, sortLabel, colourLabel] {
        sortLabel->setText(tr("Sort:"));
        colourLabel->setText(tr("Colour:"));
        m_sortBox->setItemText(0, tr("Head order"));
        m_colorByBox->setItemText(0, tr("No colour"));
        m_colorByBox->setItemText(1, tr("Label"));
        const auto metrics = allHeadMetrics();
        for (size_t i = 0; i < metrics.size(); ++i) {
            m_sortBox->setItemText(int(i) + 1, headMetricDisplayName(metrics[i]));
            m_colorByBox->setItemText(int(i) + 2, headMetricDisplayName(metrics[i]));
        }
        m_findSpecialHeads->setText(tr("Find sink / no-op heads"));
        m_findSpecialHeads->setToolTip(tr("Ring every head labelled sink or no-op and open the first"));
    });
    controls->addWidget(sortLabel);
    controls->addWidget(m_sortBox, 1);
    controls->addWidget(colourLabel);
    controls->addWidget(m_colorByBox, 1);
    layout->addLayout(controls);
    auto* findRow = new QHBoxLayout;
    findRow->addWidget(m_findSpecialHeads);
    findRow->addWidget(m_findResult, 1);
    layout->addLayout(findRow);
    connect(m_findSpecialHeads, &QPushButton::clicked, this, &MainWindow::findSinkAndNoOpHeads);
    // The grid scrolls when the pane is too small for thumbnails that carry every head's number.
    auto* gridScroll = new QScrollArea(pane);
    gridScroll->setObjectName(QStringLiteral("headGridScroll"));
    gridScroll->setFrameShape(QFrame::NoFrame);
    gridScroll->setWidgetResizable(true);
    m_grid = new HeadGridWidget(gridScroll);
    gridScroll->setWidget(m_grid);
    layout->addWidget(gridScroll, 1);
    // Ablation scan: every head switched off once, the grid coloured by the prediction's KL.
    auto* scanRow = new QHBoxLayout;
    m_scanButton = new QPushButton(pane);
    m_scanButton->setObjectName(QStringLiteral("scanHeadsButton"));
    m_scanProgress = new QProgressBar(pane);
    m_scanProgress->setObjectName(QStringLiteral("scanProgress"));
    m_scanProgress->setVisible(false);
    m_scanCancel = new QPushButton(pane);
    m_scanCancel->setObjectName(QStringLiteral("scanCancel"));
    m_scanCancel->setVisible(false);
    m_scanNote = new QLabel(pane);
    m_scanNote->setObjectName(QStringLiteral("scanNote"));
    scanRow->addWidget(m_scanButton);
    scanRow->addWidget(m_scanProgress, 1);
    scanRow->addWidget(m_scanCancel);
    scanRow->addWidget(m_scanNote, 1);
    layout->addLayout(scanRow);
    onRetranslate([this] {
        m_scanButton->setText(tr("Scan all heads"));
        m_scanCancel->setText(tr("Cancel"));
        updateAblationControls();
    });
    AblationRunner* ablation = m_session->ablationRunner();
    connect(m_scanButton, &QPushButton::clicked, this, [this] { scanAllHeads(AblationMode::Zero); });
    connect(m_scanCancel, &QPushButton::clicked, ablation, &AblationRunner::cancel);
    connect(m_session, &ExplorerSession::ablationShown, this, &MainWindow::showAblation);
    connect(m_session, &ExplorerSession::scanShown, this, &MainWindow::showScan);
    connect(m_session, &ExplorerSession::ablationStarted, this, [this](const QString& description) {
        m_predictionsBox->setTitle(tr("Predictions — ablating %1…").arg(description));
    });
    connect(m_session, &ExplorerSession::scanStarted, this, [this](int heads) {
        m_scanNote->clear();
        m_scanProgress->setRange(0, heads);
        m_scanProgress->setValue(0);
        const QString note = m_session->scanBackendNote();
        m_scanProgress->setFormat(note.isEmpty() ? QStringLiteral("%p%") : tr("%p% · %1").arg(note));
    });
    connect(m_session, &ExplorerSession::ablationCleared, this, [this] {
        m_grid->setEffect({}, QString());
        m_scanNote->clear();
        if (currentResult()) {
            m_predictions->setPanel(buildPredictionPanel(currentResult()->run));
            m_predictionsBox->setTitle(tr("Predictions"));
        }
        updateAblationControls();
    });
    connect(ablation, &AblationRunner::scanProgress, this, [this](int done, int total) {
        m_scanProgress->setRange(0, total);
        m_scanProgress->setValue(done);
    });
    connect(ablation, &AblationRunner::failed, this,
            [this](const QString& message) { statusBar()->showMessage(message, 10000); });
    connect(ablation, &AblationRunner::finished, this, [this](bool cancelled) {
        if (cancelled) m_scanNote->setText(tr("Scan cancelled"));
        updateAblationControls();
    });
    connect(m_grid, &HeadGridWidget::headContextMenuRequested, this,
            [this](int layer, int head, const QPoint& where) {
                openHead(layer, head);
                QMenu* menu = headContextMenu(layer, head);
                menu->setAttribute(Qt::WA_DeleteOnClose);
                menu->popup(where);
            });
    // The model's own top-5 for the next token or each [MASK]: users see that the model works.
    m_predictionsBox = new QGroupBox(pane);
    auto* predictionsLayout = new QVBoxLayout(m_predictionsBox);
    predictionsLayout->setContentsMargins(4, 4, 4, 4);
    m_predictions = new PredictionsWidget(m_predictionsBox);
    predictionsLayout->addWidget(m_predictions);
    m_predictionsBox->setVisible(false);
    onRetranslate([this] { m_predictionsBox->setTitle(tr("Predictions")); });
    layout->addWidget(m_predictionsBox);
    auto metricOf = [](QComboBox* box) -> std::optional<HeadMetric> {
        if (box->currentIndex() <= 0) return std::nullopt;
        return HeadMetric(box->currentData().toInt());
    };
    connect(m_sortBox, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this, metricOf] { m_grid->setSortMetric(metricOf(m_sortBox)); });
    connect(m_colorByBox, qOverload<int>(&QComboBox::currentIndexChanged), this, [this, metricOf] {
        const bool byLabel = m_colorByBox->currentData().toInt() == kColorByLabel;
        m_grid->setColorByLabel(byLabel);
        m_grid->setColorMetric(byLabel ? std::nullopt : metricOf(m_colorByBox));
    });
    connect(m_grid, &HeadGridWidget::headActivated, this, &MainWindow::openHead);
    return pane;
}

QWidget* MainWindow::buildHeatmapTab()
{
    auto* tab = new QWidget(this);
    auto* layout = new QVBoxLayout(tab);
    auto* controls = new QHBoxLayout;
    m_colorMapBox = new QComboBox(tab);
    for (ColorMapKind kind :
         {ColorMapKind::Viridis, ColorMapKind::Magma, ColorMapKind::Cividis, ColorMapKind::Greys})
        m_colorMapBox->addItem(QString(), int(kind));
    m_scaleBox = new QComboBox(tab);
    for (HeatmapScale scale : {HeatmapScale::Absolute, HeatmapScale::RowMax, HeatmapScale::Log})
        m_scaleBox->addItem(QString(), int(scale));
    m_discount = new QCheckBox(tab);
    m_wordLevel = new QCheckBox(tab);
    m_wordLevel->setObjectName(QStringLiteral("wordLevel"));
    auto* fit = new QToolButton(tab);
    auto* coloursLabel = new QLabel(tab);
    auto* scaleLabel = new QLabel(tab);
    m_openInLesson = new QAction(this);
    m_openInLesson->setObjectName(QStringLiteral("openInLessonAction"));
    m_openInLesson->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    m_openInLesson->setEnabled(false);
    connect(m_openInLesson, &QAction::triggered, this, [this] { openInLesson(); });
    auto* lessonButton = new QToolButton(tab);
    lessonButton->setDefaultAction(m_openInLesson); // its text and tooltip: LessonLauncher
    onRetranslate([this, fit, coloursLabel, scaleLabel] {
        m_colorMapBox->setItemText(0, tr("viridis"));
        m_colorMapBox->setItemText(1, tr("magma"));
        m_colorMapBox->setItemText(2, tr("cividis"));
        m_colorMapBox->setItemText(3, tr("greys"));
        m_scaleBox->setItemText(0, tr("absolute 0–1"));
        m_scaleBox->setItemText(1, tr("per-row max"));
        m_scaleBox->setItemText(2, tr("log"));
        m_discount->setText(tr("Discount special tokens"));
        m_wordLevel->setText(tr("Words"));
        updateWordLevelControl();
        m_discount->setToolTip(tr("Renormalise each row without [CLS], [SEP] and BOS, as exBERT does"));
        fit->setText(tr("Fit"));
        coloursLabel->setText(tr("Colours:"));
        scaleLabel->setText(tr("Scale:"));
    });
    controls->addWidget(coloursLabel);
    controls->addWidget(m_colorMapBox);
    controls->addWidget(scaleLabel);
    controls->addWidget(m_scaleBox);
    controls->addWidget(m_discount);
    controls->addWidget(m_wordLevel);
    controls->addWidget(fit);
    controls->addWidget(lessonButton);
    controls->addStretch();
    layout->addLayout(controls);
    m_heatmap = new HeatmapWidget(tab);
    layout->addWidget(m_heatmap, 1);
    m_heatmapReadout = new QLabel(tab);
    m_heatmapReadout->setObjectName(QStringLiteral("heatmapReadout"));
    m_heatmapReadout->setTextFormat(Qt::PlainText);
    m_heatmapReadout->setMinimumHeight(m_heatmapReadout->fontMetrics().height() + 4);
    QFont readoutFont = m_heatmapReadout->font();
    readoutFont.setBold(true);
    m_heatmapReadout->setFont(readoutFont);
    layout->addWidget(m_heatmapReadout);
    connect(m_colorMapBox, qOverload<int>(&QComboBox::currentIndexChanged), this, &MainWindow::applyStyle);
    connect(m_scaleBox, qOverload<int>(&QComboBox::currentIndexChanged), this, &MainWindow::applyStyle);
    connect(m_discount, &QCheckBox::toggled, m_heatmap, &HeatmapWidget::setDiscountSpecial);
    connect(m_wordLevel, &QCheckBox::toggled, this, [this] { openHead(m_layer, m_head); });
    connect(fit, &QToolButton::clicked, m_heatmap, &HeatmapWidget::fitToView);
    return tab;
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

void MainWindow::showModelDetails(int index)
{
    const ModelInfo info = modelInfo(index);
    QString text = modelDetailsText(info);
    if (!text.isEmpty())
        if (const std::optional<qint64> available = availableMemoryBytes())
            text += tr(" · %1 available").arg(formatBytes(*available, QLocale()));
    m_modelDetails->setText(text);
}

void MainWindow::addModelListFolder(const QString& folder)
{
    const int added = m_session->addModelListFolder(folder);
    m_timeLabel->setText(
        tr("%n model(s) added from %1", nullptr, added).arg(QDir::toNativeSeparators(folder)));
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
    const QString folder = modelFolder(m_session->currentIndex());
    if (folder.isEmpty()) {
        statusBar()->showMessage(
            tr("The corpus census needs a model: choose a built-in model or open a model folder."));
        return nullptr;
    }
    if (!m_corpusWindow || m_corpusWindow->property("modelFolder").toString() != folder) {
        m_corpusWindow = new CorpusWindow(folder, this);
        m_corpusWindow->setProperty("modelFolder", folder);
        m_corpusWindow->setAttribute(Qt::WA_DeleteOnClose);
        connect(m_corpusWindow, &CorpusWindow::openInExplorer, this,
                [this](const QString& a, const QString& b) {
                    setTexts(a, b);
                    raise();
                    activateWindow();
                });
    }
    m_corpusWindow->show();
    m_corpusWindow->raise();
    return m_corpusWindow;
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
    // A model chosen from the guided list's tab is shown, not the list again (at start the constructor
    // makes the list current after this call when only the built-in models are there).
    if (m_guidedModels && m_tabs->currentWidget() == m_guidedModels && m_session->models()->contains(index))
        m_tabs->setCurrentIndex(0);
    return m_session->select(index);
}

void MainWindow::showCurrentModel(int index, bool switched)
{
    m_modelBox->setCurrentIndex(index);
    showModelDetails(index);
    const auto engine = m_session->currentEngine();
    if (switched && currentResult()) {
        // Until the new model's result arrives the views still show the old one: say so.
        m_heatmap->setStale(tr("Computing on %1…").arg(engine->displayName()));
        m_grid->setStale(true);
        setWindowTitle(tr("AttnScope — %1 — computing…").arg(engine->displayName()));
    }
    m_textB->setEnabled(engine->supportsTextB());
    m_comparison->setEngine(engine);
    if (switched) {
        m_generateTab->setEngine(engine);
        m_streamingTab->setEngine(engine);
        m_lessons->setLoadedModel(kvCacheShapeOf(*engine));
    }
    const auto fixed = engine->fixedText();
    if (fixed) {
        const QSignalBlocker blocker(m_textA);
        m_textA->setPlainText(*fixed);
    }
    // Fixed text is read-only, says why beneath, and looks disabled, so typing is not silently lost.
    m_textA->setReadOnly(fixed.has_value());
    m_textA->setToolTip(fixed ? m_fixedTextNote->text() : QString());
    m_textA->viewport()->setBackgroundRole(fixed ? QPalette::Window : QPalette::Base);
    m_fixedTextNote->setVisible(fixed.has_value());
}

void MainWindow::setTexts(const QString& textA, const QString& textB)
{
    // The session runs the texts as the boxes hold them (QPlainTextEdit turns U+00A0 into a space).
    m_session->leaveFixedText();
    {
        const QSignalBlocker a(m_textA), b(m_textB);
        m_textA->setPlainText(textA);
        m_textB->setText(textB);
    }
    m_session->setTexts(m_textA->toPlainText(), m_textB->text());
}

void MainWindow::openModelFolder(const QString& path)
{
    m_session->openModel(path);
}

GetModelDialog* MainWindow::openGetModelDialog(const QString& repo, const QString& ggufFile)
{
    if (!m_getModelDialog) {
        m_getModelDialog = new GetModelDialog(hub::HubSettings::fromEnvironment(), this);
        connect(m_getModelDialog, &GetModelDialog::modelReady, this, &MainWindow::openModelFolder);
    }
    if (!repo.isEmpty()) m_getModelDialog->prefill(repo, ggufFile);
    m_getModelDialog->show();
    m_getModelDialog->raise();
    m_getModelDialog->activateWindow();
    return m_getModelDialog;
}

QString MainWindow::ablationUnavailableReason() const
{
    return m_session->ablationUnavailableReason();
}

QMenu* MainWindow::headContextMenu(int layer, int head)
{
    auto* menu = new QMenu(this);
    const QString reason = ablationUnavailableReason();
    const bool can = reason.isEmpty() && !ablationRunner()->isScanning();
    auto add = [&](const QString& name, const QString& text, std::function<void()> action) {
        QAction* a = menu->addAction(text);
        a->setObjectName(name);
        a->setEnabled(can);
        connect(a, &QAction::triggered, this, std::move(action));
        return a;
    };
    const int heads = currentResult() ? currentResult()->analysis.heads : 0;
    auto layerHeads = [layer, heads](AblationMode mode) {
        std::vector<HeadAblation> all;
        for (int h = 0; h < heads; ++h)
            all.push_back({layer, h, mode});
        return all;
    };
    add(QStringLiteral("ablateHeadZero"), tr("Ablate this head (zero)"), [this, layer, head] {
        ablateHeads({{layer, head, AblationMode::Zero}}, tr("L%1 H%2 (zero)").arg(layer).arg(head));
    });
    add(QStringLiteral("ablateHeadMean"), tr("Ablate this head (mean)"), [this, layer, head] {
        ablateHeads({{layer, head, AblationMode::Mean}}, tr("L%1 H%2 (mean)").arg(layer).arg(head));
    });
    add(QStringLiteral("ablateLayerZero"), tr("Ablate layer %1 (zero)").arg(layer),
        [this, layer, layerHeads] {
            ablateHeads(layerHeads(AblationMode::Zero), tr("layer %1 (zero)").arg(layer));
        });
    add(QStringLiteral("ablateLayerMean"), tr("Ablate layer %1 (mean)").arg(layer),
        [this, layer, layerHeads] {
            ablateHeads(layerHeads(AblationMode::Mean), tr("layer %1 (mean)").arg(layer));
        });
    menu->addSeparator();
    add(QStringLiteral("scanHeadsZero"), tr("Scan all heads (zero)"),
        [this] { scanAllHeads(AblationMode::Zero); });
    add(QStringLiteral("scanHeadsMean"), tr("Scan all heads (mean)"),
        [this] { scanAllHeads(AblationMode::Mean); });
    QAction* clear = menu->addAction(tr("Clear ablation results"));
    clear->setObjectName(QStringLiteral("clearAblation"));
    clear->setEnabled(!m_session->ablationDescription().isEmpty() || !m_grid->effect().empty());
    connect(clear, &QAction::triggered, this, &MainWindow::clearAblation);
    if (!reason.isEmpty()) {
        menu->addSeparator();
        menu->addAction(reason)->setEnabled(false);
    }
    return menu;
}

void MainWindow::ablateHeads(const std::vector<HeadAblation>& heads, const QString& description)
{
    m_session->ablateHeads(heads, description);
    updateAblationControls();
}

void MainWindow::scanAllHeads(AblationMode mode)
{
    m_session->scanAllHeads(mode);
    updateAblationControls();
}

void MainWindow::clearAblation()
{
    m_session->clearAblation();
}

void MainWindow::showAblation(const AblationOutcome& outcome)
{
    const auto& result = currentResult();
    m_predictions->setPanel(buildAblationPanel(result->run, m_session->ablationDescription(),
                                               outcome.effect.kl, outcome.originalTop,
                                               outcome.effect.topProbDelta, outcome.effect.top));
    m_predictionsBox->setTitle(tr("Predictions — %1 ablated").arg(m_session->ablationDescription()));
    m_predictionsBox->setVisible(true);
}

void MainWindow::showScan(const AblationScan& scan)
{
    std::vector<double> kl;
    for (const AblationEffect& effect : scan.effects)
        kl.push_back(effect.kl);
    m_grid->setEffect(std::move(kl), scan.mode == AblationMode::Zero ? tr("ablation KL, nats (zero)")
                                                                     : tr("ablation KL, nats (mean)"));
    QString note = tr("Scan done: %n head(s)", nullptr, int(scan.effects.size()));
    if (!m_session->scanBackendNote().isEmpty()) note += QStringLiteral(" · ") + m_session->scanBackendNote();
    m_scanNote->setText(note);
}

void MainWindow::updateAblationControls()
{
    const bool scanning = ablationRunner()->isScanning();
    m_scanProgress->setVisible(scanning);
    m_scanCancel->setVisible(scanning);
    m_scanNote->setVisible(!scanning);
    const QString reason = ablationUnavailableReason();
    m_scanButton->setEnabled(reason.isEmpty() && !scanning);
    m_scanButton->setToolTip(reason.isEmpty()
                                 ? tr("Switch off every head once and colour the grid by how much "
                                      "the model's prediction changes (KL divergence)")
                                 : reason);
}

AttentionMeasure MainWindow::measure() const
{
    return m_session->measure();
}

void MainWindow::setMeasure(AttentionMeasure measure)
{
    m_measureBox->setCurrentIndex(m_measureBox->findData(int(measure)));
}

void MainWindow::updateMeasureNote()
{
    QString reason;
    if (currentResult() && measure() == AttentionMeasure::Contribution)
        reason = contributionUnavailableReason(currentResult()->run);
    m_measureNote->setText(reason.isEmpty() ? QString()
                                            : tr("%1 Showing the attention weight α.").arg(reason));
    m_measureNote->setVisible(!reason.isEmpty());
}

void MainWindow::setTokenWindow(const TokenWindow& window)
{
    m_session->setTokenWindow(window);
}

TokenWindow MainWindow::tokenWindow() const
{
    return m_session->tokenWindow();
}

void MainWindow::showResult(const std::shared_ptr<const ExplorerResult>& result, bool sameAblatedInput)
{
    statusBar()->clearMessage();
    m_heatmap->setStale(QString());
    m_grid->setStale(false);
    if (result->run.totalTokens > 0)
        m_banner->showWindow(result->run.maps->queries(), result->run.totalTokens, result->run.keptFromEnd);
    else
        m_banner->clear();
    updateStatus();
    m_statisticsTab->showResult(*result);
    m_grid->setResult(result);
    m_grid->setStats(m_statisticsTab->model()->stats());
    m_findResult->clear();
    m_layer = std::min(m_layer, result->analysis.layers - 1);
    m_head = std::min(m_head, result->analysis.heads - 1);
    m_comparison->setFocusHead(m_layer, m_head);
    m_comparison->setResult(result);
    m_arcs->setResult(result);
    m_flow->setResult(result);
    PredictionPanel predictions = buildPredictionPanel(result->run);
    m_predictionsBox->setVisible(!predictions.groups.isEmpty() || !predictions.note.isEmpty());
    if (!sameAblatedInput) {
        // Another input: an ablation or scan of the previous one no longer applies (the session dropped it).
        m_grid->setEffect({}, QString());
        m_scanNote->clear();
        m_predictionsBox->setTitle(tr("Predictions"));
        m_predictions->setPanel(std::move(predictions));
    } // else: the same input under another measure keeps its ablation panel and scan colours
    updateAblationControls();
    updateWordLevelControl();
    openHead(m_layer, m_head);
    updateMeasureNote();
    setWindowTitle(tr("AttnScope — %1").arg(result->modelName));
}

void MainWindow::updateWordLevelControl()
{
    const auto result = currentResult();
    // The word-level map is built from a head's dense matrix, which the window keeps only up to
    // kDenseHeatmapLimit tokens (longer inputs are shown in tiles): say so instead of a toggle that does
    // nothing.
    const int tokens = result && result->run.maps ? result->run.maps->queries() : 0;
    const bool available = tokens <= kDenseHeatmapLimit;
    m_wordLevel->setEnabled(available);
    m_wordLevel->setToolTip(available
                                ? tr("Merge subword pieces into words (Clark et al. 2019): attention to a "
                                     "word is the sum over its pieces, from a word the mean")
                                : tr("The Words view needs at most %1 tokens; this input has %2.")
                                      .arg(kDenseHeatmapLimit)
                                      .arg(tokens));
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
    m_timeLabel->setText(tr("failed"));
    m_tokensLabel->clear();
    m_tokensLabel->setToolTip(QString());
    statusBar()->clearMessage();
}

void MainWindow::clearViews(const QString& reason)
{
    m_findResult->clear();
    m_heatmap->clear(reason);
    m_grid->setResult(nullptr);
    m_grid->setStale(false);
    m_statisticsTab->clear();
    m_comparison->setResult(nullptr);
    m_arcs->setResult(nullptr);
    m_flow->setResult(nullptr);
    m_predictionsBox->setVisible(false);
    m_predictions->setPanel(PredictionPanel{});
    m_openInLesson->setEnabled(false);
    updateAblationControls(); // the session dropped the ablation of the failed input
}

void MainWindow::findSinkAndNoOpHeads()
{
    const auto result = currentResult();
    if (!result) return;
    std::vector<std::pair<int, int>> found;
    for (const HeadStats& s : m_statisticsTab->model()->stats())
        if (s.label == HeadLabel::Sink || s.label == HeadLabel::NoOp) found.emplace_back(s.layer, s.head);
    m_grid->setHighlighted(found);
    QString line = tr("%n sink or no-op head(s)", nullptr, int(found.size()));
    if (const HeadSinkEvidence sinks = headSinkVerdict(m_statisticsTab->model()->stats());
        sinks.verdict == SinkVerdict::NoSinks)
        line += QLatin1Char(' ') +
                tr("No head puts %1 or more on the first token (at most %2): this model has no sinks; "
                   "%3 in the Get a model tab does.")
                    .arg(QLocale().toString(LabelThresholds().sink, 'f', 2),
                         QLocale().toString(sinks.largestSinkMass, 'f', 2), guidedStreamingDecoder());
    m_findResult->setText(line);
    if (!found.empty()) openHead(found.front().first, found.front().second);
}

void MainWindow::updateStatus()
{
    const auto result = currentResult();
    const int n = result->run.maps->queries();
    m_tokensLabel->setText(tr("%n token(s)", nullptr, n));
    m_tokensLabel->setToolTip(result->run.labels.join(QLatin1Char(' ')).left(2000));
    m_backendLabel->setText(tr("backend: %1").arg(result->run.backend));
    m_timeLabel->setText(
        tr("%1 ms").arg(QLocale().toString(result->seconds * 1000, 'f', result->seconds < 0.01 ? 2 : 0)));
}

void MainWindow::showFailure(const QString& message)
{
    m_banner->showFailure(message);
}

void MainWindow::openHead(int layer, int head)
{
    const auto result = currentResult();
    if (!result || layer < 0 || head < 0 || layer >= result->analysis.layers ||
        head >= result->analysis.heads)
        return;
    m_layer = layer;
    m_head = head;
    m_grid->select(layer, head);
    m_comparison->setFocusHead(layer, head);
    m_statisticsTab->selectHead(layer, head);
    m_openInLesson->setEnabled(result->run.capture != nullptr);
    showHead(*m_heatmap, result, layer, head, m_wordLevel->isChecked());
    applyHeatmapStyle();
    // Arcs: this head, then the heads picked in the comparison tab (each in its own colour), at most 4.
    std::vector<std::pair<int, int>> arcHeads{{layer, head}};
    for (const auto& other : m_comparison->heads())
        if (std::find(arcHeads.begin(), arcHeads.end(), other) == arcHeads.end() && arcHeads.size() < 4)
            arcHeads.push_back(other);
    m_arcs->setHeads(arcHeads);
}

LessonWindow* MainWindow::openInLesson()
{
    const auto result = currentResult();
    QString message;
    LessonWindow* window = m_lessons->openHead(result.get(), m_layer, m_head, &message);
    if (!message.isEmpty()) statusBar()->showMessage(message, 10000);
    return window;
}

void MainWindow::applyHeatmapStyle()
{
    const int n = m_heatmap->data().rows;
    HeatmapStyle heatmapStyle = m_style;
    heatmapStyle.showValues = n <= 12;
    heatmapStyle.fontPointSize = n <= 12 ? 11 : 9;
    if (m_presenting)
        heatmapStyle = PresenterMode::presenterStyle(heatmapStyle); // projector: large labels, dark page
    m_heatmap->setStyle(heatmapStyle);
}

void MainWindow::setPresenting(bool presenting)
{
    m_presenting = presenting;
    // The classroom screen is the heatmap: the input bar, the grid and the heatmap's own read-out line
    // (the presenter's docked read-out replaces it) make room. The banner stays: a failure is said.
    m_inputBar->setVisible(!presenting);
    m_gridPane->setVisible(!presenting);
    m_heatmapReadout->setVisible(!presenting);
    m_tabs->tabBar()->setVisible(!presenting);
    if (presenting) m_tabs->setCurrentIndex(0);
    applyHeatmapStyle();
}

void MainWindow::applyStyle()
{
    m_style.colorMap = ColorMapKind(m_colorMapBox->currentData().toInt());
    m_style.scale = HeatmapScale(m_scaleBox->currentData().toInt());
    m_style.fontPointSize = 9;
    applyHeatmapStyle();
    m_grid->setColorMap(m_style.colorMap);
    m_grid->setScale(m_style.scale);
    HeatmapStyle compareStyle = m_style;
    compareStyle.showValues = true;
    m_comparison->setStyle(compareStyle);
    m_flow->setStyle(m_style);
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

QString MainWindow::textB() const
{
    return m_textB->text();
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

void MainWindow::showBackend()
{
    m_noticeLabel->setText(m_session->backendNotice());
    m_noticeLabel->setVisible(!m_session->backendNotice().isEmpty());
    m_noticeLabel->setToolTip(m_session->backendNoticeDetails());
    for (QAction* action : m_computeMenu->actions())
        if (action->data().toInt() == int(m_session->backendChoice())) action->setChecked(true);
    m_backendLabel->setText(tr("backend: %1").arg(backendDescription(*m_session->backend())));
}

QString MainWindow::computeBackendDescription() const
{
    const auto backend = m_session->backend();
    return backend ? backendDescription(*backend) : cpuBackendDescription();
}

QString MainWindow::backendStatus() const
{
    return m_backendLabel->text();
}

QString MainWindow::statusText() const
{
    return m_tokensLabel->text() + QStringLiteral(" · ") + m_backendLabel->text() + QStringLiteral(" · ") +
           m_timeLabel->text();
}

void MainWindow::onRetranslate(std::function<void()> retranslate)
{
    retranslate();
    m_retranslators.push_back(std::move(retranslate));
}

void MainWindow::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) {
        for (const auto& retranslate : m_retranslators)
            retranslate();
        if (currentResult()) updateStatus();
    }
    QMainWindow::changeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    for (const QUrl& url : event->mimeData()->urls()) {
        const QFileInfo info(url.toLocalFile());
        if (info.isDir() || (info.isFile() && TransformerModel::isGgufPath(info.absoluteFilePath()))) {
            openModelFolder(info.absoluteFilePath());
            return;
        }
    }
    showFailure(tr("Drop a model folder (with config.json and model.safetensors) or a .gguf file"));
}

} // namespace attnscope
