#include "mainwindow.h"

#include "attention/attentionmaps.h"
#include "census/corpuswindow.h"
#include "explorer/ablationrunner.h"
#include "explorer/arcwidget.h"
#include "explorer/attentionmeasure.h"
#include "explorer/backenddescription.h"
#include "explorer/comparisonwidget.h"
#include "explorer/examplesentences.h"
#include "explorer/explorerbackend.h"
#include "explorer/flowview.h"
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
#include "explorer/syntheticengine.h"
#include "explorer/transformerengine.h"
#include "explorer/workedexampleengine.h"
#include "generation/generatetab.h"
#include "generation/kvcachesize.h"
#include "generation/streamingtab.h"
#include "kernels/cpukernelselection.h"
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
    qRegisterMetaType<std::shared_ptr<const ExplorerResult>>();
    setWindowTitle(tr("AttnScope"));
    setAcceptDrops(true);
    m_runner = new AnalysisRunner(this);
    m_explorerBackend = std::make_shared<ExplorerBackend>();
    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(300);
    connect(m_debounce, &QTimer::timeout, this, &MainWindow::runNow);
    connect(m_runner, &AnalysisRunner::resultReady, this, &MainWindow::showResult);
    connect(m_runner, &AnalysisRunner::inputTooLong, this,
            [this](quint64 job, const QString& message, int, int limit) {
                m_tooLongJob = job;
                showRunFailure(message, limit);
            });
    connect(m_runner, &AnalysisRunner::failed, this, [this](quint64 job, const QString& message) {
        if (job != m_tooLongJob) showRunFailure(message, 0);
    });
    connect(m_runner, &AnalysisRunner::started, this, [this] {
        m_timeLabel->setText(tr("computing…"));
        m_runClock.start();
    });
    m_loader = new ModelLoader(this);
    m_progress = new ProgressPanel(this);
    // A pass's progress shows once it has run a moment: a quick pass never flashes a bar.
    connect(m_runner, &AnalysisRunner::progress, this, [this](quint64, int done, int total) {
        if (!isLoadingModel() && m_runClock.isValid() && m_runClock.elapsed() > 250)
            m_progress->showProgress(tr("Computing: layer %1 of %2").arg(done).arg(total), done, total);
    });
    connect(m_runner, &AnalysisRunner::failed, this, [this] {
        if (!isLoadingModel()) m_progress->finish();
    });
    connect(m_runner, &AnalysisRunner::resultReady, this, [this] {
        if (!isLoadingModel()) m_progress->finish();
    });
    connect(m_progress, &ProgressPanel::cancelRequested, this, [this] {
        if (isLoadingModel()) {
            m_loader->cancel(); // ModelLoader::cancelled ends the loading
            return;
        }
        m_runner->cancel();
        m_progress->finish();
        m_timeLabel->setText(tr("cancelled"));
    });
    connect(m_loader, &ModelLoader::progress, this,
            [this](quint64, ModelLoader::Stage stage, qint64 done, qint64 total) {
                if (!isLoadingModel()) return;
                const QString name = m_modelBox->itemText(m_loadingIndex);
                if (stage == ModelLoader::Stage::Opening)
                    m_progress->showProgress(tr("Loading %1: opening…").arg(name), 0, 0);
                else
                    m_progress->showProgress(
                        tr("Loading %1: reading weights, %2 of %3")
                            .arg(name, formatBytes(done, QLocale()), formatBytes(total, QLocale())),
                        done, total);
            });
    connect(m_loader, &ModelLoader::loaded, this,
            [this](quint64, const QString& folder, std::shared_ptr<TransformerEngine> engine) {
                finishLoading(folder, std::move(engine));
            });
    connect(m_loader, &ModelLoader::failed, this,
            [this](quint64, const QString&, const QString& message) { endLoading(message); });
    connect(m_loader, &ModelLoader::cancelled, this, [this](quint64, const QString& folder) {
        endLoading(QString());
        m_timeLabel->setText(tr("loading %1 cancelled").arg(QFileInfo(folder).fileName()));
    });

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(6, 6, 6, 0);
    m_inputBar = buildInputBar();
    layout->addWidget(m_inputBar);
    m_banner = new RunStateBanner(central);
    connect(m_banner, &RunStateBanner::windowRequested, this, &MainWindow::setTokenWindow);
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
    m_tabs->addTab(buildStatisticsTab(), QString());
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
    {
        BackendKind kind = BackendKind::Auto;
        parseBackendKind(AppSettings().computeBackend(), &kind);
        startComputeBackend(kind); // not written back: opening a window changes no setting
    }
    m_modelBox->insertSeparator(0);
    m_modelBox->addItem(QString());
    m_modelBox->addItem(QString());
    onRetranslate([this] {
        m_modelBox->setItemText(m_modelBox->count() - 2, tr("Open folder…"));
        m_modelBox->setItemText(m_modelBox->count() - 1, tr("Open GGUF file…"));
    });
    populateModels();
    applyStyle();
    // A built-in model when there is one, else the worked example.
    const int workedExample = findModel(WorkedExampleEngine().displayName());
    if (!m_entries.front().folder.isEmpty() && selectEngine(0))
        setTexts(exampleSentences().front());
    else
        selectEngine(workedExample);
    resize(1280, 800);
    m_features = new MainWindowFeatures(this);
}

