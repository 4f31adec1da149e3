#include "generation/generatetab.h"

#include "explorer/backgroundjob.h"
#include "explorer/heatmapwidget.h"
#include "explorer/predictionswidget.h"
#include "explorer/transformerengine.h"
#include "generation/serieschart.h"
#include "model/modelconfig.h"
#include "model/transformermodel.h"
#include "render/headgridpainter.h"
#include "tokenizer/tokenizer.h"
#include "util/operationcancelled.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

namespace attnscope {

namespace {
// One step as the worker hands it over: the step and the chosen token's text.
struct StepUpdate
{
    GenerationStep step;
    QString label;
};
} // namespace

GenerateTab::GenerateTab(std::function<QString()> prompt, QWidget* parent)
    : DecoderTab(parent), m_prompt(std::move(prompt))
{
    auto* layout = new QVBoxLayout(this);
    auto* controls = new QHBoxLayout;
    m_maxLabel = new QLabel(this);
    m_maxNewTokens = newSpinBox(1, 1024, 20);
    m_sampling = new QCheckBox(this);
    m_temperatureLabel = new QLabel(this);
    m_temperature = newDoubleSpinBox(0.05, 5.0, 0.1, 0.8);
    m_topKLabel = new QLabel(this);
    m_topK = newSpinBox(0, 100000, 40);
    m_topPLabel = new QLabel(this);
    m_topP = newDoubleSpinBox(0.01, 1.0, 0.05, 0.95);
    m_seedLabel = new QLabel(this);
    m_seed = newSpinBox(0, 1000000000, 0);
    m_generate = new QPushButton(this);
    m_cancel = new QPushButton(this);
    for (QWidget* w : std::initializer_list<QWidget*>{m_maxLabel, m_maxNewTokens, m_sampling,
                                                      m_temperatureLabel, m_temperature, m_topKLabel, m_topK,
                                                      m_topPLabel, m_topP, m_seedLabel, m_seed})
        controls->addWidget(w);
    controls->addStretch(1);
    controls->addWidget(m_generate);
    controls->addWidget(m_cancel);
    layout->addLayout(controls);

    m_messageLabel = new QLabel(this);
    m_messageLabel->setWordWrap(true);
    m_messageLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_messageLabel);
    m_textLabel = new QLabel(this);
    m_textLabel->setWordWrap(true);
    m_textLabel->setTextFormat(Qt::RichText);
    layout->addWidget(m_textLabel);

    auto* stepRow = new QHBoxLayout;
    m_back = new QPushButton(this);
    m_forward = new QPushButton(this);
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setRange(0, 0);
    m_stepLabel = new QLabel(this);
    m_headLabel = new QLabel(this);
    m_layerBox = new QSpinBox(this);
    m_headBox = new QSpinBox(this);
    stepRow->addWidget(m_back);
    stepRow->addWidget(m_slider, 1);
    stepRow->addWidget(m_forward);
    stepRow->addWidget(m_stepLabel);
    stepRow->addSpacing(12);
    stepRow->addWidget(m_headLabel);
    stepRow->addWidget(m_layerBox);
    stepRow->addWidget(m_headBox);
    layout->addLayout(stepRow);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    m_heatmap = new HeatmapWidget(splitter);
    splitter->addWidget(m_heatmap);
    auto* side = new QSplitter(Qt::Vertical, splitter);
    m_grid = new GrowingGridWidget(side);
    m_predictions = new PredictionsWidget(side);
    m_predictions->setMinimumHeight(
        int(PredictionPanelGeometry::kHeadingHeight + 5.5 * PredictionPanelGeometry::kRowHeight));
    m_sinkChart = new SeriesChartWidget(side);
    side->addWidget(m_grid);
    side->addWidget(m_predictions);
    side->addWidget(m_sinkChart);
    side->setStretchFactor(0, 3);
    side->setStretchFactor(1, 1);
    side->setStretchFactor(2, 2);
    splitter->addWidget(side);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);

    connect(m_generate, &QPushButton::clicked, this, &GenerateTab::generate);
    connect(m_cancel, &QPushButton::clicked, this, &GenerateTab::cancel);
    connect(m_sampling, &QCheckBox::toggled, this, &GenerateTab::updateControls);
    connect(m_back, &QPushButton::clicked, this, [this] { setStep(m_step - 1); });
    connect(m_forward, &QPushButton::clicked, this, [this] { setStep(m_step + 1); });
    connect(m_slider, &QSlider::valueChanged, this, [this](int value) {
        if (value != m_step) setStep(value);
    });
    connect(m_layerBox, &QSpinBox::valueChanged, this, [this](int l) { setHead(l, m_headIndex); });
    connect(m_headBox, &QSpinBox::valueChanged, this, [this](int h) { setHead(m_layer, h); });
    connect(m_grid, &GrowingGridWidget::headClicked, this, &GenerateTab::setHead);
    connect(m_sinkChart, &SeriesChartWidget::xClicked, this, &GenerateTab::setStep);
    connect(m_job, &BackgroundJob::finished, this, [this](quint64, bool cancelled) {
        if (cancelled && m_ending.isEmpty())
            m_ending = tr("Cancelled after %n token(s).", nullptr, m_trace.stepCount());
        setMessage(m_ending);
        updateControls();
        Q_EMIT runFinished();
    });
    retranslate();
    updateControls();
    showStep();
}

