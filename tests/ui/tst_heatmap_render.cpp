// Heatmap rendering and interaction, checked against the data: known matrix -> known colours at known
// cells, the hover read-out, zoom about the cursor, and the tiled (long input) path never fetching n×n.

#include "attention/attentionmaps.h"
#include "explorer/heatmapwidget.h"
#include "i18n/languagemanager.h"
#include "render/colormap.h"
#include "render/heatmappainter.h"
#include "support/languagerows.h"

#include <QPainter>
#include <QtTest>
#include <cmath>

using namespace attnscope;

namespace {

HeatmapData matrix(int rows, int cols, std::vector<float> values)
{
    HeatmapData d;
    d.rows = rows;
    d.cols = cols;
    d.values = std::move(values);
    for (int r = 0; r < rows; ++r)
        d.rowLabels << QStringLiteral("q%1").arg(r);
    for (int c = 0; c < cols; ++c)
        d.colLabels << QStringLiteral("k%1").arg(c);
    return d;
}

// Renders like renderHeatmapImage and also returns the geometry the painter used.
QImage render(const HeatmapData& data, const HeatmapStyle& style, HeatmapGeometry& geometry, int w = 400,
              int h = 360, const HeatmapData* cells = nullptr)
{
    QImage image(w, h, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    QFont font = painter.font();
    font.setPointSizeF(style.fontPointSize);
    const QRectF target(8, 8, w - 16, h - 16);
    geometry = HeatmapPainter(data, style).layout(target, painter.font(), painter.device());
    HeatmapPainter(data, style).paint(painter, target, &geometry, cells);
    return image;
}

bool near(QRgb a, QRgb b, int tolerance = 2)
{
    return std::abs(qRed(a) - qRed(b)) <= tolerance && std::abs(qGreen(a) - qGreen(b)) <= tolerance &&
           std::abs(qBlue(a) - qBlue(b)) <= tolerance;
}

QRgb pixelAt(const QImage& image, QPointF p)
{
    return image.pixel(int(p.x()), int(p.y()));
}

} // namespace

class TestHeatmapRender : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }

    void knownColoursAtKnownCells_data()
    {
        QTest::addColumn<int>("map");
        QTest::addColumn<int>("scale");
        QTest::newRow("viridis abs") << int(ColorMapKind::Viridis) << int(HeatmapScale::Absolute);
        QTest::newRow("magma abs") << int(ColorMapKind::Magma) << int(HeatmapScale::Absolute);
        QTest::newRow("cividis row max") << int(ColorMapKind::Cividis) << int(HeatmapScale::RowMax);
        QTest::newRow("greys log") << int(ColorMapKind::Greys) << int(HeatmapScale::Log);
    }
    void knownColoursAtKnownCells()
    {
        QFETCH(int, map);
        QFETCH(int, scale);
        // Row 0 sums to 1; row 1 too; values chosen so each scale gives distinct parameters.
        const std::vector<float> values{0.7f, 0.2f, 0.1f, 0.05f, 0.45f, 0.5f};
        const HeatmapData data = matrix(2, 3, values);
        HeatmapStyle style;
        style.colorMap = ColorMapKind(map);
        style.scale = HeatmapScale(scale);
        HeatmapGeometry geometry;
        const QImage image = render(data, style, geometry);
        for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 3; ++c) {
                const double v = values[size_t(r * 3 + c)];
                double t = v; // the scales written out by hand
                if (style.scale == HeatmapScale::RowMax)
                    t = v / (r == 0 ? 0.7 : 0.5);
                else if (style.scale == HeatmapScale::Log)
                    t = (std::log10(v) + 4.0) / 4.0;
                const QRgb expected = colorMapColor(style.colorMap, t);
                const QRgb actual = pixelAt(image, geometry.cellRect(r, c).center());
                QVERIFY2(near(actual, expected), qPrintable(QStringLiteral("cell %1,%2: %3 vs %4")
                                                                .arg(r)
                                                                .arg(c)
                                                                .arg(actual, 0, 16)
                                                                .arg(expected, 0, 16)));
            }
    }

    // Long inputs: the side bar beside the matrix shows, per query row, the attention to the first token
    // and to [SEP], in the colours of the colour bar's scale (so it reads like a matrix cell).
    void sideBarShowsEachRowInTheCellsScale_data()
    {
        QTest::addColumn<int>("scale");
        QTest::newRow("absolute") << int(HeatmapScale::Absolute);
        QTest::newRow("row max") << int(HeatmapScale::RowMax);
        QTest::newRow("log") << int(HeatmapScale::Log);
    }
    void sideBarShowsEachRowInTheCellsScale()
    {
        QFETCH(int, scale);
        const int n = HeatmapPainter::kSideBarMinimumRows + 5;
        // Row r: 0.5 + 0.4·r/n to the first token, 0.02 to [SEP] (the last), the rest spread evenly.
        std::vector<float> values;
        std::vector<float> first, sep;
        for (int r = 0; r < n; ++r) {
            first.push_back(0.5f + 0.4f * float(r) / float(n));
            sep.push_back(0.02f);
            const float rest = (1.0f - first.back() - sep.back()) / float(n - 2);
            for (int c = 0; c < n; ++c)
                values.push_back(c == 0 ? first.back() : c == n - 1 ? sep.back() : rest);
        }
        HeatmapData data = matrix(n, n, values);
        data.specialRows = data.specialCols = std::vector<bool>(size_t(n), false);
        data.specialCols.front() = data.specialCols.back() = true;
        data.specialRows = data.specialCols;
        data.sideFirst = first;
        data.sideSep = sep;
        HeatmapStyle style;
        style.scale = HeatmapScale(scale);
        HeatmapGeometry geometry;
        const QImage image = render(data, style, geometry, 900, 800);
        const double left =
            std::min(geometry.area().right(), geometry.area().left() + geometry.matrixWidth());
        for (int r : {3, n / 2, n - 3}) {
            const double y = geometry.cellRect(r, 0).center().y();
            // The side bar's columns start two gaps (12 px) right of the matrix, 10 px wide, on a pitch of
            // at least 12 px: their centres at +17 and at least +29.
            const QRgb firstPixel = pixelAt(image, QPointF(left + 17, y));
            QVERIFY2(near(firstPixel, pixelAt(image, geometry.cellRect(r, 0).center()), 3),
                     qPrintable(QStringLiteral("row %1: side %2, cell %3")
                                    .arg(r)
                                    .arg(firstPixel, 0, 16)
                                    .arg(pixelAt(image, geometry.cellRect(r, 0).center()), 0, 16)));
            bool sepFound = false;
            for (double dx = 29; dx < 60 && !sepFound; dx += 1)
                sepFound = near(pixelAt(image, QPointF(left + dx, y)),
                                pixelAt(image, geometry.cellRect(r, n - 1).center()), 3);
            QVERIFY2(sepFound, qPrintable(QStringLiteral("row %1: no [SEP] side cell").arg(r)));
        }
    }

    // The side bar says what it shows (issue 36, point 9: "the narrow →[CLS]/→[SEP] strips beside the heatmap
    // have no legend"): one line under the matrix, in the interface's language, whole at the explorer's
    // size at 1280×800 (about 900 × 480), inside the target and clear of the cells.
    void cleanup()
    {
        LanguageManager english; // sideBarHasALegend's Turkish (translator and number locale) ends with it
        QVERIFY(english.setLanguage(QStringLiteral("en")));
    }
    void sideBarHasALegend_data() { addLanguageRows(); }
    void sideBarHasALegend()
    {
        QFETCH(QString, language);
        LanguageManager languages;
        QVERIFY(languages.setLanguage(language));
        const int n = HeatmapPainter::kSideBarMinimumRows + 5;
        HeatmapData data = matrix(n, n, std::vector<float>(size_t(n) * size_t(n), 1.0f / float(n)));
        data.rowLabels[0] = data.colLabels[0] = QStringLiteral("[CLS]");
        data.rowLabels[n - 1] = data.colLabels[n - 1] = QStringLiteral("[SEP]");
        data.specialRows = data.specialCols = std::vector<bool>(size_t(n), false);
        data.specialCols.front() = data.specialCols.back() = true;
        data.specialRows = data.specialCols;
        data.sideFirst = std::vector<float>(size_t(n), 0.5f);
        data.sideSep = std::vector<float>(size_t(n), 0.1f);
        const HeatmapStyle style;
        const HeatmapPainter painter(data, style);
        const QString legend = painter.sideBarLegend();
        QVERIFY(legend.contains(QStringLiteral("[CLS]")));
        QVERIFY(legend.contains(QStringLiteral("[SEP]")));
        if (language == QStringLiteral("tr"))
            QVERIFY2(!legend.contains(QStringLiteral("attention")), qPrintable(legend));
        for (const QSize size : {QSize(900, 480), QSize(1400, 900)}) {
            HeatmapGeometry geometry;
            const QImage image = render(data, style, geometry, size.width(), size.height());
            const QRectF target(8, 8, size.width() - 16, size.height() - 16);
            QFont font;
            font.setPointSizeF(style.fontPointSize);
            const QRectF rect = painter.sideBarLegendRect(geometry, target, font, &image);
            QVERIFY(target.contains(rect));
            QVERIFY2(rect.top() >= geometry.area().top() + geometry.matrixHeight() - 1e-6,
                     qPrintable(QStringLiteral("legend at %1, matrix down to %2")
                                    .arg(rect.top())
                                    .arg(geometry.area().top() + geometry.matrixHeight())));
            const QFontMetricsF metrics(font, &image);
            QVERIFY2(metrics.horizontalAdvance(legend) <= rect.width(), qPrintable(legend));
            // Drawn: dark text in the line.
            int ink = 0;
            for (int y = int(rect.top()); y < int(rect.bottom()); ++y)
                for (int x = int(rect.left()); x < int(rect.left() + metrics.horizontalAdvance(legend)); ++x)
                    ink += qGray(image.pixel(x, y)) < 100 ? 1 : 0;
            QVERIFY2(ink > 50, qPrintable(QString::number(ink)));
        }
        // A short input has no side bar, and no legend for it.
        const HeatmapData shortInput = matrix(4, 4, std::vector<float>(16, 0.25f));
        QVERIFY(HeatmapPainter(shortInput, style).sideBarLegend().isEmpty());
    }

    void absoluteScaleIsNeverRescaled()
    {
        // A matrix whose largest value is 0.3: under the default scale it must not reach the top colour.
        const HeatmapData data = matrix(1, 2, {0.3f, 0.3f});
        HeatmapGeometry geometry;
        const QImage image = render(data, HeatmapStyle{}, geometry);
        QVERIFY(near(pixelAt(image, geometry.cellRect(0, 0).center()),
                     colorMapColor(ColorMapKind::Viridis, 0.3)));
        QVERIFY(!near(pixelAt(image, geometry.cellRect(0, 0).center()),
                      colorMapColor(ColorMapKind::Viridis, 1.0), 30));
    }

    void causalMaskIsDrawnDistinctly()
    {
        HeatmapData data = matrix(3, 3, {1, 0, 0, 0.5f, 0.5f, 0, 0.2f, 0.3f, 0.5f});
        data.causal = true;
        HeatmapGeometry geometry;
        const QImage image = render(data, HeatmapStyle{}, geometry);
        const QRgb masked = pixelAt(image, geometry.cellRect(0, 2).center());
        // Masked cells are light grey (hatched); a visible zero is viridis' dark purple.
        QVERIFY(near(masked, HeatmapPainter::maskedColor()) || near(masked, qRgb(200, 200, 200)));
        QVERIFY(near(pixelAt(image, geometry.cellRect(1, 0).center()),
                     colorMapColor(ColorMapKind::Viridis, 0.5)));
    }

    void manyCellsGoThroughOneImage()
    {
        // 200 × 200: the image path. Every cell (r, c) holds (r + c) / 400.
        const int n = 200;
        std::vector<float> values(size_t(n) * n);
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c)
                values[size_t(r * n + c)] = float(r + c) / 400.0f;
        const HeatmapData data = matrix(n, n, values);
        HeatmapGeometry geometry;
        const QImage image = render(data, HeatmapStyle{}, geometry, 900, 900);
        QVERIFY(geometry.cellWidth() >= 3); // cells big enough to sample their centres
        for (auto [r, c] : {std::pair{0, 0}, std::pair{199, 199}, std::pair{50, 120}, std::pair{150, 10}})
            QVERIFY(near(pixelAt(image, geometry.cellRect(r, c).center()),
                         colorMapColor(ColorMapKind::Viridis, (r + c) / 400.0)));
    }

    void pooledOverviewBlock()
    {
        // A 1,000-token frame painted from a 10 × 10 pooled block: block cell (i, j) covers tokens
        // [100i, 100i+100) × [100j, 100j+100) and holds (i + j) / 19 (clear of the colour table's rounding
        // steps).
        HeatmapData frame;
        frame.rows = frame.cols = 1000;
        HeatmapData block;
        block.rows = block.cols = 10;
        for (int i = 0; i <= 10; ++i) {
            block.rowStarts.push_back(100 * i);
            block.colStarts.push_back(100 * i);
        }
        for (int i = 0; i < 10; ++i)
            for (int j = 0; j < 10; ++j)
                block.values.push_back(float(i + j) / 19.0f);
        HeatmapGeometry geometry;
        const QImage image = render(frame, HeatmapStyle{}, geometry, 600, 600, &block);
        QVERIFY(near(pixelAt(image, geometry.cellRect(150, 750).center()),
                     colorMapColor(ColorMapKind::Viridis, 8 / 19.0)));
        QVERIFY(near(pixelAt(image, geometry.cellRect(950, 950).center()),
                     colorMapColor(ColorMapKind::Viridis, 18 / 19.0)));
    }

    void differenceUsesTheDivergingMap()
    {
        HeatmapData data = matrix(1, 3, {-1.0f, 0.0f, 0.5f});
        data.signedValues = true;
        HeatmapGeometry geometry;
        const QImage image = render(data, HeatmapStyle{}, geometry);
        for (int c = 0; c < 3; ++c)
            QVERIFY(near(pixelAt(image, geometry.cellRect(0, c).center()),
                         divergingColor(data.values[size_t(c)])));
    }

    void discountSpecialTokensRenormalises()
    {
        // [CLS] a b [SEP]: row "a" = 0.4, 0.1, 0.3, 0.2 -> without specials 0.1 / 0.4, 0.3 / 0.4.
        HeatmapData data = matrix(2, 4, {0.4f, 0.1f, 0.3f, 0.2f, 0.0f, 0.5f, 0.5f, 0.0f});
        data.specialCols = {true, false, false, true};
        data.title = QStringLiteral("head");
        discountSpecialTokens(data, QStringLiteral(" (discounted)"));
        QCOMPARE(data.title, QStringLiteral("head (discounted)"));
        QVERIFY(data.discounted);
        QVERIFY(std::abs(data.value(0, 1) - 0.25f) < 1e-6f);
        QVERIFY(std::abs(data.value(0, 2) - 0.75f) < 1e-6f);
        QCOMPARE(data.value(0, 0), 0.0f);
        QVERIFY(std::abs(data.value(1, 1) - 0.5f) < 1e-6f);
        HeatmapGeometry geometry;
        const QImage image = render(data, HeatmapStyle{}, geometry);
        QVERIFY(near(pixelAt(image, geometry.cellRect(0, 0).center()), HeatmapPainter::excludedColor()));
        QVERIFY(near(pixelAt(image, geometry.cellRect(0, 2).center()),
                     colorMapColor(ColorMapKind::Viridis, 0.75)));
    }

    void discountIsSaidInTheTitle()
    {
        HeatmapWidget widget;
        widget.resize(400, 300);
        HeatmapData data = matrix(3, 3, {0.5f, 0.25f, 0.25f, 0.6f, 0.2f, 0.2f, 0.1f, 0.1f, 0.8f});
        data.specialCols = data.specialRows = {true, false, false};
        data.title = QStringLiteral("L0 H0");
        widget.setData(data);
        widget.setDiscountSpecial(true);
        QVERIFY(widget.data().title.startsWith(QStringLiteral("L0 H0")));
        QVERIFY(widget.data().title.contains(QStringLiteral("discounted")));
        QVERIFY(std::abs(widget.valueAt(0, 1) - 0.5f) < 1e-6f); // 0.25 / 0.5
        QCOMPARE(widget.hoverText(widget.geometryForTests().cellRect(1, 0).center()),
                 QStringLiteral("q1 → k0: special token, discounted"));
        widget.setDiscountSpecial(false);
        QCOMPARE(widget.data().title, QStringLiteral("L0 H0"));
        QCOMPARE(widget.valueAt(0, 1), 0.25f);
    }

    void hoverReadOut()
    {
        HeatmapWidget widget;
        widget.resize(500, 400);
        HeatmapData data = matrix(2, 2, {0.66523f, 0.33477f, 0.123456f, 0.876544f});
        data.rowLabels = QStringList{QStringLiteral("kedi"), QStringLiteral("mindere")};
        data.colLabels = data.rowLabels;
        widget.setData(data);
        const HeatmapGeometry& g = widget.geometryForTests();
        QCOMPARE(widget.hoverText(g.cellRect(0, 0).center()), QStringLiteral("kedi → kedi: 0.6652"));
        QCOMPARE(widget.hoverText(g.cellRect(1, 0).center()), QStringLiteral("mindere → kedi: 0.1235"));
        QCOMPARE(widget.hoverText(QPointF(1, 1)), QString());
        data.causal = true;
        widget.setData(data);
        QCOMPARE(widget.hoverText(widget.geometryForTests().cellRect(0, 1).center()),
                 QStringLiteral("kedi → mindere: masked (causal)"));
    }

    void zoomKeepsTheCellUnderTheCursor_data()
    {
        QTest::addColumn<double>("fx");
        QTest::addColumn<double>("fy");
        QTest::addColumn<double>("factor");
        QTest::newRow("centre x2") << 0.5 << 0.5 << 2.0;
        QTest::newRow("corner x3") << 0.1 << 0.85 << 3.0;
        QTest::newRow("wheel step") << 0.7 << 0.3 << 1.25;
    }
    void zoomKeepsTheCellUnderTheCursor()
    {
        QFETCH(double, fx);
        QFETCH(double, fy);
        QFETCH(double, factor);
        HeatmapWidget widget;
        widget.resize(600, 500);
        widget.setData(matrix(40, 40, std::vector<float>(1600, 0.025f)));
        const QRectF area = widget.geometryForTests().area();
        const QPointF cursor(area.left() + fx * area.width() * 0.95, area.top() + fy * area.height() * 0.95);
        const QPointF before = widget.geometryForTests().toCell(cursor);
        const auto cellBefore = widget.geometryForTests().cellAt(cursor);
        const double widthBefore = widget.geometryForTests().cellWidth();
        widget.zoomAt(cursor, factor);
        QVERIFY(std::abs(widget.geometryForTests().cellWidth() - widthBefore * factor) < 1e-9);
        const QPointF after = widget.geometryForTests().toCell(cursor);
        QVERIFY(std::abs(before.x() - after.x()) < 1e-9 && std::abs(before.y() - after.y()) < 1e-9);
        QCOMPARE(widget.geometryForTests().cellAt(cursor), cellBefore);
    }

    void tiledModeFetchesOnlyTheVisibleRows()
    {
        // A 1,500-token head held densely here only to serve tiles; the widget must never ask for n×n.
        const int n = 1500;
        std::vector<float> values(size_t(n) * n, 0.0f);
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c)
                values[size_t(r) * n + size_t(c)] = c == (r * 7) % n ? 0.9f : 0.1f / float(n - 1);
        auto maps = std::make_shared<DenseAttentionMaps>(1, 1, n, n, values);
        size_t fetched = 0, largest = 0;
        auto fetch = [maps, &fetched, &largest](int q0, int q1, int k0, int k1) {
            const size_t count = size_t(q1 - q0) * size_t(k1 - k0);
            fetched += count;
            largest = std::max(largest, count);
            return maps->tile(0, 0, q0, q1, k0, k1);
        };
        HeatmapData frame;
        frame.rows = frame.cols = n;
        for (int i = 0; i < n; ++i)
            frame.rowLabels << QStringLiteral("t%1").arg(i);
        frame.colLabels = frame.rowLabels;
        HeatmapData overview; // a flat 1×1 placeholder overview
        overview.rows = overview.cols = 1;
        overview.values = {0.5f};
        overview.rowStarts = overview.colStarts = {0, n};
        HeatmapWidget widget;
        widget.resize(700, 700);
        widget.setTiledData(frame, fetch, overview);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        widget.grab();
        QCOMPARE(widget.exactBlockForTests().rows, 0); // zoomed out: the overview, no tiles
        const QPointF centre = widget.geometryForTests().area().center();
        widget.zoomAt(centre, 8.0);
        widget.grab();

        const HeatmapData& block = widget.exactBlockForTests();
        QVERIFY(block.rows > 0 && block.rows <= 2 * HeatmapWidget::exactTileLimit()); // view plus margins
        QVERIFY(largest <= 2 * size_t(HeatmapWidget::exactTileLimit()) * size_t(n));
        QVERIFY(fetched < size_t(n) * size_t(n) / 2);
        // The read-out is the exact value of the tile.
        const auto cell = widget.geometryForTests().cellAt(centre);
        QVERIFY(cell);
        QCOMPARE(widget.valueAt(cell->first, cell->second),
                 values[size_t(cell->first) * n + size_t(cell->second)]);
    }
};

QTEST_MAIN(TestHeatmapRender)
#include "tst_heatmap_render.moc"
