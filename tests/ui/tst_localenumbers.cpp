// Numbers follow the locale everywhere the window writes them: the statistics table writes the same
// decimal mark as the threshold spin boxes beside it, the chart's axis, the predictions' percentages, the
// lesson. And the chart's legend entries never overlap each other or the title, in either language.

#include "census/censusfigures.h"
#include "explorer/chartlegend.h"
#include "explorer/headstatsmodel.h"
#include "explorer/modeldetails.h"
#include "explorer/predictionpanel.h"
#include "i18n/languagemanager.h"
#include "lesson/lessonnumbers.h"
#include "render/headgridpainter.h"
#include "render/heatmappainter.h"

#include <QBuffer>
#include <QDoubleSpinBox>
#include <QFont>
#include <QFontMetricsF>
#include <QImage>
#include <QPainter>
#include <QRegularExpression>
#include <QSvgGenerator>
#include <QtTest>
#include <functional>

using namespace attnscope;

namespace {

// The text of an SVG of `size` pixels drawn by `paint` (each <text> element's content reads ">…<").
QString svgText(QSize size, const std::function<void(QPainter&)>& paint)
{
    QBuffer svg;
    svg.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&svg);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    {
        QPainter painter(&generator);
        paint(painter);
    }
    return QString::fromUtf8(svg.data());
}

HeadStats oneHead()
{
    HeadStats s;
    s.layer = 1;
    s.head = 2;
    s.entropy = 2.78243;
    s.sinkMass = 0.5;
    return s;
}

QString statsCell(HeadStatsModel& model, HeadMetric metric)
{
    for (int column = 0; column < model.columnCount(); ++column)
        if (model.headerData(column, Qt::Horizontal).toString().simplified() == headMetricDisplayName(metric))
            return model.data(model.index(0, column)).toString();
    return {};
}

} // namespace