GenerateTab::~GenerateTab()
{
    m_job->cancel();
    m_job->waitForIdle(-1);
}

void GenerateTab::retranslate()
{
    m_maxLabel->setText(tr("Max new tokens"));
    m_sampling->setText(tr("Sample"));
    m_sampling->setToolTip(tr("Off: greedy (the most probable token each step). On: sampling with the "
                              "temperature, top-k, top-p and seed given."));
    m_temperatureLabel->setText(tr("Temperature"));
    m_topKLabel->setText(tr("Top-k"));
    m_topK->setToolTip(tr("0 = every token"));
    m_topPLabel->setText(tr("Top-p"));
    m_seedLabel->setText(tr("Seed"));
    m_generate->setText(tr("Generate"));
    m_generate->setToolTip(tr("Continue Text A with the chosen decoder, one token at a time"));
    m_cancel->setText(tr("Cancel"));
    m_back->setText(tr("◀ Back"));
    m_back->setToolTip(tr("Previous step (Left)"));
    m_forward->setText(tr("Forward ▶"));
    m_forward->setToolTip(tr("Next step (Right)"));
    m_headLabel->setText(tr("Layer / head"));
    setMessage(m_ending.isEmpty() ? m_unavailable : m_ending);
    showStep();
}

void GenerateTab::setEngine(std::shared_ptr<const AttentionEngine> engine)
{
    chooseDecoder(engine,
                  tr("Generation needs a decoder model (a built-in decoder or an opened folder); the "
                     "worked example and the demos have no model to generate with."),
                  tr("%1 is an encoder: it sees the whole text at once and does not generate. Choose a "
                     "decoder (e.g. tiny-llama-en-tr) to watch generation."));
    setMessage(m_unavailable);
    updateControls();
}

void GenerateTab::updateControls()
{
    const bool running = m_job->isRunning();
    const bool sampling = m_sampling->isChecked();
    m_generate->setEnabled(m_engine && !running);
    m_cancel->setEnabled(running);
    for (QWidget* w : std::initializer_list<QWidget*>{m_temperature, m_topK, m_topP, m_seed})
        w->setEnabled(sampling);
    m_back->setEnabled(m_step > 0);
    m_forward->setEnabled(m_step + 1 < m_trace.stepCount());
}

void GenerateTab::generate()
{
    if (!m_engine) {
        setMessage(m_unavailable);
        return;
    }
    const std::shared_ptr<const TransformerEngine> engine = m_engine;
    const Tokenizer& tokenizer = engine->tokenizer();
    std::vector<int> ids;
    try {
        ids = tokenizer.encode(m_prompt(), std::nullopt).ids;
    } catch (const TokenizerError& e) {
        setMessage(QString::fromStdString(e.what()));
        return;
    }
    if (ids.empty()) {
        setMessage(tr("Text A gives no tokens: type a prompt."));
        return;
    }
    const int positions = engine->model().config().maxPositions;
    if (positions > 0 && int(ids.size()) >= positions) {
        setMessage(tr("The prompt has %1 tokens; %2 takes %3 positions, so there is no room to generate.")
                       .arg(ids.size())
                       .arg(engine->displayName())
                       .arg(positions));
        return;
    }
    GenerationOptions options;
    options.maxNewTokens = m_maxNewTokens->value();
    if (m_sampling->isChecked()) {
        options.sampling.temperature = m_temperature->value();
        options.sampling.topK = m_topK->value();
        options.sampling.topP = m_topP->value();
        options.sampling.seed = std::uint64_t(m_seed->value());
    } else {
        options.sampling.temperature = 0;
    }
    if (const std::optional<int> eos = tokenizer.eosId()) options.stopIds.push_back(*eos);
    options.threads = 1; // one of the two cores stays with the GUI

    m_trace = GenerationTrace{};
    m_trace.layers = engine->model().info().layers;
    m_trace.heads = engine->model().info().heads;
    m_trace.promptTokens = int(ids.size());
    for (int i = 0; i < int(ids.size()); ++i)
        m_trace.labels << tokenPiece(tokenizer, ids, i);
    m_step = -1;
    m_ending.clear();
    setMessage(tr("Generating…"));
    showStep();

    m_job->start(
        [this, engine, ids, options](const std::atomic<bool>& cancelFlag, const BackgroundJob::Post& post) {
            GenerationOptions runOptions = options;
            runOptions.cancel = &cancelFlag;
            QString ending;
            try {
                Generation generation(engine->model(), ids, runOptions);
                std::vector<int> sequence = ids;
                while (generation.step()) {
                    sequence.push_back(generation.steps().back().id);
                    StepUpdate update{generation.steps().back(),
                                      tokenPiece(engine->tokenizer(), sequence, int(sequence.size()) - 1)};
                    post([this, update = std::move(update)] {
                        m_trace.steps.push_back(update.step);
                        m_trace.labels << update.label;
                        const bool follow = m_step + 2 >= m_trace.stepCount(); // was showing the newest
                        if (follow) m_step = m_trace.stepCount() - 1;
                        showStep();
                        Q_EMIT stepAdded(m_trace.stepCount());
                    });
                }
                switch (generation.stopped()) {
                case GenerationStop::StopToken:
                    ending = tr("Stopped at the end-of-text token.");
                    break;
                case GenerationStop::ModelPositions:
                    ending = tr("Stopped: the sequence fills the model's positions.");
                    break;
                default:
                    ending = tr("Generated %n token(s).", nullptr, int(generation.steps().size()));
                }
            } catch (const OperationCancelled&) {
                return;
            } catch (const std::exception& e) {
                ending = QString::fromUtf8(e.what());
            }
            post([this, ending] { m_ending = ending; });
        });
    updateControls();
}

