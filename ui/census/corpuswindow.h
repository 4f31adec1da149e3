#pragma once

// The "Corpus" view (issue 17): run the census of the explorer's model over a text file, watch the grid,
// the layer curves and the head map fill in live, cancel; pick a metric; click a head to list the inputs
// where its metric is strongest and weakest, and open one of them in the explorer.
// The census runs on its own thread (core/census/censusrun.h); the window only paints snapshots.
// Each census saves its result file as it goes (atomically, as `attnscope census` does) in the result
// directory, so a cancelled one can be resumed, in this session (Resume) or a later one (Resume saved…,
// which also continues a census.json written by `attnscope census`).

#include "census/censusaccumulator.h"
#include "census/censusrun.h"

#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>
#include <thread>

class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;

namespace attnscope {

class CensusGridView;
class HeadMapView;
class LayerCurvesView;

class CorpusWindow : public QWidget
{
    Q_OBJECT
public:
    // modelFolder: a model folder or .gguf file (the explorer's current model).
    explicit CorpusWindow(const QString& modelFolder, QWidget* parent = nullptr);
    ~CorpusWindow() override; // cancels a running census and waits for it

    // Starts the census of `corpusPath` (false with the reason in the status line when one is running).
    bool startCensus(const QString& corpusPath, bool pairs, std::int64_t limit = -1);
    // Continues the census saved in `resultPath` over its own corpus file, with its own options, saving to
    // the same file (a finished one is only shown). False with the reason in the status line when the file
    // cannot be read or a census is running; a saved census that does not fit this model or its corpus
    // file ends as Failed with the reason.
    bool resumeCensus(const QString& resultPath);
    // Where new censuses keep their result files (default: the application's data folder, "census").
    void setResultDirectory(const QString& directory) { m_resultDirectory = directory; }
    // The result file of the current or last census; empty when it could not be saved.
    QString resultPath() const { return m_resultPath; }
    // Enabled after a cancelled census: continues it.
    QPushButton* resumeButton() const { return m_resumeButton; }
    void cancel();
    // For tests, set before a census starts: called on the census thread after every input, before the
    // window's own update. A hook that blocks holds the census at that input, so a test cancels it at a
    // known point on any machine.
    void setProgressHook(CensusProgressCallback hook) { m_progressHook = std::move(hook); }
    bool isRunning() const { return m_worker.joinable() && !m_done; }
    const CensusAccumulator& shownSums() const { return m_sums; }
    std::optional<CensusStatus> finalStatus() const { return m_status; }
    void setMetric(CensusMetric metric);
    void selectHead(int layer, int head);
    QListWidget* inputList() const { return m_inputs; }
    QLabel* statusLabel() const { return m_statusLabel; }
    CensusGridView* gridView() const { return m_grid; }
    HeadMapView* mapView() const { return m_map; }

Q_SIGNALS:
    void finished();
    // An input chosen from the strongest/weakest list (double-click or the button).
    void openInExplorer(const QString& textA, const QString& textB);

private:
    void openCorpusFile();
    void openSavedCensus();
    bool launch(const CensusOptions& options, const std::optional<CensusResult>& resumeFrom);
    void showSnapshot(const CensusAccumulator& sums, const QString& progress);
    void showFinished(const CensusResult& result);
    void refreshViews();
    void refreshInputs();
    void openSelectedInput();
    void joinWorker();

    QString m_modelFolder;
    QString m_corpusPath;
    QString m_resultDirectory;
    QString m_resultPath;
    bool m_pairs = false;
    CensusAccumulator m_sums;
    CensusMetric m_metric = CensusMetric::Sep;
    int m_layer = -1, m_head = -1;
    std::optional<CensusStatus> m_status;

    std::thread m_worker;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::atomic<bool> m_done{true};
    CensusProgressCallback m_progressHook;

    QPushButton* m_open = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QPushButton* m_resumeButton = nullptr;
    QPushButton* m_openSaved = nullptr;
    QCheckBox* m_pairsBox = nullptr;
    QComboBox* m_metricBox = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_statusLabel = nullptr;
    CensusGridView* m_grid = nullptr;
    LayerCurvesView* m_curves = nullptr;
    HeadMapView* m_map = nullptr;
    QListWidget* m_inputs = nullptr;
};

} // namespace attnscope
