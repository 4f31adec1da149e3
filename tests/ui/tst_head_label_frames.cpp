// The head labels' frames differ in shape, not only in colour (issue 36, point 9: "the sink and broad label
// frames are hard to tell apart"): on a washed-out projector or a greyscale print each label's frame is
// still its own. Checked on the frames' description, on their drawn pixels with colour thrown away, and on
// the exported grid, whose sink thumbnail gets the double line.

#include "render/headgriddata.h"
#include "render/headgridpainter.h"
#include "render/headlabelframe.h"

#include <QFont>
#include <QImage>
#include <QPainter>
#include <QtTest>

using namespace attnscope;

namespace {

const std::vector<HeadLabel> kLabels{HeadLabel::Sink,      HeadLabel::NoOp, HeadLabel::PreviousToken,
                                     HeadLabel::NextToken, HeadLabel::Self, HeadLabel::Broad,
                                     HeadLabel::Mixed};

// The frame drawn alone on white, as a mask: true where anything was drawn (its colour forgotten).
std::vector<bool> frameMask(HeadLabel label, int side, double lineWidth)
{
    QImage image(side, side, QImage::Format_RGB32);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        paintHeadLabelFrame(painter, QRectF(0, 0, side, side), label, lineWidth);
    }
    std::vector<bool> mask;
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x)
            mask.push_back(qGray(image.pixel(x, y)) < 235);
    return mask;
}

int differing(const std::vector<bool>& a, const std::vector<bool>& b)
{
    int count = 0;
    for (size_t i = 0; i < a.size(); ++i)
        count += a[i] != b[i] ? 1 : 0;
    return count;
}

} // namespace

class TestHeadLabelFrames : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyLabelHasItsOwnShape()
    {
        for (size_t i = 0; i < kLabels.size(); ++i)
            for (size_t j = i + 1; j < kLabels.size(); ++j) {
                const HeadLabelFrame a = headLabelFrame(kLabels[i]), b = headLabelFrame(kLabels[j]);
                QVERIFY2(a.line != b.line || a.weight != b.weight || a.doubled != b.doubled,
                         qPrintable(QStringLiteral("labels %1 and %2 differ only by colour")
                                        .arg(int(kLabels[i]))
                                        .arg(int(kLabels[j]))));
                QVERIFY(a.color != b.color); // and still by colour, where it shows
            }
    }

    // Drawn, with colour thrown away: every pair of frames differs in a visible number of pixels, at the
    // explorer's thumbnail size (3-px lines) and at the legends' swatch size (1.5-px lines in 12 px).
    void framesDifferInGreyscale_data()
    {
        QTest::addColumn<int>("side");
        QTest::addColumn<double>("lineWidth");
        QTest::addColumn<int>("atLeast");
        QTest::newRow("thumbnail") << 48 << 3.0 << 20;
        QTest::newRow("legend swatch") << 12 << 1.5 << 3;
    }
    void framesDifferInGreyscale()
    {
        QFETCH(int, side);
        QFETCH(double, lineWidth);
        QFETCH(int, atLeast);
        std::vector<std::vector<bool>> masks;
        for (HeadLabel label : kLabels)
            masks.push_back(frameMask(label, side, lineWidth));
        for (size_t i = 0; i < masks.size(); ++i)
            for (size_t j = i + 1; j < masks.size(); ++j) {
                const int count = differing(masks[i], masks[j]);
                QVERIFY2(count >= atLeast, qPrintable(QStringLiteral("labels %1 and %2: %3 pixels differ")
                                                          .arg(int(kLabels[i]))
                                                          .arg(int(kLabels[j]))
                                                          .arg(count)));
            }
    }

    // The exported grid draws the frames: the sink thumbnail has its inner line (the frame's colour two
    // line widths inside the edge), the broad one, the same solid line otherwise, has not.
    void exportedGridDrawsTheDoubleLine()
    {
        HeadGridData grid;
        grid.layers = 1;
        grid.heads = 2;
        for (int h = 0; h < 2; ++h) {
            HeatmapData head;
            head.rows = head.cols = 4;
            head.values.assign(16, 0.0f); // the lightest colour: the frames show against it
            grid.thumbnails.push_back(head);
        }
        grid.labels = {HeadLabel::Sink, HeadLabel::Broad};
        HeatmapStyle style;
        const QSize size(600, 400);
        const QImage image = renderHeadGridImage(grid, style, size.width(), size.height());
        QFont font;
        font.setPointSizeF(style.fontPointSize);
        const QFontMetricsF metrics(font, &image);
        const QRectF target(8, 8, size.width() - 16, size.height() - 16);
        const double line = 2 * style.lineWidth; // the painter's frame width
        auto innerLineShows = [&](int head, HeadLabel label) {
            const QRectF t = HeadGridPainter(grid, style).thumbnailRect(target, metrics, 0, head);
            // The middle of the inner line on the bottom edge (clear of the badge at the top).
            const double inset = line / 2 + 2 * line;
            const QColor pixel = image.pixelColor(int(t.center().x()), int(t.bottom() - inset - 0.5));
            const QColor frame = headLabelColor(label);
            return std::abs(pixel.red() - frame.red()) + std::abs(pixel.green() - frame.green()) +
                       std::abs(pixel.blue() - frame.blue()) <
                   60;
        };
        QVERIFY(innerLineShows(0, HeadLabel::Sink));
        QVERIFY(!innerLineShows(1, HeadLabel::Broad));
    }
};

QTEST_MAIN(TestHeadLabelFrames)
#include "tst_head_label_frames.moc"
