#include "explorer/gridpane.h"

#include "analysis/sinkverdict.h"
#include "explorer/ablationrunner.h"
#include "explorer/explorerresult.h"
#include "explorer/explorersession.h"
#include "explorer/guidedmodellist.h"
#include "explorer/headgridwidget.h"
#include "explorer/modellimitnotes.h"
#include "explorer/predictionpanel.h"
#include "explorer/predictionswidget.h"
#include "explorer/retranslation.h"
#include "render/headnames.h"
#include "stats/headstats.h"

#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <optional>

namespace attnscope {

namespace {
constexpr int kColorByLabel = -1; // the colour box's "Label" entry

std::optional<HeadMetric> chosenMetric(const QComboBox* box)
{
    if (box->currentIndex() <= 0) return std::nullopt; // "Head order", "No colour"
    return HeadMetric(box->currentData().toInt());
}
} // namespace

GridPane::GridPane(ExplorerSession* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_retranslation(new Retranslation(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    buildMeasureRow();
    buildGridRows();
    buildScanRow();
    buildPredictions();
}

void GridPane::buildMeasureRow()
{
    auto* measureRow = new QHBoxLayout;
    auto* measureLabel = new QLabel(this);
    m_measureBox = new QComboBox(this);
    m_measureBox->setObjectName(QStringLiteral("measureBox"));
    m_measureBox->addItem(QString(), int(AttentionMeasure::Weight));
    m_measureBox->addItem(QString(), int(AttentionMeasure::Contribution));
    m_measureNote = new QLabel(this);
    m_measureNote->setObjectName(QStringLiteral("measureNote"));
    m_measureNote->setWordWrap(true);
    m_measureNote->setVisible(false);
    m_measureLimit = new QLabel(this);
    m_measureLimit->setObjectName(QStringLiteral("measureLimit"));
    m_measureLimit->setWordWrap(true);
    m_measureLimit->setVisible(false);
    m_retranslation->add([this, measureLabel] {
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
    auto* layout = static_cast<QVBoxLayout*>(this->layout());
    layout->addLayout(measureRow);
    layout->addWidget(m_measureNote);
    layout->addWidget(m_measureLimit);
}

void GridPane::buildGridRows()
{
    auto* controls = new QHBoxLayout;
    m_sortBox = new QComboBox(this);
    m_colorByBox = new QComboBox(this);
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
    m_findSpecialHeads = new QPushButton(this);
    m_findSpecialHeads->setObjectName(QStringLiteral("findSinkNoOpHeads"));
    m_findResult = new QLabel(this);
    m_findResult->setObjectName(QStringLiteral("findResult"));
    m_findResult->setWordWrap(true);
    auto* sortLabel = new QLabel(this);
    auto* colourLabel = new QLabel(this);
    m_retranslation->add([this, sortLabel, colourLabel] {
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
    auto* layout = static_cast<QVBoxLayout*>(this->layout());
    layout->addLayout(controls);
    auto* findRow = new QHBoxLayout;
    findRow->addWidget(m_findSpecialHeads);
    findRow->addStretch(1);
    layout->addLayout(findRow);
    // Its own row, the pane's width: the small-model note runs to three lines (issue 36).
    m_findResult->setVisible(false);
    layout->addWidget(m_findResult);
    connect(m_findSpecialHeads, &QPushButton::clicked, this, &GridPane::findSinkAndNoOpHeads);
    // The grid scrolls when the pane is too small for thumbnails that carry every head's number.
    auto* gridScroll = new QScrollArea(this);
    gridScroll->setObjectName(QStringLiteral("headGridScroll"));
    gridScroll->setFrameShape(QFrame::NoFrame);
    gridScroll->setWidgetResizable(true);
    m_grid = new HeadGridWidget(gridScroll);
    gridScroll->setWidget(m_grid);
    layout->addWidget(gridScroll, 1);
    connect(m_sortBox, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this] { m_grid->setSortMetric(chosenMetric(m_sortBox)); });
    connect(m_colorByBox, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
        const bool byLabel = m_colorByBox->currentData().toInt() == kColorByLabel;
        m_grid->setColorByLabel(byLabel);
        m_grid->setColorMetric(byLabel ? std::nullopt : chosenMetric(m_colorByBox));
    });
    connect(m_grid, &HeadGridWidget::headActivated, this, &GridPane::headActivated);
    connect(m_grid, &HeadGridWidget::headContextMenuRequested, this,
            [this](int layer, int head, const QPoint& where) {
                emit headActivated(layer, head);
                QMenu* menu = headContextMenu(layer, head);
                menu->setAttribute(Qt::WA_DeleteOnClose);
                menu->popup(where);
            });
}

void GridPane::buildScanRow()
{
    auto* scanRow = new QHBoxLayout;
    m_scanButton = new QPushButton(this);
    m_scanButton->setObjectName(QStringLiteral("scanHeadsButton"));
    m_scanProgress = new QProgressBar(this);
    m_scanProgress->setObjectName(QStringLiteral("scanProgress"));
    m_scanProgress->setVisible(false);
    m_scanCancel = new QPushButton(this);
    m_scanCancel->setObjectName(QStringLiteral("scanCancel"));
    m_scanCancel->setVisible(false);
    m_scanNote = new QLabel(this);
    m_scanNote->setObjectName(QStringLiteral("scanNote"));
    m_scanNote->setWordWrap(true);
    scanRow->addWidget(m_scanButton);
    scanRow->addWidget(m_scanProgress, 1);
    scanRow->addWidget(m_scanCancel);
    scanRow->addWidget(m_scanNote, 1);
    static_cast<QVBoxLayout*>(layout())->addLayout(scanRow);
    m_retranslation->add([this] {
        m_scanButton->setText(tr("Scan all heads"));
        m_scanCancel->setText(tr("Cancel"));
        updateAblationControls();
    });
    AblationRunner* ablation = m_session->ablationRunner();
    connect(m_scanButton, &QPushButton::clicked, this, [this] { scanAllHeads(AblationMode::Zero); });
    connect(m_scanCancel, &QPushButton::clicked, ablation, &AblationRunner::cancel);
    connect(m_session, &ExplorerSession::ablationShown, this, &GridPane::showAblation);
    connect(m_session, &ExplorerSession::scanShown, this, &GridPane::showScan);
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
        if (const auto result = m_session->result()) {
            m_predictions->setPanel(buildPredictionPanel(result->run));
            m_predictionsBox->setTitle(tr("Predictions"));
        }
        updateAblationControls();
    });
    connect(ablation, &AblationRunner::scanProgress, this, [this](int done, int total) {
        m_scanProgress->setRange(0, total);
        m_scanProgress->setValue(done);
    });
    connect(ablation, &AblationRunner::failed, this, &GridPane::statusMessage);
    connect(ablation, &AblationRunner::finished, this, [this](bool cancelled) {
        if (cancelled) m_scanNote->setText(tr("Scan cancelled"));
        updateAblationControls();
    });
}

void GridPane::buildPredictions()
{
    // The model's own top-5 for the next token or each [MASK]: users see that the model works.
    m_predictionsBox = new QGroupBox(this);
    auto* predictionsLayout = new QVBoxLayout(m_predictionsBox);
    predictionsLayout->setContentsMargins(4, 4, 4, 4);
    m_predictions = new PredictionsWidget(m_predictionsBox);
    predictionsLayout->addWidget(m_predictions);
    m_predictionsLimit = new QLabel(m_predictionsBox);
    m_predictionsLimit->setObjectName(QStringLiteral("predictionsLimit"));
    m_predictionsLimit->setWordWrap(true);
    m_predictionsLimit->setVisible(false);
    predictionsLayout->addWidget(m_predictionsLimit);
    m_predictionsBox->setVisible(false);
    m_retranslation->add([this] { m_predictionsBox->setTitle(tr("Predictions")); });
    layout()->addWidget(m_predictionsBox);
}

void GridPane::showResult(const std::shared_ptr<const ExplorerResult>& result,
                          const std::vector<HeadStats>& stats, bool sameAblatedInput)
{
    m_grid->setStale(false);
    m_grid->setResult(result);
    m_grid->setStats(stats);
    m_findResult->clear();
    m_findResult->setVisible(false);
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
    updateMeasureNote();
    updatePredictionsLimit();
}

void GridPane::updatePredictionsLimit()
{
    const auto result = m_session->result();
    QString note;
    if (result && !result->run.predictions.empty() &&
        m_session->models()->contains(m_session->currentIndex()))
        note = ModelLimitNotes::predictions(
            m_session->models()->at(m_session->currentIndex()).info.parameters, result->run.roles.causal);
    m_predictionsLimit->setText(note);
    m_predictionsLimit->setVisible(!note.isEmpty());
}

void GridPane::clear()
{
    m_findResult->clear();
    m_findResult->setVisible(false);
    m_grid->setResult(nullptr);
    m_grid->setStale(false);
    m_predictionsBox->setVisible(false);
    m_predictions->setPanel(PredictionPanel{});
    updateAblationControls(); // the session dropped the ablation of the failed input
}

void GridPane::setStale(bool stale)
{
    m_grid->setStale(stale);
}

void GridPane::setMeasure(AttentionMeasure measure)
{
    m_measureBox->setCurrentIndex(m_measureBox->findData(int(measure)));
}

QMenu* GridPane::headContextMenu(int layer, int head)
{
    auto* menu = new QMenu(this);
    const QString reason = m_session->ablationUnavailableReason();
    const bool can = reason.isEmpty() && !m_session->ablationRunner()->isScanning();
    auto add = [&](const QString& name, const QString& text, std::function<void()> action) {
        QAction* a = menu->addAction(text);
        a->setObjectName(name);
        a->setEnabled(can);
        connect(a, &QAction::triggered, this, std::move(action));
        return a;
    };
    const int heads = m_session->result() ? m_session->result()->analysis.heads : 0;
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
    connect(clear, &QAction::triggered, m_session, &ExplorerSession::clearAblation);
    if (!reason.isEmpty()) {
        menu->addSeparator();
        menu->addAction(reason)->setEnabled(false);
    }
    return menu;
}

void GridPane::ablateHeads(const std::vector<HeadAblation>& heads, const QString& description)
{
    m_session->ablateHeads(heads, description);
    updateAblationControls();
}

void GridPane::scanAllHeads(AblationMode mode)
{
    m_session->scanAllHeads(mode);
    updateAblationControls();
}

void GridPane::showAblation(const AblationOutcome& outcome)
{
    const auto result = m_session->result();
    m_predictions->setPanel(buildAblationPanel(result->run, m_session->ablationDescription(),
                                               outcome.effect.kl, outcome.originalTop,
                                               outcome.effect.topProbDelta, outcome.effect.top));
    m_predictionsBox->setTitle(tr("Predictions — %1 ablated").arg(m_session->ablationDescription()));
    m_predictionsBox->setVisible(true);
}

void GridPane::showScan(const AblationScan& scan)
{
    std::vector<double> kl;
    for (const AblationEffect& effect : scan.effects)
        kl.push_back(effect.kl);
    m_grid->setEffect(std::move(kl), scan.mode == AblationMode::Zero ? tr("ablation KL, nats (zero)")
                                                                     : tr("ablation KL, nats (mean)"));
    QString note = tr("Scan done: %n head(s)", nullptr, int(scan.effects.size()));
    if (!m_session->scanBackendNote().isEmpty()) note += QStringLiteral(" · ") + m_session->scanBackendNote();
    // What the colours mean, in words a student can follow (issue 36).
    note +=
        QLatin1Char(' ') + tr("Colour: how much the model's prediction changes when that head is switched "
                              "off (KL divergence).");
    m_scanNote->setText(note);
}

void GridPane::updateAblationControls()
{
    const bool scanning = m_session->ablationRunner()->isScanning();
    m_scanProgress->setVisible(scanning);
    m_scanCancel->setVisible(scanning);
    m_scanNote->setVisible(!scanning);
    const QString reason = m_session->ablationUnavailableReason();
    m_scanButton->setEnabled(reason.isEmpty() && !scanning);
    m_scanButton->setToolTip(reason.isEmpty()
                                 ? tr("Switch off every head once and colour the grid by how much "
                                      "the model's prediction changes (KL divergence)")
                                 : reason);
}

void GridPane::updateMeasureNote()
{
    QString reason;
    const auto result = m_session->result();
    if (result && m_session->measure() == AttentionMeasure::Contribution)
        reason = contributionUnavailableReason(result->run);
    m_measureNote->setText(reason.isEmpty() ? QString()
                                            : tr("%1 Showing the attention weight α.").arg(reason));
    m_measureNote->setVisible(!reason.isEmpty());
    const QString limit =
        result && result->measureComparison && m_session->measure() == AttentionMeasure::Contribution
            ? ModelLimitNotes::measure(*result->measureComparison)
            : QString();
    m_measureLimit->setText(limit);
    m_measureLimit->setVisible(!limit.isEmpty());
}

void GridPane::findSinkAndNoOpHeads()
{
    if (!m_session->result()) return;
    std::vector<std::pair<int, int>> found;
    for (const HeadStats& s : m_grid->stats())
        if (s.label == HeadLabel::Sink || s.label == HeadLabel::NoOp) found.emplace_back(s.layer, s.head);
    m_grid->setHighlighted(found);
    QString line = tr("%n sink or no-op head(s)", nullptr, int(found.size()));
    const QString limit = ModelLimitNotes::sinkOrSep(m_grid->stats(), m_session->result()->run.roles.causal);
    if (!limit.isEmpty()) line += QStringLiteral(" · ") + limit;
    m_findResult->setText(line);
    m_findResult->setVisible(true);
    // The strongest of them opens (the first start opens the same head); with none labelled, the nearest
    // to one, so that the note's "at most" figure is on screen.
    if (const auto best = strongestSinkOrSepHead(m_grid->stats()))
        emit headActivated(best->layer, best->head);
}

} // namespace attnscope
