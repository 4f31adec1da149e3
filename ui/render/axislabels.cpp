#include "render/axislabels.h"

#include <algorithm>
#include <cmath>

namespace attnscope {

double specialCellMinimum(double lineHeightPerPixel)
{
    return kMinimumLabelPixelSize * lineHeightPerPixel / std::sin(M_PI / 3) + 0.5;
}

AxisLabelPlan planAxisLabels(const AxisLabelRequest& request)
{
    AxisLabelPlan plan;
    const int count = int(request.centers.size());
    if (count == 0) {
        plan.pixelSize = request.preferredPixelSize;
        return plan;
    }
    auto isSpecial = [&](int index) {
        return size_t(index) < request.special.size() && request.special[size_t(index)];
    };
    // The tightest distance between two ordinary neighbours (special cells may be wider).
    double spacing = 1e9;
    for (int i = 1; i < count; ++i)
        spacing = std::min(spacing, (request.centers[size_t(i)] - request.centers[size_t(i - 1)]) *
                                        request.spacingFactor);
    const double fitting = spacing / request.lineHeightPerPixel;
    if (fitting >= request.minimumPixelSize) {
        plan.pixelSize = std::min(request.preferredPixelSize, fitting);
        for (int i = 0; i < count; ++i)
            plan.shown.push_back(request.first + i);
        return plan;
    }
    plan.pixelSize = request.minimumPixelSize;
    const double line = plan.pixelSize * request.lineHeightPerPixel;
    // The ordinary spacing: the median neighbour distance (the wide special cells are few).
    std::vector<double> gaps;
    for (int i = 1; i < count; ++i)
        gaps.push_back((request.centers[size_t(i)] - request.centers[size_t(i - 1)]) * request.spacingFactor);
    std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
    const double ordinary = std::max(1e-6, gaps[gaps.size() / 2]);
    plan.step = std::max(1, int(std::ceil(line / ordinary - 1e-9)));
    std::vector<double> specialCenters;
    for (int i = 0; i < count; ++i)
        if (isSpecial(request.first + i)) specialCenters.push_back(request.centers[size_t(i)]);
    for (int i = 0; i < count; ++i) {
        const int index = request.first + i;
        const double center = request.centers[size_t(i)];
        if (isSpecial(index)) {
            plan.shown.push_back(index);
            continue;
        }
        if (index % plan.step != 0) continue;
        const bool touchesSpecial = std::any_of(specialCenters.begin(), specialCenters.end(), [&](double s) {
            return std::abs(s - center) * request.spacingFactor < line;
        });
        if (!touchesSpecial) plan.shown.push_back(index);
    }
    return plan;
}

} // namespace attnscope
