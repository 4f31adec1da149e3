// Labels at every size, from plain data and without a window: the axis label plan (every label up to the
// point where the font reaches its readable minimum, then thinned evenly, special tokens always kept),
// the heatmap geometry's wide special cells, the painter's label layout from 3 to 2,048 tokens on an
// export page, subword markers in labels, numbers for people, the token window for too-long inputs, and
// "discount special tokens" leaving [MASK] alone.

#include "explorer/attentionengine.h"
#include "explorer/tokenlabels.h"
#include "render/axislabels.h"
#include "render/heatmapdata.h"
#include "render/heatmapgeometry.h"
#include "render/heatmappainter.h"
#include "render/numberformat.h"

#include <QImage>
#include <QLocale>
#include <QPainter>
#include <QtTest>
#include <algorithm>
#include <cmath>

using namespace attnscope;

namespace {

// n tokens: [CLS] w1 ... [SEP], uniform attention.
HeatmapData tokens(int n)
{
    HeatmapData d;
    d.rows = d.cols = n;
    d.values.assign(size_t(n) * size_t(n), 1.0f / float(n));
    for (int i = 0; i < n; ++i) {
        const QString label = i == 0       ? QStringLiteral("[CLS]")
                              : i == n - 1 ? QStringLiteral("[SEP]")
                                           : QStringLiteral("tok%1").arg(i);
        d.rowLabels << label;
        d.colLabels << label;
        d.specialRows.push_back(i == 0 || i == n - 1);
    }
    d.specialCols = d.specialRows;
    d.title = QStringLiteral("test");
    return d;
}

std::vector<double> evenCentres(int n, double spacing)
{
    std::vector<double> c;
    for (int i = 0; i < n; ++i)
        c.push_back(10 + spacing * (i + 0.5));
    return c;
}

} // namespace

