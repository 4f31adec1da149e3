#include "explorer/flowview.h"

#include "analysis/contributions.h"
#include "analysis/residualprofile.h"
#include "analysis/rollout.h"
#include "attention/attentionmaps.h"
#include "explorer/heatmapwidget.h"
#include "util/operationcancelled.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <stdexcept>

namespace attnscope {

QString flowUnavailableReason(const AttentionRun& run, FlowKind kind)
{
    if (!run.maps) return QCoreApplication::translate("attnscope", "Nothing is shown yet.");
    switch (kind) {
    case FlowKind::RolloutWeight:
        return {};
    case FlowKind::RolloutContribution:
        return run.valueNorms
                   ? QString()
                   : QCoreApplication::translate(
                         "attnscope",
                         "The contribution ‖αf(x)‖ needs a real model's value vectors; this demo has none.");
    case FlowKind::ResidualNorm:
    case FlowKind::ResidualMaxAbs:
        return run.residuals
                   ? QString()
                   : QCoreApplication::translate(
                         "attnscope", "The residual stream needs a real model; this demo has none.");
    }
    return {};
}

HeatmapData rolloutHeatmap(const AttentionRun& run, const QString& model, bool contributionWeighted,
                           const std::atomic<bool>* cancel)
{
    const FlowKind kind = contributionWeighted ? FlowKind::RolloutContribution : FlowKind::RolloutWeight;
    if (const QString reason = flowUnavailableReason(run, kind); !reason.isEmpty())
        throw std::invalid_argument(reason.toStdString());
    const std::shared_ptr<const AttentionMaps> weights = run.weights ? run.weights : run.maps;
    std::shared_ptr<const AttentionMaps> fed = weights;
    if (contributionWeighted)
        fed = std::make_shared<const ContributionMaps>(weights, *run.valueNorms, ContributionScale::Share,
                                                       cancel);
    const std::vector<std::vector<double>> rollout = attentionRollout(*fed, cancel);
    HeatmapData data;
    data.rows = fed->queries();
    data.cols = fed->keys();
    data.values.assign(rollout.back().begin(), rollout.back().end());
    data.rowLabels = data.colLabels = run.labels;
    data.specialRows = data.specialCols = run.roles.special;
    data.causal = run.roles.causal;
    data.title = QCoreApplication::translate("attnscope", "%1 · rollout over %2 layers · %3")
                     .arg(model)
                     .arg(fed->layers())
                     .arg(contributionWeighted
                              ? QCoreApplication::translate("attnscope", "contribution-weighted ‖αf(x)‖")
                              : QCoreApplication::translate("attnscope", "attention weight α"));
    data.colorBarCaption =
        QCoreApplication::translate("attnscope", "share of what the token draws on (rows sum to 1)");
    return data;
}

HeatmapData residualHeatmap(const AttentionRun& run, const QString& model, bool maxAbs)
{
    const FlowKind kind = maxAbs ? FlowKind::ResidualMaxAbs : FlowKind::ResidualNorm;
    if (const QString reason = flowUnavailableReason(run, kind); !reason.isEmpty())
        throw std::invalid_argument(reason.toStdString());
    const ResidualProfile& profile = *run.residuals;
    HeatmapData data;
    data.rows = profile.boundaries;
    data.cols = profile.tokens;
    data.values = maxAbs ? profile.maxAbs : profile.norms;
    for (int b = 0; b < profile.boundaries; ++b)
        data.rowLabels << (b + 1 < profile.boundaries
                               ? QCoreApplication::translate("attnscope", "into L%1").arg(b)
                               : QCoreApplication::translate("attnscope", "output"));
    data.colLabels = run.labels;
    data.specialCols = run.roles.special;
    data.title = QCoreApplication::translate("attnscope", "%1 · residual stream · %2")
                     .arg(model, maxAbs ? QCoreApplication::translate("attnscope", "largest |activation|")
                                        : QCoreApplication::translate("attnscope", "norm ‖x‖"));
    data.colorBarCaption = QCoreApplication::translate("attnscope", "per layer, against its largest token");
    return data;
}

FlowView::FlowView(QWidget* parent) : QWidget(parent), m_job(new BackgroundJob(this))
{
    auto* layout = new QVBoxLayout(this);
    auto* controls = new QHBoxLayout;
    m_kindLabel = new QLabel(this);
    m_kindBox = new QComboBox(this);
    m_kindBox->setObjectName(QStringLiteral("flowKind"));
    for (FlowKind kind : {FlowKind::RolloutWeight, FlowKind::RolloutContribution, FlowKind::ResidualNorm,
                          FlowKind::ResidualMaxAbs})
        m_kindBox->addItem(QString(), int(kind));
    controls->addWidget(m_kindLabel);
    controls->addWidget(m_kindBox);
    controls->addStretch();
    layout->addLayout(controls);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->setVisible(false);
    layout->addWidget(m_note);
    m_heatmap = new HeatmapWidget(this);
    layout->addWidget(m_heatmap, 1);
    connect(m_kindBox, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
        m_dirty = true;
        if (isVisible()) rebuild();
    });
    retranslate();
}

