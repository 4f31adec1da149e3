#include "census/pointlabels.h"

#include <algorithm>
#include <numeric>

namespace attnscope {

namespace {

std::vector<QRectF> candidateBoxes(QPointF at, QSizeF size, double radius, double gap)
{
    const double w = size.width(), h = size.height(), off = radius + gap;
    return {
        QRectF(at.x() + off, at.y() - h, w, h),         // right, above the centre line
        QRectF(at.x() + off, at.y(), w, h),             // right, below
        QRectF(at.x() - off - w, at.y() - h, w, h),     // left, above
        QRectF(at.x() - off - w, at.y(), w, h),         // left, below
        QRectF(at.x() - w / 2, at.y() - off - h, w, h), // centred above
        QRectF(at.x() - w / 2, at.y() + off, w, h),     // centred below
    };
}

} // namespace

std::vector<std::optional<QRectF>> placePointLabels(const PointLabelRequest& request)
{
    const size_t count = request.points.size();
    std::vector<std::optional<QRectF>> placed(count);
    if (request.sizes.size() != count) return placed;

    // Crowding: other points within one label width (the widest label) of this one.
    double reach = 0;
    for (const QSizeF& size : request.sizes)
        reach = std::max(reach, size.width());
    std::vector<int> neighbours(count, 0);
    for (size_t i = 0; i < count; ++i)
        for (size_t j = 0; j < count; ++j)
            if (i != j) {
                const QPointF d = request.points[i] - request.points[j];
                if (d.x() * d.x() + d.y() * d.y() < reach * reach) ++neighbours[i];
            }
    std::vector<size_t> order(count);
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const bool aFirst = int(a) == request.first, bFirst = int(b) == request.first;
        if (aFirst != bFirst) return aFirst;
        return neighbours[a] < neighbours[b];
    });

    const double r = request.pointRadius;
    std::vector<QRectF> discs(count);
    for (size_t i = 0; i < count; ++i)
        discs[i] = QRectF(request.points[i] - QPointF(r, r), QSizeF(2 * r, 2 * r));
    std::vector<QRectF> taken;
    for (const size_t i : order) {
        const std::vector<QRectF> candidates =
            candidateBoxes(request.points[i], request.sizes[i], r, request.gap);
        for (const QRectF& box : candidates) {
            if (!request.bounds.contains(box)) continue;
            const bool coversLabel = std::any_of(taken.begin(), taken.end(),
                                                 [&](const QRectF& other) { return other.intersects(box); });
            if (coversLabel) continue;
            bool coversPoint = false;
            for (size_t j = 0; j < count && !coversPoint; ++j)
                coversPoint = discs[j].intersects(box);
            if (coversPoint) continue;
            placed[i] = box;
            taken.push_back(box);
            break;
        }
        // The requested label is never left out: inside a crowd it may cover other points (it is placed
        // before any other label, so it covers no label).
        if (!placed[i] && int(i) == request.first)
            for (const QRectF& box : candidates)
                if (request.bounds.contains(box)) {
                    placed[i] = box;
                    taken.push_back(box);
                    break;
                }
    }
    return placed;
}

} // namespace attnscope
