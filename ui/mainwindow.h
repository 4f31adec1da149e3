#pragma once

#include "backend/attentionbackend.h"
#include "explorer/analysisrunner.h"
#include "explorer/explorersession.h"
#include "model/modelinfo.h"
#include "model/runoptions.h"
#include "render/heatmapdata.h"

#include <QElapsedTimer>
#include <QMainWindow>
#include <QPointer>
#include <functional>
#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTimer;

namespace attnscope {

class AblationRunner;
struct AblationOutcome;
struct AblationScan;
class ArcWidget;
class ComparisonWidget;
class ExplorerBackend;
class FlowView;
class HeadGridWidget;
class HeadStatsModel;
class HeatmapWidget;
class LessonLauncher;
class LessonWindow;
class LayerChartWidget;
class PredictionsWidget;
class MainWindowFeatures;
class ModelLoader;
class ProgressPanel;
class TransformerEngine;
class RunStateBanner;
class StatisticsTab;
class CensusLauncher;
class CorpusWindow;
class GenerateTab;
class StreamingTab;
class GuidedModelList;
class GridPane;
class HeatmapTab;
class InputBar;
class MainMenus;
class StatusReadouts;
class GetModelDialog;

// The explorer: pick a model, type text, see every head. The state (models, texts, measure, runs, result,
// ablation) is the ExplorerSession's; the window builds the widgets that show it and hand it what the user
// does. Without a model it opens on the worked example; the synthetic demos exercise everything at any
// length.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Entries of the model picker: built-in models, recent folders, the Hugging Face cache (opened when
    // chosen), then the worked example and the synthetic demos. Returns the picker index of the entry.
    int addEngine(std::shared_ptr<const AttentionEngine> engine);
    int addModelFolder(const QString& folder, const QString& name);
    int modelCount() const;
    // Picker index of the first entry whose name starts with `name`, -1 when none.
    int findModel(const QString& name) const;
    // ExplorerSession::select (errors on the banner): false when it cannot be opened. A model whose memory
    // estimate exceeds MemAvailable is refused with the numbers. Models with at least kBackgroundLoadBytes
    // of weights load on a worker (ModelLoader) with progress and Cancel: then this returns true at once and
    // the model is selected when it has loaded (isLoadingModel() meanwhile).
    bool selectEngine(int index);
    static constexpr qint64 kBackgroundLoadBytes = ExplorerSession::kBackgroundLoadBytes;
    bool isLoadingModel() const { return m_session->isLoading(); }
    ModelLoader* modelLoader() const { return m_session->loader(); }
    // The explorer's state: models, texts, measure, token window, backend, result, ablation.
    ExplorerSession* session() const { return m_session; }
    // Loading and long forward passes: progress and Cancel in the status bar.
    ProgressPanel* progressPanel() const { return m_progress; }
    // Beside the picker: parameters and memory estimate of the chosen model, and the memory available.
    QLabel* modelDetailsLabel() const;
    // What the picker knows of an entry before loading it (empty for the demos).
    ModelInfo modelInfo(int index) const;
    // File > Add folder to the model list: its .gguf files and model folders join the picker (remembered).
    void addModelListFolder(const QString& folder);
    // The folder of a picker entry; "" for the worked example and the demos.
    QString modelFolder(int index) const;
    void setTexts(const QString& textA, const QString& textB = {});
    // A model folder or a llama.cpp .gguf file.
    void openModelFolder(const QString& path);
    void openGgufFile();
    // File > Get a model… (and the guided list's Download, prefilled): the dialog, shown; the model it
    // fetches opens through openModelFolder.
    GetModelDialog* openGetModelDialog(const QString& repo = {}, const QString& ggufFile = {});
    // The Corpus census window (issue 17) for the current model; nullptr (status bar says why) without one.
    CorpusWindow* openCorpusCensus();
    void openHead(int layer, int head);
    // Rings every head labelled sink or no-op in the grid, says how many, and opens the strongest.
    void findSinkAndNoOpHeads();
    // Presenter mode's layout: the heatmap alone on a dark page (PresenterMode switches fonts and palette).
    void setPresenting(bool presenting);
    bool isPresenting() const { return m_presenting; }
    // A notice line under the run-state banner (the first start's hint); the window owns it.
    void addNotice(QWidget* notice);
    // What the views show when it is not simply the text on the chosen model: a failure, a too-long input
    // (with the actions to run a window of it), or the window shown.
    RunStateBanner* runStateBanner() const { return m_banner; }
    // The model asked for at start could not be opened (message: why, one line): the banner says so, and
    // that the window shows its current model instead, until the user chooses a model.
    void showStartFailure(const QString& message);
    // The hover read-out beside the heatmap ("query → key: value").
    QLabel* heatmapReadout() const;
    // Runs a window of the input (the banner's actions); kept until another model is chosen.
    void setTokenWindow(const TokenWindow& window);
    TokenWindow tokenWindow() const;
    // "Open in lesson" (LessonLauncher::openHead) on the layer/head on screen. Returns the window, or
    // null with the reason on the status bar (demo engines and inputs longer than the capture limit have
    // no Q/K); a notice (only the first tokens are shown) goes to the status bar too.
    LessonWindow* openInLesson();
    QAction* openInLessonAction() const { return m_openInLesson; }
    // The Lesson menu: the worked example and "Open in lesson".
    QMenu* lessonMenu() const;
    LessonLauncher* lessonLauncher() const;
    // Shown under Text A while the model has fixed text (the worked example): why typing does nothing.
    QLabel* fixedTextNote() const;
    // The "Measure" switch (explorer/attentionmeasure.h): attention weight α or contribution ‖αf(x)‖ in
    // every view and export. Switching re-measures the shown run off the GUI thread (no new forward pass).
    // When the run cannot show contributions (the demos), the views show the weights and measureNote()
    // says why.
    void setMeasure(AttentionMeasure measure);
    AttentionMeasure measure() const;
    QComboBox* measureBox() const;
    QLabel* measureNote() const;
    // Head ablation (issue 14), computed off the GUI thread by core's AblationStudy: the grid's context menu
    // for a head (actions named ablateHeadZero, ablateHeadMean, ablateLayerZero, ablateLayerMean,
    // scanHeadsZero, scanHeadsMean, clearAblation; the caller owns the menu), an ablation of some heads (the
    // Predictions panel then shows the change), and the scan of every head (progress and Cancel under the
    // grid; the grid is coloured by each head's KL).
    QMenu* headContextMenu(int layer, int head);
    // Why ablation is not offered for the shown run ("" when it is): the demos, a model without an LM head,
    // an encoder input without [MASK].
    QString ablationUnavailableReason() const;
    void ablateHeads(const std::vector<HeadAblation>& heads, const QString& description);
    void scanAllHeads(AblationMode mode);
    void clearAblation();
    AblationRunner* ablationRunner() const { return m_session->ablationRunner(); }
    QProgressBar* scanProgressBar() const;
    QPushButton* scanButton() const;
    QPushButton* scanCancelButton() const;
    QLabel* scanNote() const;