void GenerateTab::setStep(int step)
{
    if (m_trace.steps.empty()) return;
    m_step = std::clamp(step, 0, m_trace.stepCount() - 1);
    showStep();
}

void GenerateTab::setHead(int layer, int head)
{
    m_layer = std::clamp(layer, 0, std::max(0, m_trace.layers - 1));
    m_headIndex = std::clamp(head, 0, std::max(0, m_trace.heads - 1));
    showStep();
}

void GenerateTab::showStep()
{
    const int steps = m_trace.stepCount();
    {
        const QSignalBlocker blockSlider(m_slider), blockLayer(m_layerBox), blockHead(m_headBox);
        m_slider->setRange(0, std::max(0, steps - 1));
        m_slider->setValue(std::max(0, m_step));
        m_layerBox->setRange(0, std::max(0, m_trace.layers - 1));
        m_headBox->setRange(0, std::max(0, m_trace.heads - 1));
        m_layerBox->setValue(m_layer);
        m_headBox->setValue(m_headIndex);
    }
    m_stepLabel->setText(steps > 0 ? tr("Step %1 of %2").arg(m_step + 1).arg(steps) : QString());
    if (steps == 0 || m_step < 0) {
        m_heatmap->clear(tr("Press Generate: each new token's attention row is added here."));
        m_grid->setData({});
        m_predictions->setPanel({});
        m_sinkChart->setData({});
        m_textLabel->clear();
        updateControls();
        return;
    }
    m_heatmap->setData(growingHeatmap(m_trace, m_step, m_layer, m_headIndex));
    m_grid->setData(growingGrid(m_trace, m_step));
    m_predictions->setPanel(stepPredictionPanel(m_trace, m_step));
    m_sinkChart->setData(
        sinkShareChartData(sinkShareSeries(m_trace, m_layer, m_headIndex), m_layer, m_headIndex, steps));
    m_sinkChart->setHighlightedX(m_step);
    // The text so far: the prompt, the generated tokens up to the step shown in bold, the rest grey.
    QString html;
    for (int i = 0; i < m_trace.labels.size(); ++i) {
        const QString piece = m_trace.labels.at(i).toHtmlEscaped();
        if (i < m_trace.promptTokens)
            html += piece;
        else if (i - m_trace.promptTokens <= m_step)
            html += QStringLiteral("<b>%1</b>").arg(piece);
        else
            html += QStringLiteral("<span style=\"color:#999\">%1</span>").arg(piece);
    }
    m_textLabel->setText(html);
    updateControls();
}

void GenerateTab::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Left || event->key() == Qt::Key_Comma) {
        setStep(m_step - 1);
        return;
    }
    if (event->key() == Qt::Key_Right || event->key() == Qt::Key_Period) {
        setStep(m_step + 1);
        return;
    }
    QWidget::keyPressEvent(event);
}

GrowingGridWidget::GrowingGridWidget(QWidget* parent) : QWidget(parent) {}

void GrowingGridWidget::setData(HeadGridData data)
{
    m_data = std::move(data);
    update();
}

void GrowingGridWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), Qt::white);
    if (m_data.thumbnails.empty()) return;
    HeadGridPainter(m_data, HeatmapStyle{}).paint(painter, rect());
}

void GrowingGridWidget::mousePressEvent(QMouseEvent* event)
{
    if (m_data.thumbnails.empty()) return;
    QFont font = this->font();
    font.setPointSizeF(HeatmapStyle{}.fontPointSize);
    const QFontMetricsF metrics(font, this);
    const HeadGridPainter painter(m_data, HeatmapStyle{});
    for (int l = 0; l < m_data.layers; ++l)
        for (int h = 0; h < m_data.heads; ++h)
            if (painter.thumbnailRect(rect(), metrics, l, h).contains(event->position())) {
                Q_EMIT headClicked(l, h);
                return;
            }
}

} // namespace attnscope
