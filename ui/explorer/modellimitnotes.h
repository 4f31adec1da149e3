#pragma once

// The one-line notes a view shows when the model on screen cannot show what that view is for (issue 36,
// point 1), each pointing to the guided entry (Get a model tab) that can. The verdicts are core's
// (analysis/modellimits.h), from the numbers the view shows; "" when the model can show it.

#include "analysis/modellimits.h"

#include <QCoreApplication>
#include <QString>

namespace attnscope {

class ModelLimitNotes
{
    Q_DECLARE_TR_FUNCTIONS(ModelLimitNotes)
public:
    // Find sink / no-op heads: no head reaches the sink or the [SEP] threshold. Points to a decoder with
    // first-token sinks (causal) or an encoder with [SEP] heads.
    static QString sinkOrSep(const std::vector<HeadStats>& stats, bool causal,
                             const LabelThresholds& thresholds = {});
    // The norm measure: compareMeasures says the norm shows nothing the weights do not.
    static QString measure(const MeasureComparison& comparison);
    // The predictions panel: fewer than kSmallModelParameters parameters.
    static QString predictions(qint64 parameters, bool causal);
};

} // namespace attnscope