    HeatmapWidget* heatmap() const;
    HeatmapTab* heatmapTab() const { return m_heatmapTab; }
    HeadGridWidget* grid() const;
    GridPane* gridPane() const { return m_gridPane; }
    PredictionsWidget* predictions() const;
    QGroupBox* predictionsBox() const;
    HeadStatsModel* statsModel() const;
    QSortFilterProxyModel* statsProxy() const;
    ComparisonWidget* comparison() const { return m_comparison; }
    ArcWidget* arcs() const { return m_arcs; }
    // Attention rollout and the residual stream (issue 14).
    FlowView* flowView() const { return m_flow; }
    LayerChartWidget* layerChart() const;
    // Issue 16: step through generation, and the StreamingLLM experiment on the KV cache.
    GenerateTab* generateTab() const { return m_generateTab; }
    StreamingTab* streamingTab() const { return m_streamingTab; }
    // "Models that show it": a tab, the current one when the list holds only the built-in models.
    GuidedModelList* guidedModels() const { return m_guidedModels; }
    bool onlyBuiltinModels() const { return m_session->onlyBuiltinModels(); }
    AnalysisRunner* runner() const { return m_session->runner(); }
    QPlainTextEdit* textAEdit() const;
    QComboBox* modelBox() const;
    QTableView* statsTable() const;
    StatisticsTab* statisticsTab() const { return m_statisticsTab; }
    QTabWidget* tabs() const { return m_tabs; }
    std::shared_ptr<const ExplorerResult> currentResult() const { return m_session->result(); }
    // Menus other features fill (issue 7: presenter mode, export, language).
    QMenu* viewMenu() const;
    QMenu* exportMenu() const;
    QMenu* languageMenu() const;
    QString statusText() const;
    // For issue 7's MainWindowFeatures / MainWindowHost (export, presenter mode, settings, rebuild on a
    // language change).
    QComboBox* colorMapBox() const;
    QComboBox* colorByBox() const; // the grid's "Colour:" box
    QComboBox* scaleBox() const;
    int currentEngineIndex() const { return m_session->currentIndex(); }
    QString textB() const;
    // The picker's engines in picker order; null for model folders not opened yet.
    std::vector<std::shared_ptr<const AttentionEngine>> engines() const;
    // Where real models compute attention (View > Compute backend, remembered in AppSettings). Creates
    // the backend here, on the GUI thread (GPU backends need it), and recomputes. When the one chosen
    // cannot start the CPU is used and backendNotice() says why in one line (also in the status bar).
    void setComputeBackend(BackendKind kind);
    BackendKind computeBackendChoice() const { return m_session->backendChoice(); }
    // The backend real models use now; "Vulkan · llvmpipe (...)", "CPU · <processor>".
    QString computeBackendDescription() const;
    QString backendNotice() const { return m_session->backendNotice(); }
    QString backendStatus() const; // the status bar's backend field
    QMenu* computeMenu() const;
    // Export, presenter mode, language and settings (issue 7).
    MainWindowFeatures* features() const { return m_features; }

protected:
    void changeEvent(QEvent* event) override;

private:
    // Sets a translated text now and again on every language change (QEvent::LanguageChange).
    void onRetranslate(std::function<void()> retranslate);
    void buildTabs(QWidget* parent);
    void placeGridPane(); // shown beside the tabs unless the current one has its own or needs the width
    void connectLoading();
    // sameAblatedInput: the result is of the input the shown ablation or scan belongs to.
    void showResult(const std::shared_ptr<const ExplorerResult>& result, bool sameAblatedInput);
    void showCurrentModel(int index, bool switched);
    // A message about something other than the run (a folder that cannot be opened): the banner says it,
    // the views keep the run they show.
    void showFailure(const QString& message);
    // The run failed: the banner says why (with the window actions when limit > 0), every view is cleared.
    void showRunFailure(const QString& message, int limit);
    void clearViews(const QString& reason);
    void applyStyle();
    void applyHeatmapStyle();
    void updateComparisonChoices();
    std::shared_ptr<const AttentionEngine> currentEngine() const;

