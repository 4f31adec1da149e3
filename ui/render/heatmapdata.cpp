#include "render/heatmapdata.h"

#include <algorithm>
#include <cmath>

namespace attnscope {

QString heatmapScaleName(HeatmapScale scale)
{
    switch (scale) {
    case HeatmapScale::Absolute:
        return QStringLiteral("abs");
    case HeatmapScale::RowMax:
        return QStringLiteral("row");
    case HeatmapScale::Log:
        return QStringLiteral("log");
    }
    return {};
}

double HeatmapData::colorParameter(int row, int col, HeatmapScale scale) const
{
    const double v = value(row, col);
    switch (scale) {
    case HeatmapScale::Absolute:
        return std::clamp(v, 0.0, 1.0);
    case HeatmapScale::RowMax: {
        const float* begin = values.data() + size_t(row) * size_t(cols);
        const float rowMax = *std::max_element(begin, begin + cols);
        return rowMax > 0 ? std::clamp(v / rowMax, 0.0, 1.0) : 0.0;
    }
    case HeatmapScale::Log:
        return std::clamp((std::log10(std::max(v, 1e-4)) + 4.0) / 4.0, 0.0, 1.0);
    }
    return 0.0;
}

} // namespace attnscope
