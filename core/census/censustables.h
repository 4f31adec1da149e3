#pragma once

// A census as CSV tables (comma-separated, a header line, '.' decimals):
//   heads:     layer,head,inputs,<metric>_mean,<metric>_std,... (one row per head)
//   layers:    layer,<metric>_mean,<metric>_std,...  (mean over the layer's heads per input; Clark's curves)
//   positions: position,inputs,sink_rate,importance  (Gu et al.: share of heads with alpha_k > 0.3)

#include <QString>

namespace attnscope {

class CensusAccumulator;

QString censusHeadsCsv(const CensusAccumulator& sums);
QString censusLayersCsv(const CensusAccumulator& sums);
QString censusPositionsCsv(const CensusAccumulator& sums);

} // namespace attnscope
