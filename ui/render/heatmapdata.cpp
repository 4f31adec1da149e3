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
    if (signedValues) return std::clamp(v / std::max(1e-12, double(signedRange)), -1.0, 1.0);
    switch (scale) {
    case HeatmapScale::Absolute:
        return std::clamp(v, 0.0, 1.0);
    case HeatmapScale::RowMax: {
        float maximum = 0;
        if (size_t(row) < rowMax.size()) {
            maximum = rowMax[size_t(row)];
        } else {
            const float* begin = values.data() + size_t(row) * size_t(cols);
            maximum = *std::max_element(begin, begin + cols);
        }
        return maximum > 0 ? std::clamp(v / maximum, 0.0, 1.0) : 0.0;
    }
    case HeatmapScale::Log:
        return std::clamp((std::log10(std::max(v, 1e-4)) + 4.0) / 4.0, 0.0, 1.0);
    }
    return 0.0;
}

void discountSpecialTokens(HeatmapData& data, const QString& titleSuffix)
{
    if (data.discounted || !data.colStarts.empty())
        return;
    auto special = [&](int col) { return data.isDiscountable(data.firstCol + col); };
    for (int r = 0; r < data.rows; ++r) {
        float* row = data.values.data() + size_t(r) * size_t(data.cols);
        double kept = 0;
        for (int c = 0; c < data.cols; ++c)
            if (!special(c))
                kept += row[c];
        for (int c = 0; c < data.cols; ++c)
            row[c] = special(c) || kept <= 0 ? 0.0f : float(row[c] / kept);
    }
    data.rowMax.clear();
    data.discounted = true;
    if (!titleSuffix.isEmpty())
        data.title += titleSuffix;
}

} // namespace attnscope