class TestHeatmapLabels : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void planShowsEveryLabelWhenTheyFit()
    {
        AxisLabelRequest r;
        r.centers = evenCentres(20, 20);
        r.preferredPixelSize = 12;
        r.lineHeightPerPixel = 1.2;
        const AxisLabelPlan plan = planAxisLabels(r);
        QCOMPARE(plan.pixelSize, 12.0); // 12 px × 1.2 = 14.4 ≤ 20: the preferred size
        QCOMPARE(int(plan.shown.size()), 20);
        QCOMPARE(plan.step, 1);
    }

    void planShrinksTheFontBeforeDroppingLabels()
    {
        AxisLabelRequest r;
        r.centers = evenCentres(50, 10.2); // 10.2 / 1.2 = 8.5 px: between the minimum 7 and the preferred 12
        r.preferredPixelSize = 12;
        r.minimumPixelSize = 7;
        r.lineHeightPerPixel = 1.2;
        const AxisLabelPlan plan = planAxisLabels(r);
        QVERIFY(std::abs(plan.pixelSize - 8.5) < 1e-9);
        QCOMPARE(int(plan.shown.size()), 50);
    }

    void planThinsEvenlyAndKeepsSpecials()
    {
        // 2,048 cells of 0.4 px: the minimum 7 px × 1.2 = 8.4 px line needs every 21st label.
        AxisLabelRequest r;
        r.centers = evenCentres(2048, 0.4);
        r.special.assign(2048, false);
        r.special[0] = r.special[1000] = r.special[2047] = true;
        r.minimumPixelSize = 7;
        r.lineHeightPerPixel = 1.2;
        const AxisLabelPlan plan = planAxisLabels(r);
        QCOMPARE(plan.pixelSize, 7.0);
        QCOMPARE(plan.step, 21);
        for (int special : {0, 1000, 2047})
            QVERIFY(std::binary_search(plan.shown.begin(), plan.shown.end(), special));
        // Ordinary labels: multiples of the step, none within a line of a special one.
        for (int i : plan.shown) {
            if (i == 0 || i == 1000 || i == 2047) continue;
            QCOMPARE(i % 21, 0);
            for (int s : {0, 1000, 2047})
                QVERIFY(std::abs(r.centers[size_t(i)] - r.centers[size_t(s)]) >= 8.4);
        }
        // Evenly: about 2048 / 21 labels, give or take the ones next to specials.
        const int shown = int(plan.shown.size());
        QVERIFY2(shown >= 2048 / 21 - 3 && shown <= 2048 / 21 + 4, qPrintable(QString::number(shown)));
    }

    void geometryKeepsSpecialCellsWide()
    {
        // 2,048 columns in 600 px: ordinary cells ~0.29 px, [CLS] (0) and [SEP] (2047) keep 10 px.
        const HeatmapGeometry g(QRectF(0, 0, 600, 600), 2048, 2048, {0, 2047}, {0, 2047}, 10.0);
        QCOMPARE(g.cellRect(0, 0).width(), 10.0);
        QCOMPARE(g.cellRect(0, 2047).width(), 10.0);
        QVERIFY(g.cellRect(0, 5).width() < 0.3);
        // The whole matrix fits the area exactly: 2 × 10 + 2046 × ordinary = 600.
        QVERIFY(std::abs(g.matrixWidth() - 600) < 1e-6);
        QVERIFY(std::abs(g.cellRect(0, 2047).right() - 600) < 1e-6);
        // Pixels and cells map both ways, also inside a wide cell.
        for (double x : {3.0, 9.9, 10.5, 300.0, 595.0}) {
            const auto cell = g.cellAt(QPointF(x, 5));
            QVERIFY(cell);
            QVERIFY(g.cellRect(cell->first, cell->second).contains(QPointF(x, 5)) ||
                    std::abs(g.cellRect(cell->first, cell->second).right() - x) < 1e-9);
        }
        QCOMPARE(g.cellAt(QPointF(595, 595)), std::make_optional(std::make_pair(2047, 2047)));
        // Zoomed in past the minimum the cells are uniform again, and the point under the cursor stays.
        HeatmapGeometry zoomed = g;
        const QPointF cursor(300, 300);
        const QPointF before = zoomed.toCell(cursor);
        zoomed.zoomAt(cursor, 40.0);
        const QPointF after = zoomed.toCell(cursor);
        QVERIFY(std::abs(before.x() - after.x()) < 1e-6 && std::abs(before.y() - after.y()) < 1e-6);
        // Too many wide cells (more than a quarter): none is wide.
        std::vector<int> many;
        for (int i = 0; i < 40; ++i)
            many.push_back(i);
        const HeatmapGeometry crowded(QRectF(0, 0, 100, 100), 100, 100, many, many, 10.0);
        QVERIFY(std::abs(crowded.cellRect(0, 0).width() - 1.0) < 1e-9);
    }

    void everyLabelUpTo64TokensOnAnExportPage_data()
    {
        QTest::addColumn<int>("n");
        for (int n : {3, 12, 20, 29, 40, 64})
            QTest::addRow("%d tokens", n) << n;
    }
    void everyLabelUpTo64TokensOnAnExportPage()
    {
        QFETCH(int, n);
        const HeatmapData data = tokens(n);
        HeatmapStyle style;
        for (double scale : {1.0, 2.0}) {
            // The exporter's PNG: logical 900×800 at 96 dpi, device pixel ratio 1 or 2.
            QImage image(QSize(900, 800) * scale, QImage::Format_ARGB32_Premultiplied);
            image.setDevicePixelRatio(scale);
            image.setDotsPerMeterX(int(std::lround(96 / 0.0254)));
            image.setDotsPerMeterY(int(std::lround(96 / 0.0254)));
            QPainter painter(&image);
            const HeatmapPainter heatmap(data, style);
            const HeatmapGeometry g = heatmap.layout(QRectF(8, 8, 884, 760), painter.font(), &image);
            const auto labels = heatmap.labelLayout(g, &image, painter.font());
            QCOMPARE(int(labels.rows.shown.size()), n);
            QCOMPARE(int(labels.cols.shown.size()), n);
            QVERIFY(labels.rows.pixelSize >= kMinimumLabelPixelSize);
        }
    }

    // A comparison pane at 1280×800 is about 510 px tall; three panes share a ~930 px tab, ~300 px each,
    // too narrow for 64 labelled tokens at the readable minimum. The pane asks for the width its labels
    // need (the comparison scrolls sideways when the tab is narrower): with or without the shared colour
    // bar, that width keeps every label up to 64 tokens, and one pixel less does not.
    void comparisonPaneWidthKeepsEveryLabel_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<bool>("colourBar");
        for (int n : {20, 40, 60, 64})
            for (bool bar : {true, false})
                QTest::addRow("%d tokens, %s", n, bar ? "bar" : "no bar") << n << bar;
    }
    void comparisonPaneWidthKeepsEveryLabel()
    {
        QFETCH(int, n);
        QFETCH(bool, colourBar);
        HeatmapData data = tokens(n);
        // Word pieces of a real sentence, as wide as BERT's labels are.
        const QStringList words =
            QStringLiteral("The tr ##oph ##y didn ' t fit into the su ##it ##case because "
                           "it was too big . teach ##ers searched class ##room ##s")
                .split(QLatin1Char(' '));
        for (int i = 1; i < n - 1; ++i)
            data.rowLabels[i] = data.colLabels[i] = words.at(i % words.size());
        HeatmapStyle style;
        style.showColorBar = colourBar;
        QImage image(QSize(1000, 600), QImage::Format_ARGB32_Premultiplied);
        QPainter painter(&image);
        const HeatmapPainter heatmap(data, style);
        const double height = 494;
        const double width = heatmap.minimumWidthForEveryLabel(height, painter.font(), &image, 4000);
        QVERIFY2(width > 0 && width < 1000, qPrintable(QString::number(width)));
        const HeatmapGeometry g = heatmap.layout(QRectF(0, 0, width, height), painter.font(), &image);
        const auto labels = heatmap.labelLayout(g, &image, painter.font());
        QCOMPARE(int(labels.rows.shown.size()), n);
        QCOMPARE(int(labels.cols.shown.size()), n);
        QVERIFY(labels.rows.pixelSize >= kMinimumLabelPixelSize - 1e-9);
        QVERIFY(labels.cols.pixelSize >= kMinimumLabelPixelSize - 1e-9);
        QVERIFY(heatmap.labelsEveryToken(g, &image, painter.font()));
        const HeatmapGeometry narrower =
            heatmap.layout(QRectF(0, 0, width - 1, height), painter.font(), &image);
        QVERIFY(!heatmap.labelsEveryToken(narrower, &image, painter.font()));
        // Long inputs are thinned by design: no width keeps all 300 labels in 494 px.
        const HeatmapData longInput = tokens(300);
        QCOMPARE(
            HeatmapPainter(longInput, style).minimumWidthForEveryLabel(height, painter.font(), &image, 4000),
            0.0);
    }

    void longInputsKeepSpecialLabelsAndWidth()
    {
        const int n = 2048;
        const HeatmapData data = tokens(n);
        QImage image(900, 800, QImage::Format_ARGB32_Premultiplied);
        QPainter painter(&image);
        const HeatmapPainter heatmap(data, HeatmapStyle{});
        const HeatmapGeometry g = heatmap.layout(QRectF(8, 8, 884, 760), painter.font(), &image);
        const auto labels = heatmap.labelLayout(g, &image, painter.font());
        for (const AxisLabelPlan* plan : {&labels.rows, &labels.cols}) {
            QVERIFY(std::binary_search(plan->shown.begin(), plan->shown.end(), 0));
            QVERIFY(std::binary_search(plan->shown.begin(), plan->shown.end(), n - 1));
            QVERIFY(plan->shown.size() > 20 && plan->shown.size() < size_t(n) / 4);
        }
        // The [SEP] column is visible: at least the special minimum, though ordinary cells are < 1 px.
        QVERIFY(g.cellRect(0, 5).width() < 1.0);
        QVERIFY(g.cellRect(0, n - 1).width() >= g.wideMinimum() - 1e-9);
        QVERIFY(g.wideMinimum() >= 8.0);
    }

    void subwordMarkersStay()
    {
        QCOMPARE(subwordLabel(QStringLiteral("##di"), QStringLiteral("di")), QStringLiteral("##di"));
        QCOMPARE(subwordLabel(QStringLiteral("▁ke"), QStringLiteral("ke")), QStringLiteral("▁ke"));
        QCOMPARE(subwordLabel(QStringLiteral("▁ke"), QStringLiteral(" ke")), QStringLiteral("▁ke"));
        QCOMPARE(subwordLabel(QStringLiteral("Ġthe"), QStringLiteral(" the")), QStringLiteral("Ġthe"));
        QCOMPARE(subwordLabel(QStringLiteral("di"), QStringLiteral("di")), QStringLiteral("di"));
        QCOMPARE(subwordLabel(QStringLiteral("tire"), QStringLiteral("Tire")),
                 QStringLiteral("Tire")); // the typed case
        QCOMPARE(subwordLabel(QStringLiteral("[CLS]"), QString()), QStringLiteral("[CLS]"));
    }

    void numbersForPeople()
    {
        QLocale::setDefault(QLocale::c());
        QCOMPARE(formatAttention(1.345e-5), QStringLiteral("0.000013"));
        QCOMPARE(formatAttention(0.66523), QStringLiteral("0.6652"));
        QCOMPARE(formatAttention(0.0012), QStringLiteral("0.0012"));
        QCOMPARE(formatAttention(0.0), QStringLiteral("0"));
        QCOMPARE(formatAttention(1.0), QStringLiteral("1.0000"));
        QVERIFY(!formatAttention(3e-8).contains(QLatin1Char('e'), Qt::CaseInsensitive));
        // Colour bar ends and difference ranges: three significant digits, never an exponent.
        QCOMPARE(formatShort(0.54), QStringLiteral("0.54"));
        QCOMPARE(formatShort(0.0543), QStringLiteral("0.0543"));
        QCOMPARE(formatShort(1.0), QStringLiteral("1"));
        QCOMPARE(formatShort(1.234e-5), QStringLiteral("0.0000123"));
        QCOMPARE(formatShort(-2e-4), QStringLiteral("-0.0002"));
        QCOMPARE(formatShort(0.0), QStringLiteral("0"));
    }

    void tokenWindowKeepsTheFrame()
    {
        // [CLS] a b c d e [SEP]: the first 4 are [CLS] a b [SEP], the last 4 [CLS] d e [SEP].
        const std::vector<bool> special{true, false, false, false, false, false, true};
        QCOMPARE(keptTokenPositions(special, TokenWindow{4, false}), (std::vector<int>{0, 1, 2, 6}));
        QCOMPARE(keptTokenPositions(special, TokenWindow{4, true}), (std::vector<int>{0, 4, 5, 6}));
        QCOMPARE(keptTokenPositions(special, TokenWindow{}), (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
        // A decoder: <s> then text, nothing at the end.
        const std::vector<bool> decoder{true, false, false, false, false};
        QCOMPARE(keptTokenPositions(decoder, TokenWindow{3, false}), (std::vector<int>{0, 1, 2}));
        QCOMPARE(keptTokenPositions(decoder, TokenWindow{3, true}), (std::vector<int>{0, 3, 4}));
        const InputTooLongError error(QStringLiteral("tiny-llama-en-tr"), 495, 256);
        QCOMPARE(QString::fromStdString(error.what()),
                 QStringLiteral("495 tokens > 256 positions of tiny-llama-en-tr"));
    }

    void discountLeavesMaskAlone()
    {
        // [CLS] kedi [MASK] [SEP]: [MASK] is special (marked, labelled) but not discounted.
        HeatmapData d;
        d.rows = d.cols = 4;
        d.values = {0.4f,  0.2f,  0.2f,  0.2f,  0.1f, 0.2f, 0.3f, 0.4f,
                    0.25f, 0.25f, 0.25f, 0.25f, 0.5f, 0.1f, 0.1f, 0.3f};
        d.specialRows = d.specialCols = {true, false, true, true};
        d.discountCols = {true, false, false, true};
        discountSpecialTokens(d, QString());
        // Row 1: kept mass 0.2 + 0.3 = 0.5 → kedi 0.4, [MASK] 0.6.
        QVERIFY(std::abs(d.value(1, 1) - 0.4f) < 1e-6f);
        QVERIFY(std::abs(d.value(1, 2) - 0.6f) < 1e-6f);
        QCOMPARE(d.value(1, 0), 0.0f);
        QVERIFY(!d.isExcluded(2));
        QVERIFY(d.isExcluded(0) && d.isExcluded(3));
    }
};

QTEST_MAIN(TestHeatmapLabels)
#include "tst_heatmap_labels.moc"
