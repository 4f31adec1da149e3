#pragma once

#include "stats/headstats.h"

#include <QString>

namespace attnscope {

// Which metric columns of the Statistics tab mean something for a run's tokens (issue 36): a column that is
// zero or a copy of another by construction is hidden.
// - [SEP] mass only where the input has a [SEP] (decoders have none);
// - next token only where a head can attend forward (under a causal mask P[i, i+1] is 0);
// - [CLS] mass only where the [CLS]/BOS positions are not just position 0 of a decoder (there it is the
//   sink mass again, "first token").
bool metricMeansSomething(HeadMetric metric, const TokenRoles& roles);

// The column's title; a decoder's [CLS] position is its BOS.
QString metricColumnTitle(HeadMetric metric, bool causal);

// A column title stacked one word a line, a parenthesis kept on one line, so that every column fits a
// 1280-pixel window without scrolling or cut headers in either language: "Sink mass (first token)" →
// "Sink" / "mass" / "(first token)".
QString stackedColumnTitle(const QString& title);

} // namespace attnscope