    ExplorerSession* m_session = nullptr;
    std::vector<std::function<void()>> m_retranslators;
    CensusLauncher* m_census = nullptr;
    HeatmapStyle m_style;
    int m_layer = 0, m_head = 0;
    bool m_presenting = false;
    QString m_startFailure; // shown on the banner over every result until a model is chosen
    QAction* m_openInLesson = nullptr;
    ProgressPanel* m_progress = nullptr;
    InputBar* m_inputBar = nullptr;
    RunStateBanner* m_banner = nullptr;
    GridPane* m_gridPane = nullptr;
    QTabWidget* m_tabs = nullptr;
    HeatmapTab* m_heatmapTab = nullptr;
    ComparisonWidget* m_comparison = nullptr;
    ArcWidget* m_arcs = nullptr;
    StatisticsTab* m_statisticsTab = nullptr;
    GenerateTab* m_generateTab = nullptr;
    StreamingTab* m_streamingTab = nullptr;
    FlowView* m_flow = nullptr;
    GuidedModelList* m_guidedModels = nullptr;
    StatusReadouts* m_readouts = nullptr;
    MainMenus* m_menus = nullptr;
    MainWindowFeatures* m_features = nullptr;
    GetModelDialog* m_getModelDialog = nullptr;
};

} // namespace attnscope
