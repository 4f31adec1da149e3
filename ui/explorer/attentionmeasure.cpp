#include "explorer/attentionmeasure.h"

#include "analysis/contributions.h"

#include <QCoreApplication>
#include <stdexcept>

namespace attnscope {

QString measureName(AttentionMeasure measure)
{
    return measure == AttentionMeasure::Contribution
               ? QCoreApplication::translate("attnscope", "contribution ‖αf(x)‖")
               : QCoreApplication::translate("attnscope", "attention weight α");
}

QString measureScaleCaption(AttentionMeasure measure)
{
    return measure == AttentionMeasure::Contribution
               ? QCoreApplication::translate("attnscope", "share of the row's ‖αf(x)‖, not a probability")
               : QString();
}

QString contributionUnavailableReason(const AttentionRun& run)
{
    if (!run.valueNorms)
        return QCoreApplication::translate(
            "attnscope", "The contribution ‖αf(x)‖ needs a real model's value vectors; this demo has none.");
    return {};
}

AttentionRun measuredRun(const AttentionRun& run, AttentionMeasure measure, const std::atomic<bool>* cancel)
{
    AttentionRun out = run;
    const std::shared_ptr<const AttentionMaps> weights = run.weights ? run.weights : run.maps;
    out.weights = weights;
    out.measure = measure;
    out.contributionNorms.reset();
    if (measure == AttentionMeasure::Weight) {
        out.maps = weights;
        return out;
    }
    if (!run.valueNorms) throw std::invalid_argument(contributionUnavailableReason(run).toStdString());
    out.maps =
        std::make_shared<const ContributionMaps>(weights, *run.valueNorms, ContributionScale::Share, cancel);
    out.contributionNorms =
        std::make_shared<const ContributionMaps>(weights, *run.valueNorms, ContributionScale::Norm);
    return out;
}

std::vector<float> contributionRowTotals(const AttentionRun& run, int layer, int head)
{
    if (run.measure != AttentionMeasure::Contribution || !run.contributionNorms) return {};
    const AttentionMaps& norms = *run.contributionNorms;
    const int n = norms.queries(), keys = norms.keys(), band = 64;
    std::vector<float> totals(size_t(n), 0.0f);
    for (int q0 = 0; q0 < n; q0 += band) {
        const int q1 = std::min(n, q0 + band);
        const std::vector<float> rows = norms.tile(layer, head, q0, q1, 0, keys);
        for (int i = q0; i < q1; ++i) {
            double sum = 0;
            for (int j = 0; j < keys; ++j)
                sum += rows[size_t(i - q0) * size_t(keys) + size_t(j)];
            totals[size_t(i)] = float(sum);
        }
    }
    return totals;
}

} // namespace attnscope
