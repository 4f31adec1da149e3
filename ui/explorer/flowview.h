#pragma once

// The "Flow" tab (issue 14): what each token finally draws on, and how large the residual stream is.
// Attention rollout (core analysis/rollout.h) of the weights α or of the contribution shares, and the
// residual stream's norm and largest |activation| per layer and token (core analysis/residualprofile.h),
// each as plain HeatmapData a HeatmapWidget paints. Rollout is O(layers · n³): computed off the GUI thread.

#include "explorer/backgroundjob.h"
#include "explorer/explorerresult.h"
#include "render/heatmapdata.h"

#include <QWidget>
#include <atomic>
#include <memory>

class QComboBox;
class QLabel;

namespace attnscope {

class HeatmapWidget;

enum class FlowKind { RolloutWeight, RolloutContribution, ResidualNorm, ResidualMaxAbs };

// Why this run cannot show `kind` ("" when it can): contributions need value vectors, residuals a model.
QString flowUnavailableReason(const AttentionRun& run, FlowKind kind);

// The rollout after the last layer, R = Â_L ⋯ Â_0 (rows: tokens' last representations, columns: input
// tokens; every row sums to 1), of the weights or of the contribution shares. Throws OperationCancelled and
// std::invalid_argument (flowUnavailableReason).
HeatmapData rolloutHeatmap(const AttentionRun& run, const QString& model, bool contributionWeighted,
                           const std::atomic<bool>* cancel = nullptr);

// Rows: the residual stream's boundaries (the input of layer 0 … the last layer's output), columns: tokens;
// the values as they are (‖x‖₂ or max |x_c|), drawn per row against the row's largest.
HeatmapData residualHeatmap(const AttentionRun& run, const QString& model, bool maxAbs);

class FlowView : public QWidget
{
    Q_OBJECT
public:
    explicit FlowView(QWidget* parent = nullptr);
    void setResult(std::shared_ptr<const ExplorerResult> result);
    void setKind(FlowKind kind);
    FlowKind kind() const;
    // The explorer's measure (issue 36): the rollout shown follows it, of the weights α or of the
    // contribution shares ‖αf(x)‖. The residual views do not depend on it and stay.
    void followMeasure(bool contribution);
    void setStyle(const HeatmapStyle& style);
    HeatmapWidget* heatmap() const { return m_heatmap; }
    QLabel* note() const { return m_note; }
    BackgroundJob* job() const { return m_job; }

protected:
    void changeEvent(QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void retranslate();
    void rebuild();

    std::shared_ptr<const ExplorerResult> m_result;
    QComboBox* m_kindBox = nullptr;
    QLabel* m_kindLabel = nullptr;
    QLabel* m_note = nullptr;
    HeatmapWidget* m_heatmap = nullptr;
    BackgroundJob* m_job = nullptr;
    HeatmapStyle m_style;
    bool m_dirty = true;
};

} // namespace attnscope