void FlowView::retranslate()
{
    m_kindLabel->setText(tr("Show:"));
    m_kindBox->setItemText(0, tr("Rollout of the attention weights"));
    m_kindBox->setItemText(1, tr("Rollout of the contributions ‖αf(x)‖"));
    m_kindBox->setItemText(2, tr("Residual stream: norm per layer and token"));
    m_kindBox->setItemText(3, tr("Residual stream: largest |activation|"));
}

void FlowView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslate();
        m_dirty = true;
        if (isVisible()) rebuild();
    }
    QWidget::changeEvent(event);
}

void FlowView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_dirty) rebuild();
}

void FlowView::setResult(std::shared_ptr<const ExplorerResult> result)
{
    m_result = std::move(result);
    m_dirty = true;
    if (isVisible()) rebuild();
}

void FlowView::setKind(FlowKind kind)
{
    m_kindBox->setCurrentIndex(m_kindBox->findData(int(kind)));
}

void FlowView::followMeasure(bool contribution)
{
    if (kind() == FlowKind::RolloutWeight || kind() == FlowKind::RolloutContribution)
        setKind(contribution ? FlowKind::RolloutContribution : FlowKind::RolloutWeight);
}

FlowKind FlowView::kind() const
{
    return FlowKind(m_kindBox->currentData().toInt());
}

void FlowView::setStyle(const HeatmapStyle& style)
{
    m_style = style;
    HeatmapStyle shown = style;
    if (kind() == FlowKind::ResidualNorm || kind() == FlowKind::ResidualMaxAbs)
        shown.scale = HeatmapScale::RowMax;
    m_heatmap->setStyle(shown);
}

void FlowView::rebuild()
{
    m_dirty = false;
    setStyle(m_style);
    if (!m_result) {
        m_job->cancel();
        m_heatmap->clear(tr("No result"));
        m_note->setVisible(false);
        return;
    }
    const FlowKind shown = kind();
    const QString reason = flowUnavailableReason(m_result->run, shown);
    m_note->setText(reason);
    m_note->setVisible(!reason.isEmpty());
    if (!reason.isEmpty()) {
        m_job->cancel();
        m_heatmap->clear(reason);
        return;
    }
    if (shown == FlowKind::ResidualNorm || shown == FlowKind::ResidualMaxAbs) {
        m_job->cancel();
        m_heatmap->setData(
            residualHeatmap(m_result->run, m_result->modelName, shown == FlowKind::ResidualMaxAbs));
        return;
    }
    // Rollout multiplies n × n matrices per layer: on a worker, the last request wins.
    m_heatmap->setStale(tr("Computing the rollout…"));
    const auto result = m_result;
    m_job->start([this, result, shown](const std::atomic<bool>& cancel, const BackgroundJob::Post& post) {
        try {
            HeatmapData data = rolloutHeatmap(result->run, result->modelName,
                                              shown == FlowKind::RolloutContribution, &cancel);
            post([this, data = std::move(data)] {
                m_heatmap->setStale(QString());
                m_heatmap->setData(data);
            });
        } catch (const OperationCancelled&) {
        } catch (const std::exception& e) {
            const QString message = QString::fromStdString(e.what());
            post([this, message] { m_heatmap->clear(message); });
        }
    });
}

} // namespace attnscope
