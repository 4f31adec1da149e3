#include "explorer/modellimitnotes.h"

#include "explorer/guidedmodellist.h"
#include "model/guidedmodels.h"
#include "model/memoryestimate.h"

#include <QLocale>

namespace attnscope {

namespace {
QString number(double value)
{
    return QLocale().toString(value, 'f', 2);
}
} // namespace

QString ModelLimitNotes::sinkOrSep(const std::vector<HeadStats>& stats, bool causal,
                                   const LabelThresholds& thresholds)
{
    if (!hasNoSinkOrSepHead(stats, thresholds)) return QString();
    const auto best = strongestSinkOrSepHead(stats, thresholds);
    const QString repo = guidedModelRepo(causal ? GuidedModelCatalog::sinkDecoderId()
                                                : GuidedModelCatalog::sepHeadEncoderId());
    return tr("Too small to show sinks or [SEP] heads: no head puts %1 or more on the first token or "
              "[SEP] (at most %2). %3 in the Get a model tab does.")
        .arg(number(std::min(thresholds.sink, thresholds.noOp)), number(best ? best->mass : 0), repo);
}

QString ModelLimitNotes::measure(const MeasureComparison& comparison)
{
    if (!comparison.normShowsNothingNew()) return QString();
    const QString repo = guidedModelRepo(GuidedModelCatalog::sepHeadEncoderId());
    return tr("Too small to show a heavy [SEP] weight with a small contribution: the special tokens' share "
              "is %1 by weight and %2 by norm. %3 in the Get a model tab shows it.")
        .arg(number(comparison.weightSpecialShare), number(comparison.normSpecialShare), repo);
}

QString ModelLimitNotes::predictions(qint64 parameters, bool causal)
{
    if (!tooSmallToPredict(parameters)) return QString();
    const QString repo = guidedModelRepo(causal ? GuidedModelCatalog::sinkDecoderId()
                                                : GuidedModelCatalog::sepHeadEncoderId());
    return tr("Too small to guess well: %1 parameters (about %2 are needed). %3 in the Get a model tab "
              "guesses sensibly.")
        .arg(formatParameterCount(parameters, QLocale()),
             formatParameterCount(kSmallModelParameters, QLocale()), repo);
}

} // namespace attnscope
