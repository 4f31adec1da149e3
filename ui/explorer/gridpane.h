#pragma once

#include "explorer/attentionmeasure.h"
#include "model/runoptions.h"

#include <QWidget>
#include <memory>
#include <vector>

class QComboBox;
class QGroupBox;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;

namespace attnscope {

struct AblationOutcome;
struct AblationScan;
class ExplorerSession;
struct ExplorerResult;
class HeadGridWidget;
struct HeadStats;
class PredictionsWidget;
class Retranslation;

// The explorer's left pane: the Measure switch, the layer × head grid with its sort and colour boxes and
// "Find sink / no-op heads", the ablation scan (every head switched off once, the grid coloured by the
// prediction's KL), and the model's own predictions. It shows the session's result, measure and ablation,
// and hands the session what the user asks; which head is open is the window's (headActivated).
class GridPane : public QWidget
{
    Q_OBJECT
public:
    GridPane(ExplorerSession* session, QWidget* parent = nullptr);

    HeadGridWidget* grid() const { return m_grid; }
    PredictionsWidget* predictions() const { return m_predictions; }
    QGroupBox* predictionsBox() const { return m_predictionsBox; }
    QComboBox* measureBox() const { return m_measureBox; }
    QLabel* measureNote() const { return m_measureNote; }
    QComboBox* colorByBox() const { return m_colorByBox; }
    QProgressBar* scanProgressBar() const { return m_scanProgress; }
    QPushButton* scanButton() const { return m_scanButton; }
    QPushButton* scanCancelButton() const { return m_scanCancel; }
    QLabel* scanNote() const { return m_scanNote; }

    // A new result with its statistics (labelled at the Statistics tab's thresholds). sameAblatedInput: the
    // result is of the input the shown ablation or scan belongs to, which then stays.
    void showResult(const std::shared_ptr<const ExplorerResult>& result, const std::vector<HeadStats>& stats,
                    bool sameAblatedInput);
    // The run failed or there is none: nothing shown.
    void clear();
    // Until another model's result arrives the grid shows the old one, marked as such.
    void setStale(bool stale);
    void setMeasure(AttentionMeasure measure);

    // The head's context menu (actions ablateHeadZero, ablateHeadMean, ablateLayerZero, ablateLayerMean,
    // scanHeadsZero, scanHeadsMean, clearAblation; the caller owns the menu).
    QMenu* headContextMenu(int layer, int head);
    void ablateHeads(const std::vector<HeadAblation>& heads, const QString& description);
    void scanAllHeads(AblationMode mode);
    // Rings every head labelled sink or no-op, says how many (and, when no head reaches either threshold,
    // that the model is too small and which guided model is not: ModelLimitNotes), and opens the strongest
    // (core strongestSinkOrSepHead, as the first start does).
    void findSinkAndNoOpHeads();
    void updateAblationControls();

Q_SIGNALS:
    void headActivated(int layer, int head);
    void statusMessage(const QString& message); // for the status bar, a while

private:
    void showAblation(const AblationOutcome& outcome);
    void showScan(const AblationScan& scan);
    void updateMeasureNote();
    void updatePredictionsLimit();
    void buildMeasureRow();
    void buildGridRows();
    void buildScanRow();
    void buildPredictions();

    ExplorerSession* m_session;
    Retranslation* m_retranslation;
    QComboBox* m_measureBox = nullptr;
    QLabel* m_measureNote = nullptr;  // the run cannot show contributions: why
    QLabel* m_measureLimit = nullptr; // the model is too small for the norm measure (ModelLimitNotes)
    QComboBox* m_sortBox = nullptr;
    QComboBox* m_colorByBox = nullptr;
    QPushButton* m_findSpecialHeads = nullptr;
    QLabel* m_findResult = nullptr;
    HeadGridWidget* m_grid = nullptr;
    QProgressBar* m_scanProgress = nullptr;
    QPushButton* m_scanButton = nullptr;
    QPushButton* m_scanCancel = nullptr;
    QLabel* m_scanNote = nullptr;
    QGroupBox* m_predictionsBox = nullptr;
    PredictionsWidget* m_predictions = nullptr;
    QLabel* m_predictionsLimit = nullptr; // the model is too small to guess well (ModelLimitNotes)
};

} // namespace attnscope