void MainWindow::populateModels()
{
    QStringList seen;
    for (const ModelInfo& info : ModelCatalog::builtinModels()) {
        addModelFolder(info.path, info.name);
        seen << QDir(info.path).canonicalPath();
    }
    for (const QString& folder : ModelCatalog::recent()) {
        if (seen.contains(QDir(folder).canonicalPath())) continue;
        const auto info = ModelCatalog::describe(folder);
        addModelFolder(folder, QFileInfo(folder).isFile() ? QFileInfo(folder).fileName()
                               : info                     ? info->name
                                                          : QDir(folder).dirName());
        seen << QDir(folder).canonicalPath();
    }
    for (const ModelInfo& info : ModelCatalog::cachedModels())
        if (!seen.contains(QDir(info.path).canonicalPath())) {
            addModelFolder(info.path, info.name);
            seen << QDir(info.path).canonicalPath();
        }
    for (const QString& folder : ModelCatalog::modelFolders())
        for (const ModelInfo& info : ModelCatalog::modelsInFolder(folder))
            if (!seen.contains(QFileInfo(info.path).canonicalFilePath())) {
                addModelFolder(info.path, info.name);
                seen << QFileInfo(info.path).canonicalFilePath();
            }
    addEngine(std::make_shared<WorkedExampleEngine>());
    SyntheticEngine::Config encoder;
    encoder.threads = explorerWorkerThreads();
    addEngine(std::make_shared<SyntheticEngine>(encoder));
    SyntheticEngine::Config decoder = encoder;
    decoder.causal = true;
    addEngine(std::make_shared<SyntheticEngine>(decoder));
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
            if (kind != m_backendChoice) setComputeBackend(kind);
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
        if (index >= int(m_entries.size())) { // the separator, "Open folder…" or "Open GGUF file…"
            m_modelBox->setCurrentIndex(m_current);
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
    connect(m_textA, &QPlainTextEdit::textChanged, this, &MainWindow::scheduleRun);
    connect(m_textB, &QLineEdit::textChanged, this, &MainWindow::scheduleRun);
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
    connect(m_measureBox, qOverload<int>(&QComboBox::currentIndexChanged), this, &MainWindow::remeasure);
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
    m_ablation = new AblationRunner(this);
    connect(m_scanButton, &QPushButton::clicked, this, [this] { scanAllHeads(AblationMode::Zero); });
    connect(m_scanCancel, &QPushButton::clicked, m_ablation, &AblationRunner::cancel);
    connect(m_ablation, &AblationRunner::ablated, this, &MainWindow::showAblation);
    connect(m_ablation, &AblationRunner::scanFinished, this, &MainWindow::showScan);
    connect(m_ablation, &AblationRunner::scanProgress, this, [this](int done, int total) {
        m_scanProgress->setRange(0, total);
        m_scanProgress->setValue(done);
    });
    connect(m_ablation, &AblationRunner::failed, this,
            [this](const QString& message) { statusBar()->showMessage(message, 10000); });
    connect(m_ablation, &AblationRunner::finished, this, [this](bool cancelled) {
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

QWidget* MainWindow::buildStatisticsTab()
{
    auto* tab = new QWidget(this);
    auto* layout = new QVBoxLayout(tab);
    // Two rows of three thresholds: one row of six made the window wider than a 1280-pixel screen.
    auto* thresholds = new QGridLayout;
    auto* thresholdsLabel = new QLabel(tab);
    thresholds->addWidget(thresholdsLabel, 0, 0);
    const LabelThresholds defaults;
    const std::vector<double> values{defaults.sink, defaults.noOp, defaults.previous,
                                     defaults.next, defaults.self, defaults.broadEntropy};
    std::vector<QLabel*> labels;
    for (double value : values) {
        const int index = int(labels.size());
        labels.push_back(new QLabel(tab));
        auto* box = new QDoubleSpinBox(tab);
        box->setRange(0.0, 1.0);
        box->setSingleStep(0.05);
        box->setDecimals(2);
        box->setValue(value);
        labels.back()->setBuddy(box);
        connect(box, qOverload<double>(&QDoubleSpinBox::valueChanged), this, &MainWindow::applyThresholds);
        // Label and box together in one cell, at its left: a label and its box in columns of their own
        // were padded out to the longest label of the other row ("broad: norm. entropy ≥"), leaving a gap
        // before "prev ≥".
        auto* pair = new QHBoxLayout;
        pair->setSpacing(4);
        pair->addWidget(labels.back());
        pair->addWidget(box);
        pair->addStretch(1);
        thresholds->addLayout(pair, index / 3, 1 + index % 3);
        m_thresholdBoxes.push_back(box);
    }
    thresholds->setColumnStretch(4, 1);
    layout->addLayout(thresholds);
    onRetranslate([thresholdsLabel, labels] {
        thresholdsLabel->setText(tr("Label thresholds:"));
        const QStringList names{tr("sink ≥"), tr("[SEP] ≥"), tr("prev ≥"),
                                tr("next ≥"), tr("self ≥"),  tr("broad: norm. entropy ≥")};
        for (size_t i = 0; i < labels.size(); ++i)
            labels[i]->setText(names.value(int(i)));
    });
    auto* splitter = new QSplitter(Qt::Vertical, tab);
    m_statsModel = new HeadStatsModel(this);
    m_statsProxy = new QSortFilterProxyModel(this);
    m_statsProxy->setSourceModel(m_statsModel);
    m_statsProxy->setSortRole(HeadStatsModel::SortRole);
    m_statsTable = new QTableView(splitter);
    m_statsTable->setModel(m_statsProxy);
    m_statsTable->setSortingEnabled(true);
    m_statsTable->sortByColumn(HeadStatsModel::LayerColumn, Qt::AscendingOrder); // layer 0 head 0 first
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
    // The table is what people read; the chart's few bars need less height.
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);
    return tab;
}

int MainWindow::addEngine(std::shared_ptr<const AttentionEngine> engine)
{
    const int index = int(m_entries.size());
    m_modelBox->insertItem(index, engine->displayName());
    m_modelBox->setItemData(index, engine->architecture(), Qt::ToolTipRole);
    m_entries.push_back(ModelEntry{QString(), std::move(engine), ModelInfo{}});
    return index;
}

int MainWindow::addModelFolder(const QString& folder, const QString& name)
{
    const int index = int(m_entries.size());
    ModelInfo info = ModelCatalog::describe(folder).value_or(ModelInfo{});
    info.name = name;
    const QString details = modelDetailsText(info);
    m_modelBox->insertItem(index, name);
    m_modelBox->setItemData(index,
                            details.isEmpty()
                                ? QDir::toNativeSeparators(folder)
                                : QDir::toNativeSeparators(folder) + QLatin1Char('\n') + details,
                            Qt::ToolTipRole);
    m_modelBox->setItemData(index, details, ModelPickerDelegate::kModelDetailsRole);
    m_entries.push_back(ModelEntry{folder, nullptr, info});
    updateComparisonChoices();
    return index;
}

ModelInfo MainWindow::modelInfo(int index) const
{
    return index >= 0 && index < int(m_entries.size()) ? m_entries[size_t(index)].info : ModelInfo{};
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
    ModelCatalog::addModelFolder(folder);
    QStringList known;
    for (const ModelEntry& entry : m_entries)
        if (!entry.folder.isEmpty()) known << QFileInfo(entry.folder).canonicalFilePath();
    int added = 0;
    for (const ModelInfo& info : ModelCatalog::modelsInFolder(folder))
        if (!known.contains(QFileInfo(info.path).canonicalFilePath())) {
            // Before the worked example and the demos, after the other models.
            int at = 0;
            while (at < int(m_entries.size()) && !m_entries[size_t(at)].folder.isEmpty())
                ++at;
            ModelInfo described = info;
            const QString details = modelDetailsText(described);
            m_modelBox->insertItem(at, info.name);
            m_modelBox->setItemData(at, QDir::toNativeSeparators(info.path) + QLatin1Char('\n') + details,
                                    Qt::ToolTipRole);
            m_modelBox->setItemData(at, details, ModelPickerDelegate::kModelDetailsRole);
            m_entries.insert(m_entries.begin() + at, ModelEntry{info.path, nullptr, described});
            if (m_current >= at) ++m_current;
            if (m_loadingIndex >= at) ++m_loadingIndex;
            ++added;
        }
    updateComparisonChoices();
    m_timeLabel->setText(
        tr("%n model(s) added from %1", nullptr, added).arg(QDir::toNativeSeparators(folder)));
}

// The real models (folders and .gguf files) the comparison can take as its second model.
void MainWindow::updateComparisonChoices()
{
    QVector<ComparisonWidget::ModelChoice> choices;
    for (int i = 0; i < int(m_entries.size()); ++i)
        if (!m_entries[size_t(i)].folder.isEmpty())
            choices.push_back({m_modelBox->itemText(i), m_entries[size_t(i)].folder});
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
    for (int i = 0; i < int(m_entries.size()); ++i)
        if (m_modelBox->itemText(i).startsWith(name)) return i;
    return -1;
}

CorpusWindow* MainWindow::openCorpusCensus()
{
    const QString folder = modelFolder(m_current);
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
    return index >= 0 && index < int(m_entries.size()) ? m_entries[size_t(index)].folder : QString();
}

std::shared_ptr<const AttentionEngine> MainWindow::currentEngine() const
{
    return m_current >= 0 && m_current < int(m_entries.size()) ? m_entries[size_t(m_current)].engine
                                                               : nullptr;
}

bool MainWindow::selectEngine(int index)
{
    if (index < 0 || index >= int(m_entries.size())) return false;
    ModelEntry& entry = m_entries[size_t(index)];
    if (!entry.engine) {
        // Refused before anything is mapped, with the numbers, rather than left to the OOM killer.
        const QString refusal = memoryRefusalText(entry.info, availableMemoryBytes());
        if (!refusal.isEmpty()) {
            showFailure(refusal);
            m_modelBox->setCurrentIndex(std::max(0, m_current));
            return false;
        }
        if (entry.info.weightBytes >= kBackgroundLoadBytes) {
            m_loadingIndex = index;
            m_modelBox->setCurrentIndex(index);
            m_loader->load(entry.folder, explorerWorkerThreads(), m_explorerBackend);
            return true; // finishLoading selects it
        }
        try {
            entry.engine = TransformerEngine::open(entry.folder, explorerWorkerThreads(), m_explorerBackend);
        } catch (const EngineError& e) {
            showFailure(QString::fromStdString(e.what()));
            m_modelBox->setCurrentIndex(std::max(0, m_current));
            return false;
        }
    }
    if (isLoadingModel() && index != m_loadingIndex) { // another model chosen while one loads
        m_loader->cancel();
        m_loadingIndex = -1;
        m_progress->finish();
    }
    const bool switched = index != m_current;
    m_current = index;
    m_modelBox->setCurrentIndex(index);
    showModelDetails(index);
    const auto engine = entry.engine;
    if (switched) {
        m_tokenWindow = {}; // a window chosen for one model's positions is not another's
        if (m_result) {
            // Until the new model's result arrives the views still show the old one: say so.
            m_heatmap->setStale(tr("Computing on %1…").arg(engine->displayName()));
            m_grid->setStale(true);
            setWindowTitle(tr("AttnScope — %1 — computing…").arg(engine->displayName()));
        }
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
    runNow();
    return true;
}

void MainWindow::finishLoading(const QString& folder, std::shared_ptr<TransformerEngine> engine)
{
    const int index = m_loadingIndex;
    m_loadingIndex = -1;
    m_progress->finish();
    if (index < 0 || index >= int(m_entries.size()) || m_entries[size_t(index)].folder != folder) return;
    m_entries[size_t(index)].engine = std::move(engine);
    selectEngine(index);
}

void MainWindow::endLoading(const QString& message)
{
    m_loadingIndex = -1;
    m_progress->finish();
    m_modelBox->setCurrentIndex(std::max(0, m_current));
    showModelDetails(m_current);
    if (!message.isEmpty()) showFailure(message);
}

void MainWindow::setTexts(const QString& textA, const QString& textB)
{
    // Examples on the fixed worked example switch to the first model that takes text, so that they show.
    if (currentEngine() && currentEngine()->fixedText()) {
        for (int i = 0; i < int(m_entries.size()); ++i)
            if ((!m_entries[size_t(i)].engine || !m_entries[size_t(i)].engine->fixedText()) &&
                selectEngine(i))
                break;
    }
    {
        const QSignalBlocker a(m_textA), b(m_textB);
        m_textA->setPlainText(textA);
        m_textB->setText(textB);
    }
    runNow();
}

void MainWindow::openModelFolder(const QString& path)
{
    const QString canonical = QFileInfo(path).canonicalFilePath();
    for (int i = 0; i < int(m_entries.size()); ++i)
        if (!m_entries[size_t(i)].folder.isEmpty() &&
            QFileInfo(m_entries[size_t(i)].folder).canonicalFilePath() == canonical) {
            selectEngine(i);
            return;
        }
    const auto info = ModelCatalog::describe(path);
    if (!info) {
        showFailure(
            QFileInfo(path).isFile()
                ? tr("%1: not a model (a folder with config.json, or a llama.cpp .gguf file)")
                      .arg(QDir::toNativeSeparators(path))
                : tr("%1: not a model folder (no readable config.json)").arg(QDir::toNativeSeparators(path)));
        return;
    }
    const int index =
        addModelFolder(path, QFileInfo(path).isFile() ? QFileInfo(path).fileName() : info->name);
    if (selectEngine(index)) {
        ModelCatalog::addRecent(path);
    } else {
        m_entries.erase(m_entries.begin() + index);
        m_modelBox->removeItem(index);
        updateComparisonChoices();
    }
}

void MainWindow::scheduleRun()
{
    m_debounce->start();
}

void MainWindow::runNow()
{
    m_debounce->stop();
    const auto engine = currentEngine();
    if (!engine) return;
    std::optional<QString> textB;
    if (engine->supportsTextB() && !m_textB->text().trimmed().isEmpty()) textB = m_textB->text();
    AnalysisOptions options;
    options.threads = explorerWorkerThreads();
    options.overviewSize = 128; // the zoomed-out heatmap of a long input shows this overview
    m_runner->start(engine, m_textA->toPlainText(), textB, options, m_tokenWindow, measure());
}

QString MainWindow::ablationUnavailableReason() const
{
    if (!m_result) return tr("Nothing is shown yet.");
    if (!std::dynamic_pointer_cast<const TransformerEngine>(currentEngine()) || m_result->run.ids.empty())
        return tr("Ablation needs a real model; the demos have none.");
    if (m_result->run.predictions.empty())
        return predictionGapMessage(m_result->run.predictionGap).isEmpty()
                   ? tr("The model has nothing to predict for this input.")
                   : (m_result->run.predictionGap == PredictionGap::NoMaskToken
                          ? tr("Type [MASK] in the text: ablation measures the change of the model's "
                               "prediction.")
                          : predictionGapMessage(m_result->run.predictionGap));
    return {};
}

QMenu* MainWindow::headContextMenu(int layer, int head)
{
    auto* menu = new QMenu(this);
    const QString reason = ablationUnavailableReason();
    const bool can = reason.isEmpty() && !m_ablation->isScanning();
    auto add = [&](const QString& name, const QString& text, std::function<void()> action) {
        QAction* a = menu->addAction(text);
        a->setObjectName(name);
        a->setEnabled(can);
        connect(a, &QAction::triggered, this, std::move(action));
        return a;
    };
    const int heads = m_result ? m_result->analysis.heads : 0;
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
    clear->setEnabled(!m_ablationDescription.isEmpty() || !m_grid->effect().empty());
    connect(clear, &QAction::triggered, this, &MainWindow::clearAblation);
    if (!reason.isEmpty()) {
        menu->addSeparator();
        menu->addAction(reason)->setEnabled(false);
    }
    return menu;
}

void MainWindow::ablateHeads(const std::vector<HeadAblation>& heads, const QString& description)
{
    if (!ablationUnavailableReason().isEmpty() || m_ablation->isScanning()) return;
    auto engine = std::dynamic_pointer_cast<const TransformerEngine>(currentEngine());
    m_ablationInput = m_result->run.ids;
    m_ablationDescription = description;
    m_predictionsBox->setTitle(tr("Predictions — ablating %1…").arg(description));
    m_ablation->ablate(engine, m_result->run.ids, m_result->run.typeIds, heads);
    updateAblationControls();
}

void MainWindow::scanAllHeads(AblationMode mode)
{
    if (!ablationUnavailableReason().isEmpty() || m_ablation->isScanning()) return;
    auto engine = std::dynamic_pointer_cast<const TransformerEngine>(currentEngine());
    m_ablationInput = m_result->run.ids;
    m_scanMode = mode;
    m_scanNote->clear();
    m_scanProgress->setRange(0, m_result->analysis.layers * m_result->analysis.heads);
    m_scanProgress->setValue(0);
    // The scan's passes run on the CPU core whatever the views use: said on the bar, not left to guess.
    m_scanBackendNote = scanBackendNote(m_explorerBackend->current().get());
    m_scanProgress->setFormat(m_scanBackendNote.isEmpty() ? QStringLiteral("%p%")
                                                          : tr("%p% · %1").arg(m_scanBackendNote));
    m_ablation->scan(engine, m_result->run.ids, m_result->run.typeIds, mode);
    updateAblationControls();
}

void MainWindow::clearAblation()
{
    m_ablation->cancel();
    m_ablationDescription.clear();
    m_grid->setEffect({}, QString());
    m_scanNote->clear();
    if (m_result) {
        m_predictions->setPanel(buildPredictionPanel(m_result->run));
        m_predictionsBox->setTitle(tr("Predictions"));
    }
    updateAblationControls();
}

void MainWindow::showAblation(const AblationOutcome& outcome)
{
    if (!m_result || m_result->run.ids != m_ablationInput) return;
    m_predictions->setPanel(buildAblationPanel(m_result->run, m_ablationDescription, outcome.effect.kl,
                                               outcome.originalTop, outcome.effect.topProbDelta,
                                               outcome.effect.top));
    m_predictionsBox->setTitle(tr("Predictions — %1 ablated").arg(m_ablationDescription));
    m_predictionsBox->setVisible(true);
}

void MainWindow::showScan(const AblationScan& scan)
{
    if (!m_result || m_result->run.ids != m_ablationInput) return;
    std::vector<double> kl;
    for (const AblationEffect& effect : scan.effects)
        kl.push_back(effect.kl);
    m_grid->setEffect(std::move(kl), scan.mode == AblationMode::Zero ? tr("ablation KL, nats (zero)")
                                                                     : tr("ablation KL, nats (mean)"));
    QString note = tr("Scan done: %n head(s)", nullptr, int(scan.effects.size()));
    if (!m_scanBackendNote.isEmpty()) note += QStringLiteral(" · ") + m_scanBackendNote;
    m_scanNote->setText(note);
}

void MainWindow::updateAblationControls()
{
    const bool scanning = m_ablation && m_ablation->isScanning();
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
    return AttentionMeasure(m_measureBox->currentData().toInt());
}

void MainWindow::setMeasure(AttentionMeasure measure)
{
    m_measureBox->setCurrentIndex(m_measureBox->findData(int(measure)));
}

void MainWindow::remeasure()
{
    updateMeasureNote();
    if (m_runner->isBusy()) {
        runNow(); // a newer input is computing: rerun it under the new measure
        return;
    }
    if (!m_result) return;
    if (m_result->run.measure == measure()) return;
    if (measure() == AttentionMeasure::Contribution &&
        !contributionUnavailableReason(m_result->run).isEmpty())
        return; // the note says why; the weights stay
    AnalysisOptions options;
    options.threads = explorerWorkerThreads();
    options.overviewSize = 128;
    m_runner->remeasure(m_result, measure(), options);
}

void MainWindow::updateMeasureNote()
{
    QString reason;
    if (m_result && measure() == AttentionMeasure::Contribution)
        reason = contributionUnavailableReason(m_result->run);
    m_measureNote->setText(reason.isEmpty() ? QString()
                                            : tr("%1 Showing the attention weight α.").arg(reason));
    m_measureNote->setVisible(!reason.isEmpty());
}

void MainWindow::setTokenWindow(const TokenWindow& window)
{
    m_tokenWindow = window;
    runNow();
}

void MainWindow::showResult(std::shared_ptr<const ExplorerResult> result)
{
    m_result = std::move(result);
    statusBar()->clearMessage();
    m_heatmap->setStale(QString());
    m_grid->setStale(false);
    if (m_result->run.totalTokens > 0)
        m_banner->showWindow(m_result->run.maps->queries(), m_result->run.totalTokens,
                             m_result->run.keptFromEnd);
    else
        m_banner->clear();
    updateStatus();
    m_statsModel->setStats(m_result->analysis.stats);
    m_grid->setResult(m_result);
    m_grid->setStats(m_statsModel->stats());
    m_layerChart->setSummaries(m_result->analysis.layerSummaries);
    // Decoders have no [SEP]: no column and no bars of zeros for it.
    const bool hasSep = !m_result->run.roles.sepPositions.empty();
    m_layerChart->setShowSep(hasSep);
    const auto metrics = allHeadMetrics();
    const int sepColumn =
        HeadStatsModel::FirstMetricColumn +
        int(std::find(metrics.begin(), metrics.end(), HeadMetric::SepMass) - metrics.begin());
    m_statsTable->setColumnHidden(sepColumn, !hasSep);
    m_findResult->clear();
    m_layer = std::min(m_layer, m_result->analysis.layers - 1);
    m_head = std::min(m_head, m_result->analysis.heads - 1);
    m_comparison->setFocusHead(m_layer, m_head);
    m_comparison->setResult(m_result);
    m_arcs->setResult(m_result);
    m_flow->setResult(m_result);
    PredictionPanel predictions = buildPredictionPanel(m_result->run);
    m_predictionsBox->setVisible(!predictions.groups.isEmpty() || !predictions.note.isEmpty());
    if (m_result->run.ids != m_ablationInput) {
        // Another input: an ablation or scan of the previous one no longer applies.
        m_ablation->cancel();
        m_ablationInput.clear();
        m_ablationDescription.clear();
        m_grid->setEffect({}, QString());
        m_scanNote->clear();
        m_predictionsBox->setTitle(tr("Predictions"));
        m_predictions->setPanel(std::move(predictions));
    } // else: the same input under another measure keeps its ablation panel and scan colours
    updateAblationControls();
    updateWordLevelControl();
    openHead(m_layer, m_head);
    updateMeasureNote();
    setWindowTitle(tr("AttnScope — %1").arg(m_result->modelName));
}

void MainWindow::updateWordLevelControl()
{
    // The word-level map is built from a head's dense matrix, which the window keeps only up to
    // kDenseHeatmapLimit tokens (longer inputs are shown in tiles): say so instead of a toggle that does
    // nothing.
    const int tokens = m_result && m_result->run.maps ? m_result->run.maps->queries() : 0;
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
    m_result.reset();
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
    m_statsModel->setStats({});
    m_layerChart->setSummaries({});
    m_comparison->setResult(nullptr);
    m_arcs->setResult(nullptr);
    m_flow->setResult(nullptr);
    m_predictionsBox->setVisible(false);
    m_predictions->setPanel(PredictionPanel{});
    m_openInLesson->setEnabled(false);
    m_ablation->cancel();
    m_ablationInput.clear();
    m_ablationDescription.clear();
    updateAblationControls();
}

void MainWindow::findSinkAndNoOpHeads()
{
    if (!m_result) return;
    std::vector<std::pair<int, int>> found;
    for (const HeadStats& s : m_statsModel->stats())
        if (s.label == HeadLabel::Sink || s.label == HeadLabel::NoOp) found.emplace_back(s.layer, s.head);
    m_grid->setHighlighted(found);
    m_findResult->setText(tr("%n sink or no-op head(s)", nullptr, int(found.size())));
    if (!found.empty()) openHead(found.front().first, found.front().second);
}

void MainWindow::updateStatus()
{
    const int n = m_result->run.maps->queries();
    m_tokensLabel->setText(tr("%n token(s)", nullptr, n));
    m_tokensLabel->setToolTip(m_result->run.labels.join(QLatin1Char(' ')).left(2000));
    m_backendLabel->setText(tr("backend: %1").arg(m_result->run.backend));
    m_timeLabel->setText(
        tr("%1 ms").arg(QLocale().toString(m_result->seconds * 1000, 'f', m_result->seconds < 0.01 ? 2 : 0)));
}

void MainWindow::showFailure(const QString& message)
{
    m_banner->showFailure(message);
}

void MainWindow::openHead(int layer, int head)
{
    if (!m_result || layer < 0 || head < 0 || layer >= m_result->analysis.layers ||
        head >= m_result->analysis.heads)
        return;
    m_layer = layer;
    m_head = head;
    m_grid->select(layer, head);
    m_comparison->setFocusHead(layer, head);
    // The statistics table marks the open head's row and scrolls to it (in whatever order it is sorted).
    const auto& stats = m_statsModel->stats();
    for (size_t row = 0; row < stats.size(); ++row) {
        if (stats[row].layer != layer || stats[row].head != head) continue;
        const QModelIndex index = m_statsProxy->mapFromSource(m_statsModel->index(int(row), 0));
        m_statsTable->selectRow(index.row());
        m_statsTable->scrollTo(index);
        break;
    }
    m_openInLesson->setEnabled(m_result->run.capture != nullptr);
    showHead(*m_heatmap, m_result, layer, head, m_wordLevel->isChecked());
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
    QString message;
    LessonWindow* window = m_lessons->openHead(m_result.get(), m_layer, m_head, &message);
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

QString MainWindow::textB() const
{
    return m_textB->text();
}

std::vector<std::shared_ptr<const AttentionEngine>> MainWindow::engines() const
{
    std::vector<std::shared_ptr<const AttentionEngine>> out;
    for (const ModelEntry& entry : m_entries)
        out.push_back(entry.engine);
    return out;
}

void MainWindow::setComputeBackend(BackendKind kind)
{
    AppSettings().setComputeBackend(backendKindName(kind));
    startComputeBackend(kind);
}

void MainWindow::startComputeBackend(BackendKind kind)
{
    QString notice;
    std::shared_ptr<AttentionBackend> backend = createBackend(kind, &notice);
    // Notices after start (a GPU failing mid-run) come from worker threads: shown on the GUI thread.
    QPointer<MainWindow> self(this);
    backend->setNoticeHandler([self](const QString& message) {
        QMetaObject::invokeMethod(QCoreApplication::instance(), [self, message] {
            if (!self) return;
            self->m_backendNotice = message;
            self->m_noticeLabel->setText(message);
            self->m_noticeLabel->setVisible(true);
        });
    });
    if (auto previous = m_explorerBackend->current()) m_retiredBackends.push_back(std::move(previous));
    m_explorerBackend->set(backend);
    m_backendChoice = kind;
    // Auto choosing the CPU is the normal case without a hardware GPU: no notice for that. Kernels slower
    // than the CPU allows (a binary copied without lib/attnscope) are always worth a notice.
    // The kernels' warning names paths: the status bar says it short, the tooltip in full.
    QStringList notices, details;
    if (!notice.isEmpty()) details << notice;
    if (kind != BackendKind::Auto && !notice.isEmpty()) notices << notice;
    if (const QString slow = kernels::unloadedKernelsWarning(); !slow.isEmpty()) {
        notices << tr("Slow CPU kernels (%1): modules missing, see the tooltip")
                       .arg(kernels::cpuKernelChoice().variant);
        details << slow;
    }
    m_backendNotice = notices.join(QStringLiteral("; "));
    m_noticeLabel->setText(m_backendNotice);
    m_noticeLabel->setVisible(!m_backendNotice.isEmpty());
    m_noticeLabel->setToolTip(details.join(QLatin1Char('\n')));
    for (QAction* action : m_computeMenu->actions())
        if (action->data().toInt() == int(kind)) action->setChecked(true);
    m_backendLabel->setText(tr("backend: %1").arg(backendDescription(*backend)));
    if (currentEngine()) runNow();
}

QString MainWindow::computeBackendDescription() const
{
    const auto backend = m_explorerBackend->current();
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
        m_statsModel->retranslate();
        if (m_result) updateStatus();
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
