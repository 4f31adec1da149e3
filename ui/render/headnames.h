#pragma once

#include "stats/headstats.h"

#include <QString>

namespace attnscope {

// Translated display name of a label and of a metric, for tables, menus, the grid and its exports.
QString headLabelDisplayName(HeadLabel label);
QString headMetricDisplayName(HeadMetric metric);

} // namespace attnscope
