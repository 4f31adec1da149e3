#pragma once

#include "generation/decodertab.h"
#include "generation/generationtrace.h"

#include <functional>
#include <memory>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;

namespace attnscope {

class AttentionEngine;
class BackgroundJob;
class GrowingGridWidget;
class HeatmapWidget;
class PredictionsWidget;
class SeriesChartWidget;
class TransformerEngine;

// The "Generate" tab: a decoder continues Text A token by token on a worker thread (a Generation per run,
// steps copied here as they come, cancellable). Step back and forth through the generated tokens; for the
// step shown: the growing heatmap of the chosen head, the grid of every head over the same rows, the chosen
// token's probability with the top 5, and the attention to the first token per step.
class GenerateTab : public DecoderTab
{
    Q_OBJECT
public:
    explicit GenerateTab(std::function<QString()> prompt, QWidget* parent = nullptr);
    ~GenerateTab() override;

    // The model chosen in the window; anything but a decoder with an LM head gets a message instead.
    void setEngine(std::shared_ptr<const AttentionEngine> engine);
    void generate();

    const GenerationTrace& trace() const { return m_trace; }
    int currentStep() const { return m_step; }
    void setStep(int step);
    void setHead(int layer, int head);
    int layer() const { return m_layer; }
    int head() const { return m_headIndex; }

    QSpinBox* maxNewTokensBox() const { return m_maxNewTokens; }
    QCheckBox* samplingBox() const { return m_sampling; }
    QDoubleSpinBox* temperatureBox() const { return m_temperature; }
    QSpinBox* topKBox() const { return m_topK; }
    QDoubleSpinBox* topPBox() const { return m_topP; }
    QSpinBox* seedBox() const { return m_seed; }
    QPushButton* generateButton() const { return m_generate; }
    QPushButton* cancelButton() const { return m_cancel; }
    QSlider* stepSlider() const { return m_slider; }
    HeatmapWidget* heatmap() const { return m_heatmap; }
    GrowingGridWidget* grid() const { return m_grid; }
    PredictionsWidget* predictions() const { return m_predictions; }
    SeriesChartWidget* sinkChart() const { return m_sinkChart; }

Q_SIGNALS:
    void stepAdded(int steps);
    void runFinished();

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    void retranslate() override;
    void updateControls();
    void showStep();

    std::function<QString()> m_prompt;
    GenerationTrace m_trace;
    int m_step = -1, m_layer = 0, m_headIndex = 0;

    QLabel* m_maxLabel = nullptr;
    QSpinBox* m_maxNewTokens = nullptr;
    QCheckBox* m_sampling = nullptr;
    QLabel* m_temperatureLabel = nullptr;
    QDoubleSpinBox* m_temperature = nullptr;
    QLabel* m_topKLabel = nullptr;
    QSpinBox* m_topK = nullptr;
    QLabel* m_topPLabel = nullptr;
    QDoubleSpinBox* m_topP = nullptr;
    QLabel* m_seedLabel = nullptr;
    QSpinBox* m_seed = nullptr;
    QPushButton* m_generate = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_back = nullptr;
    QPushButton* m_forward = nullptr;
    QSlider* m_slider = nullptr;
    QLabel* m_stepLabel = nullptr;
    QLabel* m_headLabel = nullptr;
    QSpinBox* m_layerBox = nullptr;
    QSpinBox* m_headBox = nullptr;
    QLabel* m_textLabel = nullptr;
    HeatmapWidget* m_heatmap = nullptr;
    GrowingGridWidget* m_grid = nullptr;
    PredictionsWidget* m_predictions = nullptr;
    SeriesChartWidget* m_sinkChart = nullptr;
};

// The grid of every head over the growing rows (HeadGridPainter); a click chooses a head.
class GrowingGridWidget : public QWidget
{
    Q_OBJECT
public:
    explicit GrowingGridWidget(QWidget* parent = nullptr);
    void setData(HeadGridData data);
    const HeadGridData& data() const { return m_data; }
    QSize sizeHint() const override { return {320, 320}; }
    QSize minimumSizeHint() const override { return {160, 160}; }

Q_SIGNALS:
    void headClicked(int layer, int head);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    HeadGridData m_data;
};

} // namespace attnscope