class TestLocaleNumbers : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void cleanup() { QLocale::setDefault(QLocale::c()); }

    void numbersFollowTheLanguage_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QString>("entropy");
        QTest::addColumn<QString>("spinBox");
        QTest::addColumn<QString>("percent");
        QTest::addColumn<QString>("lesson");
        QTest::newRow("en") << QStringLiteral("en") << QStringLiteral("2.7824") << QStringLiteral("0.50")
                            << QStringLiteral("45.2%") << QStringLiteral("0.665");
        QTest::newRow("tr") << QStringLiteral("tr") << QStringLiteral("2,7824") << QStringLiteral("0,50")
                            << QStringLiteral("%45,2") << QStringLiteral("0,665");
    }

    void numbersFollowTheLanguage()
    {
        QFETCH(QString, language);
        QFETCH(QString, entropy);
        QFETCH(QString, spinBox);
        QFETCH(QString, percent);
        QFETCH(QString, lesson);
        LanguageManager manager;
        QVERIFY(manager.setLanguage(language));
        HeadStatsModel model;
        model.setStats({oneHead()});
        QCOMPARE(statsCell(model, HeadMetric::Entropy), entropy);
        QDoubleSpinBox box; // as the statistics tab's thresholds: created after the language is set
        box.setDecimals(2);
        box.setValue(0.5);
        QCOMPARE(box.text(), spinBox);
        QCOMPARE(box.locale().decimalPoint(), QLocale().decimalPoint()); // table and boxes agree
        QCOMPARE(formatProbability(0.4523), percent);
        QCOMPARE(lessonNumber(0.66524), lesson);
        QVERIFY(manager.setLanguage(QStringLiteral("en")));
    }

    // The model picker's line and its refusal write the language's decimal mark ("1,24 B", "1,50 GB" in
    // Turkish), as the rest of the window does; the command line's formatBytes stays "1.50 GB".
    void modelDetailsFollowTheLanguage_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QString>("parameters");
        QTest::addColumn<QString>("available");
        QTest::newRow("en") << QStringLiteral("en") << QStringLiteral("1.24 B") << QStringLiteral("1.50 GB");
        QTest::newRow("tr") << QStringLiteral("tr") << QStringLiteral("1,24 B") << QStringLiteral("1,50 GB");
    }
    void modelDetailsFollowTheLanguage()
    {
        QFETCH(QString, language);
        QFETCH(QString, parameters);
        QFETCH(QString, available);
        LanguageManager manager;
        QVERIFY(manager.setLanguage(language));
        ModelInfo info; // Llama-3.2-1B's shape, 1.24e9 parameters in bf16
        info.name = QStringLiteral("llama-1b");
        info.parameters = 1'240'000'000;
        info.weightBytes = 2'480'000'000;
        info.layers = 16;
        info.heads = 32;
        info.kvHeads = 8;
        info.hidden = 2048;
        info.intermediate = 8192;
        const QString details = modelDetailsText(info);
        QVERIFY2(details.startsWith(parameters + QLatin1Char(' ')), qPrintable(details));
        // The memory figure is above 1 GB (the weights alone): two decimals, in the language's mark.
        const QChar other = language == QLatin1String("tr") ? QLatin1Char('.') : QLatin1Char(',');
        QVERIFY2(
            !details.contains(QRegularExpression(QStringLiteral("\\d\\") + other + QStringLiteral("\\d"))),
            qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral(" 512 ")), qPrintable(details)); // positions unsaid
        ModelInfo shortModel = info; // a model of 256 positions is planned at 256 tokens
        shortModel.maxPositions = 256;
        const QString shortDetails = modelDetailsText(shortModel);
        QVERIFY2(shortDetails.contains(QStringLiteral(" 256 ")) &&
                     !shortDetails.contains(QStringLiteral("512")),
                 qPrintable(shortDetails));
        const QString refusal = memoryRefusalText(info, 1'500'000'000);
        QVERIFY2(refusal.contains(available), qPrintable(refusal));
        QCOMPARE(formatBytes(1'500'000'000), QStringLiteral("1.50 GB"));
        QCOMPARE(formatParameterCount(1'240'000'000), QStringLiteral("1.24 B"));
        QVERIFY(manager.setLanguage(QStringLiteral("en")));
    }

    // A heatmap cell shows its number only where the number fits, measured in the drawn font: a wide
    // cell holds "0,123" (Turkish) or "0.123"; a narrow one stays one colour instead of a smudge.
    void heatmapNumbersOnlyWhereTheyFit_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<int>("side");
        QTest::addColumn<bool>("drawn");
        for (const QString& language : {QStringLiteral("en"), QStringLiteral("tr")}) {
            QTest::addRow("%s wide", qPrintable(language)) << language << 900 << true;
            QTest::addRow("%s narrow", qPrintable(language)) << language << 380 << false;
        }
    }

    void heatmapNumbersOnlyWhereTheyFit()
    {
        QFETCH(QString, language);
        QFETCH(int, side);
        QFETCH(bool, drawn);
        LanguageManager manager;
        QVERIFY(manager.setLanguage(language));
        const int n = 8;
        HeatmapData data;
        data.rows = data.cols = n;
        data.values.assign(size_t(n * n), 0.123f);
        for (int i = 0; i < n; ++i)
            data.rowLabels << QStringLiteral("t%1").arg(i);
        data.colLabels = data.rowLabels;
        HeatmapStyle style;
        style.showValues = true;
        style.fontPointSize = 11;
        QImage image(side, side, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        QPainter painter(&image);
        QFont font = painter.font();
        font.setPointSizeF(style.fontPointSize);
        painter.setFont(font);
        const HeatmapPainter heatmap(data, style);
        const QRectF target(0, 0, side, side);
        const HeatmapGeometry geometry = heatmap.layout(target, font, &image);
        heatmap.paint(painter, target);
        painter.end();
        const QRect cell = geometry.cellRect(3, 3).toRect().adjusted(1, 1, -1, -1);
        // Wider than the 28 px the painter used to assume was enough: the measurement decides.
        QVERIFY2(geometry.cellRect(3, 3).width() > 29,
                 qPrintable(QString::number(geometry.cellRect(3, 3).width())));
        const QColor fill(image.pixel(cell.topLeft()));
        int ink = 0;
        for (int y = cell.top(); y <= cell.bottom(); ++y)
            for (int x = cell.left(); x <= cell.right(); ++x)
                ink += QColor(image.pixel(x, y)) != fill;
        QCOMPARE(ink > 10, drawn);
    }

    // The exported head grid's colour bar writes its ticks as the heatmap's does: in the language's
    // numbers, and 0.0001 rather than "1e-4".
    void gridColourBarTicksFollowTheLanguage_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<int>("scale");
        QTest::addColumn<QStringList>("ticks");
        QTest::newRow("en absolute") << QStringLiteral("en") << int(HeatmapScale::Absolute)
                                     << QStringList{QStringLiteral("0.5")};
        QTest::newRow("tr absolute") << QStringLiteral("tr") << int(HeatmapScale::Absolute)
                                     << QStringList{QStringLiteral("0,5")};
        QTest::newRow("en log") << QStringLiteral("en") << int(HeatmapScale::Log)
                                << QStringList{QStringLiteral("0.0001"), QStringLiteral("0.01")};
        QTest::newRow("tr log") << QStringLiteral("tr") << int(HeatmapScale::Log)
                                << QStringList{QStringLiteral("0,0001"), QStringLiteral("0,01")};
    }
    void gridColourBarTicksFollowTheLanguage()
    {
        QFETCH(QString, language);
        QFETCH(int, scale);
        QFETCH(QStringList, ticks);
        LanguageManager manager;
        QVERIFY(manager.setLanguage(language));
        HeadGridData grid;
        grid.layers = grid.heads = 2;
        HeatmapData head;
        head.rows = head.cols = 2;
        head.values = {0.9f, 0.1f, 0.5f, 0.5f};
        grid.thumbnails.assign(4, head);
        HeatmapStyle style;
        style.scale = HeatmapScale(scale);
        const QString text = svgText(QSize(500, 400), [&](QPainter& painter) {
            HeadGridPainter(grid, style).paint(painter, QRectF(8, 8, 484, 384));
        });
        for (const QString& tick : ticks)
            QVERIFY2(text.contains(QStringLiteral(">") + tick + QStringLiteral("<")), qPrintable(tick));
        static const QRegularExpression exponent(QStringLiteral(">[^<]*\\de[-+]?\\d[^<]*<"));
        QVERIFY2(!exponent.match(text).hasMatch(), qPrintable(exponent.match(text).captured()));
    }

    // The Corpus window's layer curves (and the census's figures): axis ticks in the language's numbers, the
    // axis named in its words.
    void censusCurveTicksFollowTheLanguage_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QString>("tick");
        QTest::addColumn<QString>("axis");
        QTest::newRow("en") << QStringLiteral("en") << QStringLiteral("0.05") << QStringLiteral("layer");
        QTest::newRow("tr") << QStringLiteral("tr") << QStringLiteral("0,05") << QStringLiteral("katman");
    }
    void censusCurveTicksFollowTheLanguage()
    {
        QFETCH(QString, language);
        QFETCH(QString, tick);
        QFETCH(QString, axis);
        LanguageManager manager;
        QVERIFY(manager.setLanguage(language));
        LayerCurves curves;
        curves.title = QStringLiteral("title");
        curves.series = {QStringLiteral("[SEP]")};
        curves.values = {{0.1, 0.2, 0.05}};
        curves.yMax = 0.25; // ticks at fifths: 0, 0.05, ..., 0.25
        const QString text = svgText(QSize(500, 300), [&](QPainter& painter) {
            paintLayerCurves(painter, QRectF(8, 8, 484, 284), curves);
        });
        QVERIFY2(text.contains(QStringLiteral(">") + tick + QStringLiteral("<")), qPrintable(tick));
        QVERIFY2(text.contains(QStringLiteral(">") + axis + QStringLiteral("<")), qPrintable(axis));
    }

    void chartLegendNeverOverlaps_data()
    {
        QTest::addColumn<QStringList>("labels");
        QTest::addColumn<QString>("title");
        QTest::addColumn<int>("width");
        const QStringList english{QStringLiteral("sink (first token)"), QStringLiteral("[SEP]")};
        const QStringList turkish{QStringLiteral("kuyu (ilk token)"), QStringLiteral("[SEP]")};
        for (int width : {200, 320, 480, 800, 1400}) {
            QTest::addRow("en %d px", width)
                << english << QStringLiteral("Mean attention per layer") << width;
            QTest::addRow("tr %d px", width)
                << turkish << QStringLiteral("Katman başına ortalama dikkat") << width;
        }
    }

    void chartLegendNeverOverlaps()
    {
        QFETCH(QStringList, labels);
        QFETCH(QString, title);
        QFETCH(int, width);
        QFont font;
        font.setPointSizeF(10);
        const QFontMetricsF metrics(font);
        const QRectF area(40, 2, width, 20);
        const double titleWidth = std::min(metrics.horizontalAdvance(title), area.width()); // elided beyond
        const QRectF titleBox(area.left(), area.top(), titleWidth, metrics.height() * 1.3);
        const ChartLegendLayout legend = ChartLegendLayout::compute(metrics, labels, area, titleWidth);
        QCOMPARE(int(legend.entries.size()), labels.size());
        std::vector<QRectF> boxes{titleBox};
        for (int i = 0; i < labels.size(); ++i) {
            const auto& entry = legend.entries[size_t(i)];
            QVERIFY(entry.label.width() >= metrics.horizontalAdvance(labels[i])); // room for the whole label
            QVERIFY(entry.swatch.right() <= entry.label.left());
            boxes.push_back(entry.swatch.united(entry.label));
        }
        for (size_t i = 0; i < boxes.size(); ++i) {
            QVERIFY(boxes[i].left() >= area.left() - 1e-9 && boxes[i].right() <= area.right() + 1e-9);
            QVERIFY(boxes[i].bottom() <= legend.bottom + 1e-9);
            for (size_t j = i + 1; j < boxes.size(); ++j)
                QVERIFY2(!boxes[i].intersects(boxes[j]),
                         qPrintable(QStringLiteral("boxes %1 and %2 overlap").arg(i).arg(j)));
        }
    }
};

QTEST_MAIN(TestLocaleNumbers)
#include "tst_localenumbers.moc"
