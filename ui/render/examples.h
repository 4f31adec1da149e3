#pragma once

#include "render/heatmapdata.h"

namespace attnscope {

// The worked example "kedi mindere oturdu" as a heatmap: P = softmax(QKᵀ/√4), optionally causal.
HeatmapData workedExampleHeatmap(bool causal = false);

} // namespace attnscope
