#include "analysis/residualprofile.h"

#include <algorithm>
#include <cmath>

namespace attnscope {

ResidualProfile residualProfile(const AttentionCapture& capture)
{
    ResidualProfile profile;
    profile.boundaries = int(capture.residualNorms.size());
    profile.tokens = profile.boundaries > 0 ? int(capture.residualNorms.front().size()) : 0;
    for (int b = 0; b < profile.boundaries; ++b) {
        const std::vector<float>& norms = capture.residualNorms[size_t(b)];
        const std::vector<float>& maxAbs = capture.residualMaxAbs[size_t(b)];
        profile.norms.insert(profile.norms.end(), norms.begin(), norms.end());
        profile.maxAbs.insert(profile.maxAbs.end(), maxAbs.begin(), maxAbs.end());
    }
    if (capture.residuals.size() == size_t(profile.boundaries))
        for (const std::vector<float>& x : capture.residuals) {
            std::vector<float> magnitudes(x.size());
            std::transform(x.begin(), x.end(), magnitudes.begin(), [](float v) { return std::abs(v); });
            if (magnitudes.empty()) {
                profile.medianAbs.push_back(0.0f);
                continue;
            }
            // Upper median (index n/2 of the sorted values).
            const auto middle = magnitudes.begin() + std::ptrdiff_t(magnitudes.size() / 2);
            std::nth_element(magnitudes.begin(), middle, magnitudes.end());
            profile.medianAbs.push_back(*middle);
        }
    return profile;
}

} // namespace attnscope
