// Labels of a scatter plot (the Corpus window's head map): placed labels never cover one another, any point
// or the edge; isolated points always get theirs; the requested point is labelled even inside a crowd.

#include "census/pointlabels.h"

#include <QtTest>
#include <cmath>

using namespace attnscope;

namespace {

void checkGeometry(const PointLabelRequest& request, const std::vector<std::optional<QRectF>>& boxes)
{
    QCOMPARE(boxes.size(), request.points.size());
    const double r = request.pointRadius;
    for (size_t i = 0; i < boxes.size(); ++i) {
        if (!boxes[i]) continue;
        QVERIFY(request.bounds.contains(*boxes[i]));
        QCOMPARE(boxes[i]->size(), request.sizes[i]);
        for (size_t j = 0; j < boxes.size(); ++j) {
            const QRectF disc(request.points[j] - QPointF(r, r), QSizeF(2 * r, 2 * r));
            // The requested label may cover other points in a crowd, never its own.
            if (int(i) != request.first || j == i) QVERIFY(!boxes[i]->intersects(disc));
            if (j != i && boxes[j]) QVERIFY(!boxes[i]->intersects(*boxes[j]));
        }
        // Next to its own point: the box's nearest edge is within the disc radius plus the gap.
        const QPointF at = request.points[i];
        const double dx = std::max({boxes[i]->left() - at.x(), at.x() - boxes[i]->right(), 0.0});
        const double dy = std::max({boxes[i]->top() - at.y(), at.y() - boxes[i]->bottom(), 0.0});
        QVERIFY(std::hypot(dx, dy) <= r + request.gap + 1e-9);
    }
}

} // namespace

class TestPointLabels : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void isolatedPointsAreAllLabelled()
    {
        PointLabelRequest request;
        request.bounds = QRectF(0, 0, 600, 400);
        for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 4; ++j) {
                request.points.emplace_back(60 + 120 * i, 50 + 100 * j);
                request.sizes.emplace_back(40, 14);
            }
        const auto boxes = placePointLabels(request);
        checkGeometry(request, boxes);
        for (const auto& box : boxes)
            QVERIFY(box.has_value());
    }

    void crowdKeepsTheRequestedLabelAndNoPile()
    {
        PointLabelRequest request;
        request.bounds = QRectF(0, 0, 400, 300);
        // 30 points within 20 px of (200, 150): printing all labels there is the pile this avoids.
        for (int i = 0; i < 30; ++i) {
            const double angle = i * 2.399963, radius = 20.0 * std::sqrt((i + 0.5) / 30.0);
            request.points.emplace_back(200 + radius * std::cos(angle), 150 + radius * std::sin(angle));
            request.sizes.emplace_back(36, 13);
        }
        // One far away.
        request.points.emplace_back(40, 40);
        request.sizes.emplace_back(36, 13);
        request.first = 17;
        const auto boxes = placePointLabels(request);
        checkGeometry(request, boxes);
        QVERIFY(boxes[17].has_value());
        QVERIFY(boxes[30].has_value());
        int placed = 0;
        for (const auto& box : boxes)
            placed += box.has_value();
        QVERIFY2(placed < 31, "a crowd of 30 points within 20 px cannot hold 30 non-overlapping labels");
    }

    void labelsStayInside()
    {
        PointLabelRequest request;
        request.bounds = QRectF(0, 0, 200, 100);
        // Points at the corners: the label must go to the inner side or be left out.
        request.points = {QPointF(195, 5), QPointF(5, 95), QPointF(195, 95), QPointF(5, 5)};
        request.sizes.assign(4, QSizeF(40, 14));
        const auto boxes = placePointLabels(request);
        checkGeometry(request, boxes);
        for (const auto& box : boxes)
            QVERIFY(box.has_value()); // each corner leaves room inward
    }

    void mismatchedSizesPlaceNothing()
    {
        PointLabelRequest request;
        request.bounds = QRectF(0, 0, 200, 100);
        request.points = {QPointF(50, 50), QPointF(150, 50)};
        request.sizes = {QSizeF(20, 10)};
        for (const auto& box : placePointLabels(request))
            QVERIFY(!box.has_value());
    }
};

QTEST_APPLESS_MAIN(TestPointLabels)
#include "tst_pointlabels.moc"
