// The plain geometry the explorer's widgets paint from, tested without a window: grid layout and keyboard
// moves, arc lines, the per-layer chart, token alignment for comparing two sentences.

#include "explorer/arclayout.h"
#include "explorer/layerchartwidget.h"
#include "explorer/tokenalignment.h"
#include "render/headgridlayout.h"

#include <QtTest>

using namespace attnscope;

class TestExplorerGeometry : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void gridSlotsRoundTrip()
    {
        const HeadGridLayout grid(3, 4, QRectF(0, 0, 400, 300));
        for (int l = 0; l < 3; ++l)
            for (int s = 0; s < 4; ++s) {
                const QRectF r = grid.thumbnailRect(l, s);
                QCOMPARE(r.width(), r.height()); // square thumbnails
                QVERIFY(QRectF(0, 0, 400, 300).contains(r));
                QCOMPARE(grid.slotAt(r.center()), std::make_optional(std::make_pair(l, s)));
            }
        QVERIFY(!grid.slotAt(QPointF(1, 1))); // the label column
    }

    // A grid wider than its view (thumbnails at their minimum, 32 heads in a 500-px area), scrolled
    // sideways by 300 px: the layer labels' column starts at the visible edge, each label sits on its row
    // left of nothing but the column, and a point under the column picks no thumbnail (it is covered).
    void layerLabelsStickToTheVisibleEdge()
    {
        HeadGridLayout grid(4, 32, QRectF(4, 4, 500, 400), 34, 16, 30);
        QVERIFY(grid.thumbnailRect(0, 31).right() > 504); // runs past the area: the view scrolls
        QCOMPARE(grid.layerLabelRect(2).left(), 4.0);     // unscrolled: at the area's left
        const double visibleLeft = 300 + 4;
        grid.setVisibleLeft(visibleLeft);
        const QRectF column = grid.labelColumnRect();
        QCOMPARE(column.left(), visibleLeft);
        for (int l = 0; l < 4; ++l) {
            const QRectF label = grid.layerLabelRect(l), row = grid.thumbnailRect(l, 0);
            QVERIFY(column.contains(label));
            QCOMPARE(label.top(), row.top()); // beside its own row
            QCOMPARE(label.height(), row.height());
        }
        // The slot that scrolled under the column is hidden there, and found again right of it.
        const QPointF underColumn(column.center().x(), grid.thumbnailRect(1, 0).center().y());
        QVERIFY(!grid.slotAt(underColumn));
        int firstVisible = 0;
        while (grid.thumbnailRect(1, firstVisible).left() < column.right())
            ++firstVisible;
        QVERIFY(firstVisible > 0 && firstVisible < 32);
        QCOMPARE(grid.slotAt(grid.thumbnailRect(1, firstVisible).center()),
                 std::make_optional(std::make_pair(1, firstVisible)));
        // Scrolled back: a visible edge left of the area never moves the column left of it.
        grid.setVisibleLeft(0);
        QCOMPARE(grid.labelColumnRect().left(), 4.0);
    }

    void gridOrderAndMoves()
    {
        HeadGridLayout grid(2, 3, QRectF(0, 0, 300, 200));
        grid.setOrder({{2, 0, 1}, {1, 2, 0}}); // sorted by some metric
        QCOMPARE(grid.headAt(0, 0), 2);
        QCOMPARE(grid.slotOf(1, 0), 2);
        // Right from head 2 (slot 0) of layer 0 reaches head 0 (slot 1); down keeps the slot: layer 1 slot 1
        // = head 2.
        QCOMPARE(grid.moved(0, 2, HeadGridLayout::Move::Right), std::make_pair(0, 0));
        QCOMPARE(grid.moved(0, 0, HeadGridLayout::Move::Down), std::make_pair(1, 2));
        QCOMPARE(grid.moved(0, 2, HeadGridLayout::Move::Left), std::make_pair(0, 2)); // clamped
        QCOMPARE(grid.moved(0, 2, HeadGridLayout::Move::Up), std::make_pair(0, 2));
        grid.setOrder({}); // back to natural order
        QCOMPARE(grid.headAt(1, 2), 2);
    }

    void arcLinesFollowTheWeights()
    {
        // Head 0: identity; head 1: everyone on token 0. Weights under 0.02 draw nothing.
        const std::vector<float> identity{1, 0, 0, 0, 1, 0, 0, 0, 1};
        const std::vector<float> sink{1, 0, 0, 0.99f, 0.01f, 0, 0.5f, 0.25f, 0.25f};
        const ArcLayout arcs(QRectF(0, 0, 300, 90), 3, 50, {identity, sink}, 0.02, 6.0);
        const auto lines = arcs.lines();
        QCOMPARE(int(lines.size()), 3 + 5); // sink: 1 + 1 (0.01 is under the cut) + 3
        for (const auto& line : lines) {
            QVERIFY(std::abs(line.width - std::max(0.5, 6.0 * line.weight)) < 1e-9);
            QCOMPARE(line.line.p1().y(), arcs.tokenRect(ArcLayout::Side::Query, line.query).center().y());
            QCOMPARE(line.line.p2().y(), arcs.tokenRect(ArcLayout::Side::Key, line.key).center().y());
        }
        // Hovering key token 0 keeps only the lines into it: identity 0→0, sink 0→0, 1→0, 2→0.
        const auto hit = arcs.tokenAt(arcs.tokenRect(ArcLayout::Side::Key, 0).center());
        QVERIFY(hit && hit->side == ArcLayout::Side::Key && hit->index == 0);
        QCOMPARE(int(arcs.lines(hit).size()), 4);
        const auto query2 = arcs.tokenAt(arcs.tokenRect(ArcLayout::Side::Query, 2).center());
        QCOMPARE(int(arcs.lines(query2).size()), 1 + 3);
        QVERIFY(ArcLayout::headColor(0) != ArcLayout::headColor(1));
    }

    void layerChartBarsOnAFixedAxis()
    {
        const LayerChartGeometry chart(QRectF(0, 0, 200, 100), 2);
        QCOMPARE(chart.barRect(0, 0, 1.0).height(), 100.0);
        QCOMPARE(chart.barRect(1, 1, 0.25).height(), 25.0);
        QCOMPARE(chart.barRect(0, 0, 0.5).bottom(), 100.0);
        QVERIFY(chart.barRect(0, 1, 0.5).left() >= chart.barRect(0, 0, 0.5).right() - 1e-9); // side by side
        QVERIFY(chart.barRect(1, 0, 0.5).left() > chart.barRect(0, 1, 0.5).right());
        QCOMPARE(chart.barRect(0, 0, 2.0).height(), 100.0); // clamped, never rescaled
    }

    void tokenAlignment_data()
    {
        QTest::addColumn<QStringList>("a");
        QTest::addColumn<QStringList>("b");
        QTest::addColumn<QString>("pairs");
        QTest::newRow("büyüktü/küçüktü") << QStringList{QStringLiteral("Kupa"), QStringLiteral("çok"),
                                                        QStringLiteral("büyüktü"), QStringLiteral(".")}
                                         << QStringList{QStringLiteral("Kupa"), QStringLiteral("çok"),
                                                        QStringLiteral("küçüktü"), QStringLiteral(".")}
                                         << QStringLiteral("0-0 1-1 2-2 3-3");
        QTest::newRow("big/small") << QStringList{QStringLiteral("too"), QStringLiteral("big"),
                                                  QStringLiteral(".")}
                                   << QStringList{QStringLiteral("too"), QStringLiteral("sm"),
                                                  QStringLiteral("##all"), QStringLiteral(".")}
                                   << QStringLiteral("0-0 2-3");
        QTest::newRow("insertion") << QStringList{QStringLiteral("a"), QStringLiteral("c")}
                                   << QStringList{QStringLiteral("a"), QStringLiteral("b"),
                                                  QStringLiteral("c")}
                                   << QStringLiteral("0-0 1-2");
    }
    void tokenAlignment()
    {
        QFETCH(QStringList, a);
        QFETCH(QStringList, b);
        QFETCH(QString, pairs);
        QStringList got;
        for (const auto& [i, j] : alignTokens(a, b))
            got << QStringLiteral("%1-%2").arg(i).arg(j);
        QCOMPARE(got.join(QLatin1Char(' ')), pairs);
    }
};

QTEST_MAIN(TestExplorerGeometry)
#include "tst_explorer_geometry.moc"
