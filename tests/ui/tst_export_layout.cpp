// Nothing clipped or overlapping in any exported view: the heatmap (3 to 300 tokens), the head grid, the
// comparison, the arcs and the per-layer chart (the grid's colour bar naming the measure, a scanned grid its
// KL scale), written as SVG and checked from the SVG itself (every text
// box inside the page, no two overlapping, boxes measured from the font the SVG names); and the PNG at 1×
// and 2× showing the same labels as the PDF (read back with pdftotext; the grid and the chart recorded on
// devices with the PNG's and the PDF's metrics, ui/support/drawntext.h).

#include "attention/attentionmaps.h"
#include "explorer/arcwidget.h"
#include "explorer/attentionmeasure.h"
#include "explorer/comparisonwidget.h"
#include "explorer/explorerresult.h"
#include "explorer/headstatsmodel.h"
#include "explorer/heatmapwidget.h"
#include "explorer/layerchartwidget.h"
#include "export/attentionexportsource.h"
#include "export/heatmapexporter.h"
#include "render/heatmappainter.h"
#include "ui/support/drawntext.h"
#include "ui/support/svgtextboxes.h"

#include <QBuffer>
#include <QFile>
#include <QLocale>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <utility>

using namespace attnscope;

namespace {

QStringList labelsFor(int n)
{
    // Words of a real sentence, with subword pieces, [CLS] and [SEP] at the ends.
    const QStringList words{QStringLiteral("the"),     QStringLiteral("tro"),  QStringLiteral("##phy"),
                            QStringLiteral("didn"),    QStringLiteral("'"),    QStringLiteral("t"),
                            QStringLiteral("fit"),     QStringLiteral("into"), QStringLiteral("suitcase"),
                            QStringLiteral("because"), QStringLiteral("it"),   QStringLiteral("was")};
    QStringList labels{QStringLiteral("[CLS]")};
    for (int i = 1; i < n - 1; ++i)
        labels << words.at(i % words.size()) +
                      (i >= words.size() ? QString::number(i / words.size()) : QString());
    labels << QStringLiteral("[SEP]");
    return labels;
}

std::shared_ptr<ExplorerResult> resultFor(int n, int layers = 2, int heads = 3)
{
    std::vector<float> p;
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h)
            for (int q = 0; q < n; ++q)
                for (int k = 0; k < n; ++k) {
                    const float sink = h == 0 ? 0.7f : 0.1f;
                    p.push_back(k == 0 ? sink + (1 - sink) / n : (1 - sink) / n);
                }
    auto result = std::make_shared<ExplorerResult>();
    result->textA = labelsFor(n).mid(1, n - 2).join(QLatin1Char(' '));
    result->modelName = QStringLiteral("tiny-bert-en-tr");
    result->run.labels = labelsFor(n);
    result->run.tokens = result->run.labels;
    result->run.roles.special.assign(size_t(n), false);
    result->run.roles.special.front() = result->run.roles.special.back() = true;
    result->run.roles.clsPositions = {0};
    result->run.roles.sepPositions = {n - 1};
    result->run.maps = std::make_shared<DenseAttentionMaps>(layers, heads, n, n, std::move(p));
    AnalysisOptions options;
    options.threads = 1;
    result->analysis = *analyzeAttention(*result->run.maps, result->run.roles, options);
    return result;
}

HeatmapData heatmapOf(const ExplorerResult& r)
{
    HeatmapData d;
    d.rows = d.cols = r.run.maps->queries();
    d.values = r.run.maps->matrix(0, 0);
    d.rowLabels = d.colLabels = r.run.labels;
    d.specialRows = d.specialCols = r.run.roles.special;
    d.title = QStringLiteral(
        "tiny-bert-en-tr · layer 0 head 0 (sink) · a title long enough to need eliding on a small page, "
        "which it must do inside the page");
    if (d.rows >= HeatmapPainter::kSideBarMinimumRows) {
        d.sideFirst = r.run.maps->tile(0, 0, 0, d.rows, 0, 1);
        d.sideSep = r.run.maps->tile(0, 0, 0, d.rows, d.cols - 1, d.cols);
    }
    return d;
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The words pdftotext reads from the PDF; empty when the tool is missing.
QStringList pdfWords(const QString& pdf, bool* missing)
{
    const QString tool = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
    *missing = tool.isEmpty();
    if (tool.isEmpty()) return {};
    QProcess process;
    process.start(tool, {QStringLiteral("-raw"), pdf, QStringLiteral("-")});
    if (!process.waitForFinished(20000)) return {};
    // NFKC: the PDF's text may carry ligatures ("ﬁt" for "fit").
    return QString::fromUtf8(process.readAllStandardOutput())
        .normalized(QString::NormalizationForm_KC)
        .split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
}

ExportOptions optionsAt(double scale)
{
    ExportOptions options;
    options.size = QSize(900, 800);
    options.scaleFactor = scale;
    options.overwrite = true;
    return options;
}

// The tallest band of rows with nothing drawn in them (every pixel the page's white), in pixels.
int tallestBlankBand(const QImage& image)
{
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    int tallest = 0, run = 0;
    for (int y = 0; y < rgb.height(); ++y) {
        const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
        const bool blank = std::all_of(line, line + rgb.width(), [](QRgb c) {
            return qRed(c) == 255 && qGreen(c) == 255 && qBlue(c) == 255;
        });
        run = blank ? run + 1 : 0;
        tallest = std::max(tallest, run);
    }
    return tallest;
}

// The PNG's device as the exporter paints it (logical 96 dpi, device pixel ratio = scale).
QImage pngDevice(QSize size, double scale)
{
    QImage png(size * scale, QImage::Format_ARGB32_Premultiplied);
    png.setDevicePixelRatio(scale);
    png.setDotsPerMeterX(int(std::lround(96 / 0.0254)));
    png.setDotsPerMeterY(int(std::lround(96 / 0.0254)));
    return png;
}

// The PDF's writer as the exporter sets it up (96 dpi, a page of size logical pixels).
void setUpPdfWriter(QPdfWriter& writer, QSize size)
{
    writer.setResolution(96);
    writer.setPageLayout(QPageLayout(QPageSize(QSizeF(size) * 0.75, QPageSize::Point), QPageLayout::Portrait,
                                     QMarginsF(0, 0, 0, 0)));
}

// What planOn(device) plans on the PNG's device (pngDevice, at `scale`) and on the PDF's writer
// (setUpPdfWriter) of a page of `size`: the two plans the exports of one view must agree on.
template <class PlanOn>
auto plansOnPngAndPdf(QSize size, double scale, PlanOn planOn)
{
    QImage png = pngDevice(size, scale);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    setUpPdfWriter(writer, size);
    auto pngPlan = planOn(png);
    auto pdfPlan = planOn(writer);
    return std::make_pair(std::move(pngPlan), std::move(pdfPlan));
}

// Every word of every drawn text among the words pdftotext reads from the PDF; the missing ones.
QStringList wordsMissingFromPdf(const QStringList& drawn, const QStringList& pdf)
{
    QStringList missing;
    for (const QString& text : drawn)
        for (const QString& word : text.normalized(QString::NormalizationForm_KC)
                                       .split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts))
            if (!pdf.contains(word)) missing << word;
    return missing;
}

} // namespace

// pdftotext's words of the PDF file `pdf` into `words`; the test function skips where pdftotext is not
// installed.
#define PDF_WORDS_OR_SKIP(words, pdf)                                                                        \
    bool words##Missing = false;                                                                             \
    const QStringList words = pdfWords(pdf, &words##Missing);                                                \
    if (words##Missing) QSKIP("pdftotext is not installed (Debian: poppler-utils)")

// The PDF file carries every word of the texts drawn (wordsMissingFromPdf); the failure lists the missing.
#define VERIFY_PDF_CARRIES_EVERY_WORD(drawn, pdf)                                                            \
    do {                                                                                                     \
        PDF_WORDS_OR_SKIP(words, pdf);                                                                       \
        const QStringList absent = wordsMissingFromPdf(drawn, words);                                        \
        QVERIFY2(absent.isEmpty(), qPrintable(absent.join(QLatin1Char(' '))));                               \
    } while (false)

class TestExportLayout : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void heatmapTextStaysInsideAndApart_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        for (int n : {3, 12, 21, 29, 64, 300})
            QTest::addRow("%d tokens", n) << n << 900 << 800;
        QTest::addRow("29 tokens small page") << 29 << 420 << 360;
    }
    void heatmapTextStaysInsideAndApart()
    {
        QFETCH(int, n);
        QFETCH(int, width);
        QFETCH(int, height);
        QTemporaryDir dir;
        const auto result = resultFor(n);
        const HeatmapData data = heatmapOf(*result);
        HeatmapStyle style;
        style.showValues = n <= 12;
        ExportOptions options = optionsAt(1.0);
        options.size = QSize(width, height);
        const HeatmapExporter exporter(style, options);
        const QString svg = dir.filePath(QStringLiteral("h.svg"));
        QVERIFY(exporter.exportHeatmap(data, svg).ok);
        const QStringList problems = svgTextProblems(readAll(svg));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 8).join(QLatin1Char('\n'))));
        // Up to 64 tokens on the default page every label is written.
        if (n <= 64 && width == 900) {
            QString error;
            QStringList texts;
            for (const SvgTextBox& box : svgTextBoxes(readAll(svg), &error))
                texts << box.text;
            for (const QString& label : data.rowLabels)
                QVERIFY2(texts.count(label) >= 2, qPrintable(label)); // as a query and as a key
        }
    }

    // A long input of short words (the synthetic demo's "the cat sat ..."), as the window's heatmap is at
    // 1280×800 (about 925×537): the key labels are small and their room above the cells shallow; the side
    // bar's headers ("→ [CLS]", "→ [SEP]") must stay in that room, not run up into the title.
    void sideBarHeadersStayBelowTheTitle()
    {
        const int n = 302;
        const auto result = resultFor(n);
        HeatmapData data = heatmapOf(*result);
        const QStringList words =
            QStringLiteral("the cat sat on mat and dog by old river").split(QLatin1Char(' '));
        for (int i = 1; i < n - 1; ++i)
            data.rowLabels[i] = data.colLabels[i] = words.at(i % words.size());
        data.title =
            QStringLiteral("Synthetic encoder demo (no weights) · attention weight α · layer 0 head 3 "
                           "(no-op/[SEP]) and a few more words to reach the side bar");
        QTemporaryDir dir;
        ExportOptions options = optionsAt(1.0);
        options.size = QSize(925, 537);
        const QString svg = dir.filePath(QStringLiteral("side.svg"));
        QVERIFY(HeatmapExporter(HeatmapStyle{}, options).exportHeatmap(data, svg).ok);
        const QByteArray text = readAll(svg);
        QVERIFY(text.contains("→ [SEP]") || text.contains("→ [SE"));
        const QStringList problems = svgTextProblems(text);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 8).join(QLatin1Char('\n'))));
    }

    // The command line's and the batch exports' heatmaps of a long input carry the window's side bar: per
    // query, the attention to the first token and to [SEP], read from the matrix itself.
    void exportedLongInputsHaveTheSideBar()
    {
        for (int n : {HeatmapPainter::kSideBarMinimumRows - 1, HeatmapPainter::kSideBarMinimumRows + 5}) {
            const auto result = resultFor(n);
            AttentionExportSource source = AttentionExportSource::ofRun(*result);
            source.discountSpecial = true; // the side bar shows the attention as computed, not discounted
            const HeatmapData data = source.heatmap(1, 0);
            if (n < HeatmapPainter::kSideBarMinimumRows) {
                QVERIFY(data.sideFirst.empty() && data.sideSep.empty());
                continue;
            }
            QCOMPARE(int(data.sideFirst.size()), n);
            QCOMPARE(int(data.sideSep.size()), n);
            const std::vector<float> matrix = result->run.maps->matrix(1, 0);
            for (int q = 0; q < n; ++q) {
                QCOMPARE(data.sideFirst[size_t(q)], matrix[size_t(q) * size_t(n)]);
                QCOMPARE(data.sideSep[size_t(q)], matrix[size_t(q) * size_t(n) + size_t(n - 1)]);
            }
        }
    }

    void pngShowsTheLabelsOfThePdf_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<double>("scale");
        for (int n : {29, 64, 300})
            for (double scale : {1.0, 2.0})
                QTest::addRow("%d tokens at %gx", n, scale) << n << scale;
    }
    void pngShowsTheLabelsOfThePdf()
    {
        QFETCH(int, n);
        QFETCH(double, scale);
        QTemporaryDir dir;
        const auto result = resultFor(n);
        const HeatmapData data = heatmapOf(*result);
        const HeatmapExporter exporter(HeatmapStyle{}, optionsAt(scale));
        const QString pdf = dir.filePath(QStringLiteral("h.pdf"));
        QVERIFY(exporter.exportHeatmap(data, pdf).ok);
        QVERIFY(exporter.exportHeatmap(data, dir.filePath(QStringLiteral("h.png"))).ok);
        const QRectF page(0, 0, 900, 800);
        auto planOn = [&](QPaintDevice& device) {
            QPainter painter(&device);
            const HeatmapGeometry geometry = exporter.heatmapPageGeometry(device, page, data);
            return HeatmapPainter(data, HeatmapStyle{}).labelLayout(geometry, &device, painter.font());
        };
        // The PNG as the exporter paints it (logical 96 dpi, device pixel ratio = scale) and the PDF's
        // writer (96 dpi): the same label plan, so the same labels at the same size.
        const auto [pngPlan, pdfPlan] = plansOnPngAndPdf(QSize(900, 800), scale, planOn);
        QCOMPARE(pngPlan.rows.shown, pdfPlan.rows.shown);
        QCOMPARE(pngPlan.cols.shown, pdfPlan.cols.shown);
        QCOMPARE(pngPlan.rows.pixelSize, pdfPlan.rows.pixelSize);
        if (n <= 64) QCOMPARE(int(pngPlan.rows.shown.size()), n);
        // And the PDF file really carries them: pdftotext reads every query label the plan draws.
        PDF_WORDS_OR_SKIP(words, pdf);
        for (int r : pngPlan.rows.shown)
            QVERIFY2(words.contains(data.rowLabels.at(r)), qPrintable(data.rowLabels.at(r)));
    }

    // The arcs' export: the PNG (1× and 2×) plans the same token labels at the same size as the PDF, every
    // token up to 64 (the view's limit), and the PDF carries each planned label (pdftotext).
    void arcsPngShowsTheLabelsOfThePdf_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<double>("scale");
        for (int n : {29, 64})
            for (double scale : {1.0, 2.0})
                QTest::addRow("%d tokens at %gx", n, scale) << n << scale;
    }
    void arcsPngShowsTheLabelsOfThePdf()
    {
        QFETCH(int, n);
        QFETCH(double, scale);
        QTemporaryDir dir;
        const auto result = resultFor(n);
        ArcWidget arcs;
        arcs.setResult(result);
        arcs.setHeads({{0, 0}, {1, 1}});
        const HeatmapExporter exporter(HeatmapStyle{}, optionsAt(scale));
        auto paint = [&](QPainter& p, const QRectF& page) { arcs.paintView(p, page); };
        const QString pdf = dir.filePath(QStringLiteral("a.pdf"));
        QVERIFY(exporter.exportView(pdf, QStringLiteral("a"), QStringLiteral("a"), paint).ok);
        QVERIFY(exporter
                    .exportView(dir.filePath(QStringLiteral("a.png")), QStringLiteral("a"),
                                QStringLiteral("a"), paint)
                    .ok);
        const QRectF page(0, 0, 900, 800);
        const std::optional<ArcLayout> layout = arcs.pageLayout(page);
        QVERIFY(layout);
        auto planOn = [&](QPaintDevice& device) {
            QPainter painter(&device);
            return arcs.labelPlan(*layout, &device, painter.font());
        };
        // The PNG as the exporter paints it (logical 96 dpi, device pixel ratio = scale) and the PDF's
        // writer (96 dpi).
        const auto [pngPlan, pdfPlan] = plansOnPngAndPdf(QSize(900, 800), scale, planOn);
        QCOMPARE(pngPlan.shown, pdfPlan.shown);
        QCOMPARE(pngPlan.pixelSize, pdfPlan.pixelSize);
        QCOMPARE(int(pngPlan.shown.size()), n);
        QVERIFY(pngPlan.pixelSize >= kMinimumLabelPixelSize - 1e-9);
        PDF_WORDS_OR_SKIP(words, pdf);
        const QStringList labels = labelsFor(n);
        for (int i : pdfPlan.shown)
            QVERIFY2(
                words.count(labels.at(i)) >= 2, // the query and the key column
                qPrintable(QStringLiteral("%1: %2 times").arg(labels.at(i)).arg(words.count(labels.at(i)))));
    }

    // The head grid's export: the PNG at 1× and 2× draws the same texts as the PDF (recorded on devices
    // with each one's metrics: title, layer and head headers, every head's badge, the legend, the colour
    // bar and the scan's legend), every label is there, and the PDF file carries each drawn word.
    void gridPngShowsTheLabelsOfThePdf_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("scanned");
        for (const QSize size : {QSize(900, 800), QSize(400, 700)})
            for (bool scanned : {false, true})
                QTest::addRow("%dx%d%s", size.width(), size.height(), scanned ? ", scanned" : "")
                    << size << scanned;
    }
    void gridPngShowsTheLabelsOfThePdf()
    {
        QFETCH(QSize, size);
        QFETCH(bool, scanned);
        const auto result = resultFor(12, 6, 8);
        AttentionExportSource source = AttentionExportSource::ofRun(*result);
        source.measure = measureName(AttentionMeasure::Weight);
        source.colorBarCaption = measureScaleCaption(AttentionMeasure::Weight);
        if (scanned) {
            for (int i = 0; i < 48; ++i)
                source.headEffect.push_back(i == 13 ? 0.25 : 0.001 * i);
            source.headEffectCaption = QStringLiteral("ablation KL, nats (zero)");
        }
        HeadGridData grid = source.grid();
        grid.title = QStringLiteral("tiny-bert-en-tr · all heads");
        const std::vector<HeadLabel> kinds{HeadLabel::Sink,      HeadLabel::NoOp, HeadLabel::PreviousToken,
                                           HeadLabel::NextToken, HeadLabel::Self, HeadLabel::Broad,
                                           HeadLabel::Mixed};
        grid.labels.clear(); // every kind of label, whatever the synthetic heads' roles gave
        for (int i = 0; i < grid.layers * grid.heads; ++i)
            grid.labels.push_back(kinds[size_t(i) % kinds.size()]);
        ExportOptions options = optionsAt(1.0);
        const HeatmapExporter sizing(HeatmapStyle{}, options);
        const QSize page = sizing.minimumGridPageSize(grid).expandedTo(size); // as exportGrid grows it
        options.size = page;
        auto paint = [&](QPainter& painter) {
            HeatmapExporter(HeatmapStyle{}, options)
                .paintGridPage(painter, QRectF(QPointF(0, 0), page), grid);
        };
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        QPdfWriter writer(&buffer);
        setUpPdfWriter(writer, page);
        const QStringList pdfTexts = drawnTexts(writer, paint);
        for (double scale : {1.0, 2.0}) {
            const QImage png = pngDevice(page, scale);
            QCOMPARE(drawnTexts(png, paint), pdfTexts);
        }
        // Every label there: the title, each layer's and head's header, each head's badge on every layer,
        // the legend's entries, the colour bar's caption, the scan's caption.
        QVERIFY2(pdfTexts.contains(grid.title), qPrintable(pdfTexts.join(QLatin1Char('|'))));
        for (int layer = 0; layer < grid.layers; ++layer)
            QVERIFY2(pdfTexts.contains(QStringLiteral("L%1").arg(layer)), qPrintable(QString::number(layer)));
        for (int h = 0; h < grid.heads; ++h) {
            const QString header = QStringLiteral("H%1").arg(h);
            const auto badges = std::count_if(pdfTexts.begin(), pdfTexts.end(), [&](const QString& t) {
                return t == header || t == QString::number(h) || t.startsWith(header + QLatin1Char(' '));
            });
            QVERIFY2(badges >= grid.layers, qPrintable(QStringLiteral("head %1: %2").arg(h).arg(badges)));
        }
        for (HeadLabel kind : kinds)
            QVERIFY2(pdfTexts.contains(headLabelSymbol(kind) + QLatin1Char(' ') + headLabelDisplayName(kind)),
                     qPrintable(headLabelDisplayName(kind)));
        QVERIFY2(pdfTexts.join(QString()).contains(grid.colorBarCaption), qPrintable(grid.colorBarCaption));
        if (scanned)
            QVERIFY2(pdfTexts.contains(source.headEffectCaption + QLatin1Char(':')),
                     qPrintable(pdfTexts.join(QLatin1Char('|'))));
        // The files: the PNG at 2× is the page's size doubled, the PDF carries every drawn word.
        QTemporaryDir dir;
        options.scaleFactor = 2.0;
        const HeatmapExporter exporter(HeatmapStyle{}, options);
        const QString png = dir.filePath(QStringLiteral("g.png")),
                      pdf = dir.filePath(QStringLiteral("g.pdf"));
        QVERIFY(exporter.exportGrid(grid, png).ok);
        QCOMPARE(QImage(png).size(), page * 2);
        QVERIFY(exporter.exportGrid(grid, pdf).ok);
        VERIFY_PDF_CARRIES_EVERY_WORD(pdfTexts, pdf);
    }

    // The statistics chart's export: the PNG at 1× and 2× draws the same texts as the PDF, with every
    // label (title, legend, the y axis's five numbers, each layer's name where they fit), and the PDF file
    // carries each drawn word.
    void chartPngShowsTheLabelsOfThePdf_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("layers");
        QTest::addColumn<bool>("sep");
        QTest::newRow("900x800, 12 layers") << QSize(900, 800) << 12 << true;
        QTest::newRow("900x800, 24 layers, no [SEP]") << QSize(900, 800) << 24 << false;
        QTest::newRow("500x300, 24 layers") << QSize(500, 300) << 24 << true;
    }
    void chartPngShowsTheLabelsOfThePdf()
    {
        QFETCH(QSize, size);
        QFETCH(int, layers);
        QFETCH(bool, sep);
        const auto result = resultFor(12, layers, 2);
        LayerChartWidget chart;
        chart.setSummaries(result->analysis.layerSummaries);
        chart.setShowSep(sep);
        const QRectF page(QPointF(0, 0), QSizeF(size));
        auto paint = [&](QPainter& painter) { chart.paintChart(painter, page); };
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        QPdfWriter writer(&buffer);
        setUpPdfWriter(writer, size);
        const QStringList pdfTexts = drawnTexts(writer, paint);
        for (double scale : {1.0, 2.0}) {
            const QImage png = pngDevice(size, scale);
            QCOMPARE(drawnTexts(png, paint), pdfTexts);
        }
        const QString all = pdfTexts.join(QLatin1Char('|'));
        QVERIFY2(pdfTexts.contains(LayerChartWidget::tr("Mean attention per layer")), qPrintable(all));
        QVERIFY2(pdfTexts.contains(LayerChartWidget::tr("sink (first token)")), qPrintable(all));
        QCOMPARE(pdfTexts.contains(LayerChartWidget::tr("[SEP]")), sep);
        for (double v : {0.0, 0.25, 0.5, 0.75, 1.0})
            QVERIFY2(pdfTexts.contains(QLocale().toString(v)), qPrintable(all));
        // The layer names: the first always, and every layer's where there is room for each.
        int names = 0;
        for (int layer = 0; layer < layers; ++layer)
            names += pdfTexts.contains(LayerChartWidget::tr("L%1").arg(layer));
        QVERIFY(pdfTexts.contains(LayerChartWidget::tr("L0")));
        if (size.width() >= 900) QCOMPARE(names, layers);
        QVERIFY2(names >= 2, qPrintable(all));
        // The files.
        QTemporaryDir dir;
        ExportOptions options = optionsAt(2.0);
        options.size = size;
        const HeatmapExporter exporter(HeatmapStyle{}, options);
        auto paintPage = [&](QPainter& p, const QRectF& area) { chart.paintChart(p, area); };
        const QString png = dir.filePath(QStringLiteral("c.png")),
                      pdf = dir.filePath(QStringLiteral("c.pdf"));
        QVERIFY(exporter.exportView(png, QStringLiteral("c"), QStringLiteral("c"), paintPage).ok);
        QCOMPARE(QImage(png).size(), size * 2);
        QVERIFY(exporter.exportView(pdf, QStringLiteral("c"), QStringLiteral("c"), paintPage).ok);
        VERIFY_PDF_CARRIES_EVERY_WORD(pdfTexts, pdf);
    }

    void gridTextStaysInsideAndApart()
    {
        QTemporaryDir dir;
        HeadGridData grid;
        grid.layers = 6;
        grid.heads = 8;
        // Long enough to be elided (in its bold font: the regular font's width let it run off the page).
        grid.title = QStringLiteral("tiny-bert-en-tr · all heads · “The trophy didn't fit into the suitcase "
                                    "because it was too big, and the teachers searched the classrooms for "
                                    "another one.”");
        const auto result = resultFor(12);
        for (int i = 0; i < grid.layers * grid.heads; ++i)
            grid.thumbnails.push_back(heatmapOf(*result));
        // Every label present, as the explorer's badges and legend (the legend must fit them all).
        const std::vector<HeadLabel> kinds{HeadLabel::Sink,      HeadLabel::NoOp, HeadLabel::PreviousToken,
                                           HeadLabel::NextToken, HeadLabel::Self, HeadLabel::Broad,
                                           HeadLabel::Mixed};
        for (int i = 0; i < grid.layers * grid.heads; ++i)
            grid.labels.push_back(kinds[size_t(i) % kinds.size()]);
        for (bool withLabels : {false, true}) {
            HeadGridData shown = grid;
            if (!withLabels) shown.labels.clear();
            // A narrow page too: the legend's seven entries wrap onto more lines instead of being dropped.
            for (const QSize size : {QSize(900, 800), QSize(400, 700)})
                for (double scale : {1.0, 2.0}) {
                    ExportOptions options = optionsAt(scale);
                    options.size = size;
                    const HeatmapExporter exporter(HeatmapStyle{}, options);
                    const QString svg = dir.filePath(QStringLiteral("g.svg"));
                    QFile::remove(svg);
                    QVERIFY(exporter.exportGrid(shown, svg).ok);
                    const QByteArray text = readAll(svg);
                    const QStringList problems = svgTextProblems(text);
                    QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 8).join(QLatin1Char('\n'))));
                    // The legend names each label; the badges number the heads ("H5 ...") on the thumbnails.
                    for (HeadLabel kind : kinds)
                        QVERIFY2(text.contains(headLabelDisplayName(kind).toHtmlEscaped().toUtf8()) ==
                                     withLabels,
                                 qPrintable(headLabelDisplayName(kind)));
                    QCOMPARE(text.count(">H5 "), withLabels ? grid.layers : 0);
                }
        }
    }

    // A 32-head grid (16 layers, Llama-3.2-1B's shape) exported on pages too small for numbered
    // thumbnails: the page grows to the size they need, every head's badge ("H5 ⚓", "H5" or "5") is
    // written on every layer, and all text stays inside the page and apart.
    void gridExportKeepsEveryHeadNumber_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("400×300") << QSize(400, 300);
        QTest::newRow("900×800") << QSize(900, 800);
    }
    void gridExportKeepsEveryHeadNumber()
    {
        QFETCH(QSize, size);
        QTemporaryDir dir;
        HeadGridData grid;
        grid.layers = 16;
        grid.heads = 32;
        grid.title = QStringLiteral("llama-shaped · all heads");
        const auto result = resultFor(12);
        const std::vector<HeadLabel> kinds{HeadLabel::Sink, HeadLabel::Broad, HeadLabel::PreviousToken};
        for (int i = 0; i < grid.layers * grid.heads; ++i) {
            grid.thumbnails.push_back(heatmapOf(*result));
            grid.labels.push_back(kinds[size_t(i) % kinds.size()]);
        }
        ExportOptions options = optionsAt(1.0);
        options.size = size;
        const HeatmapExporter exporter(HeatmapStyle{}, options);
        const QString svg = dir.filePath(QStringLiteral("g.svg"));
        const ExportResult written = exporter.exportGrid(grid, svg);
        QVERIFY(written.ok);
        const QByteArray bytes = readAll(svg);
        const QStringList problems = svgTextProblems(bytes);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 8).join(QLatin1Char('\n'))));
        const QSize page = exporter.minimumGridPageSize(grid).expandedTo(size);
        // A grown page is said (file, both sizes, why); a page left as asked says nothing.
        if (page == size)
            QVERIFY2(written.notice.isEmpty(), qPrintable(written.notice));
        else
            QVERIFY2(written.notice.startsWith(svg + QStringLiteral(": ")) &&
                         written.notice.contains(QStringLiteral("enlarged from %1×%2 to %3×%4 px")
                                                     .arg(size.width())
                                                     .arg(size.height())
                                                     .arg(page.width())
                                                     .arg(page.height())) &&
                         written.notice.contains(QStringLiteral("16 layers × 32 heads")),
                     qPrintable(written.notice));
        QVERIFY(bytes.contains(QStringLiteral("width=\"%1").arg(page.width()).toUtf8()));
        QVERIFY(bytes.contains(QStringLiteral("height=\"%1").arg(page.height()).toUtf8()));
        QString error;
        QStringList texts;
        for (const SvgTextBox& box : svgTextBoxes(bytes, &error))
            texts << box.text;
        QVERIFY2(error.isEmpty(), qPrintable(error));
        for (int h = 0; h < grid.heads; ++h) {
            int badges = 0;
            for (const QString& text : texts)
                badges += text == QString::number(h) || text == QStringLiteral("H%1").arg(h) ||
                          text.startsWith(QStringLiteral("H%1 ").arg(h));
            // One badge per layer (and maybe the header's "H5" over the first row).
            QVERIFY2(badges >= grid.layers,
                     qPrintable(QStringLiteral("head %1: %2 badges").arg(h).arg(badges)));
        }
    }

    // The exported grid's colour bar names the measure (weight α, or the contribution's row share), and a
    // scan-coloured grid says what its colours are (KL in nats) with its scale, inside the page and apart.
    void gridCaptionsNameTheMeasureAndTheScan_data()
    {
        QTest::addColumn<int>("measure");
        QTest::addColumn<bool>("scanned");
        QTest::newRow("weight") << int(AttentionMeasure::Weight) << false;
        QTest::newRow("contribution") << int(AttentionMeasure::Contribution) << false;
        QTest::newRow("weight, scanned") << int(AttentionMeasure::Weight) << true;
        QTest::newRow("contribution, scanned") << int(AttentionMeasure::Contribution) << true;
    }

    void gridCaptionsNameTheMeasureAndTheScan()
    {
        QFETCH(int, measure);
        QFETCH(bool, scanned);
        const auto result = resultFor(12, 6, 8);
        AttentionExportSource source = AttentionExportSource::ofRun(*result);
        source.measure = measureName(AttentionMeasure(measure));
        source.colorBarCaption = measureScaleCaption(AttentionMeasure(measure));
        const QString scanCaption = QStringLiteral("ablation KL, nats (zero)");
        if (scanned) {
            for (int i = 0; i < 48; ++i)
                source.headEffect.push_back(i == 13 ? 0.25 : 0.001 * i);
            source.headEffectCaption = scanCaption;
        }
        const HeadGridData grid = source.grid();
        QTemporaryDir dir;
        const QString svg = dir.filePath(QStringLiteral("grid.svg"));
        for (bool labels : {false, true}) {
            HeadGridData shown = grid;
            if (labels)
                for (int i = 0; i < 48; ++i)
                    shown.labels.push_back(i % 2 ? HeadLabel::Sink : HeadLabel::Broad);
            QFile::remove(svg);
            QVERIFY(HeatmapExporter(HeatmapStyle{}, optionsAt(1.0)).exportGrid(shown, svg).ok);
            const QByteArray bytes = readAll(svg);
            const QStringList problems = svgTextProblems(bytes);
            QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 8).join(QLatin1Char('\n'))));
            QString error;
            const QVector<SvgTextBox> boxes = svgTextBoxes(bytes, &error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            // The caption runs along the colour bar (vertical boxes: the SVG splits it where a glyph comes
            // from another font, as α does), naming the measure; for the contribution also what its 0..1
            // means.
            QString caption;
            for (const SvgTextBox& b : boxes) {
                const QPointF baseline = b.box.size() >= 2 ? b.box[1] - b.box[0] : QPointF();
                if (std::abs(baseline.y()) > std::abs(baseline.x())) caption += b.text; // read bottom to top
            }
            QVERIFY2(caption.startsWith(source.measure), qPrintable(caption));
            if (AttentionMeasure(measure) == AttentionMeasure::Contribution)
                QCOMPARE(caption, source.measure + QStringLiteral(" · ") +
                                      measureScaleCaption(AttentionMeasure::Contribution));
            else
                QCOMPARE(caption, source.measure);
            // The scan's legend: its caption, 0 and the largest KL; each head's value on its thumbnail.
            const auto named = [&](const QString& text) {
                return std::count_if(boxes.begin(), boxes.end(),
                                     [&](const SvgTextBox& b) { return b.text == text; });
            };
            QCOMPARE(named(scanCaption + QLatin1Char(':')), scanned ? 1 : 0);
            QCOMPARE(named(QLocale().toString(0.25, 'g', 3)) >= 1, scanned);
            QCOMPARE(named(QLocale().toString(0.047, 'g', 2)), scanned ? 1 : 0);
        }
    }

    void viewsTextStaysInsideAndApart()
    {
        QTemporaryDir dir;
        const auto result = resultFor(21);
        LayerChartWidget chart;
        chart.setSummaries(result->analysis.layerSummaries);
        ArcWidget arcs;
        arcs.setResult(result);
        arcs.setHeads({{0, 0}, {1, 1}});
        ComparisonWidget comparison;
        comparison.resize(1000, 700);
        comparison.setResult(result);
        comparison.show();
        QVERIFY(QTest::qWaitForWindowExposed(&comparison));
        for (ComparisonWidget::Mode mode :
             {ComparisonWidget::Mode::SideBySide, ComparisonWidget::Mode::Difference}) {
            comparison.setMode(mode);
            comparison.setHeads({{0, 0}, {0, 1}, {1, 2}});
            QCoreApplication::sendPostedEvents();
            QCoreApplication::processEvents();
            const HeatmapExporter exporter(HeatmapStyle{}, optionsAt(1.0));
            const QString svg = dir.filePath(QStringLiteral("c.svg"));
            QVERIFY(exporter
                        .exportView(svg, QStringLiteral("c"), QStringLiteral("c"),
                                    [&](QPainter& p, const QRectF& page) { comparison.paintPanes(p, page); })
                        .ok);
            const QStringList problems = svgTextProblems(readAll(svg));
            QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 8).join(QLatin1Char('\n'))));
        }
        for (QSize size : {QSize(900, 800), QSize(500, 300)}) {
            ExportOptions options = optionsAt(1.0);
            options.size = size;
            const HeatmapExporter exporter(HeatmapStyle{}, options);
            const QString chartSvg = dir.filePath(QStringLiteral("chart.svg"));
            QVERIFY(exporter
                        .exportView(chartSvg, QStringLiteral("c"), QStringLiteral("c"),
                                    [&](QPainter& p, const QRectF& page) { chart.paintChart(p, page); })
                        .ok);
            QStringList problems = svgTextProblems(readAll(chartSvg));
            QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 8).join(QLatin1Char('\n'))));
            const QString arcsSvg = dir.filePath(QStringLiteral("arcs.svg"));
            QVERIFY(exporter
                        .exportView(arcsSvg, QStringLiteral("a"), QStringLiteral("a"),
                                    [&](QPainter& p, const QRectF& page) { arcs.paintView(p, page); })
                        .ok);
            problems = svgTextProblems(readAll(arcsSvg));
            QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 8).join(QLatin1Char('\n'))));
        }
    }

    // The comparison's export up to 64 tokens: two heads side by side and the difference (three panes) on
    // the exporter's page keep every label in every pane (the page takes the grid shape in which they fit),
    // the SVG's text stays inside the page and apart, and the PNG at 1× and 2× plans the same labels as the
    // PDF (which pdftotext reads back).
    void comparisonExportKeepsEveryLabel_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("mode");
        for (int n : {29, 64})
            for (int mode :
                 {int(ComparisonWidget::Mode::SideBySide), int(ComparisonWidget::Mode::Difference)})
                QTest::addRow("%d tokens, %s", n, mode == 0 ? "side by side" : "difference") << n << mode;
    }
    void comparisonExportKeepsEveryLabel()
    {
        QFETCH(int, n);
        QFETCH(int, mode);
        QTemporaryDir dir;
        const auto result = resultFor(n);
        ComparisonWidget comparison;
        comparison.resize(1000, 700);
        comparison.setResult(result);
        comparison.show();
        QVERIFY(QTest::qWaitForWindowExposed(&comparison));
        comparison.setMode(ComparisonWidget::Mode(mode));
        comparison.setHeads({{0, 0}, {1, 2}});
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        // The window's export widens the page until every label fits, and ends it under the panes.
        const QSize size = comparison.exportPageSize(QSize(900, 800));
        QVERIFY(size.height() <= 800);
        QVERIFY(size.width() >= 900 && size.width() <= 2700);
        const QRectF page(QPointF(0, 0), QSizeF(size));
        auto plansOn = [&](QPaintDevice& device) {
            std::vector<HeatmapPainter::LabelLayout> plans;
            for (const ComparisonWidget::PagePane& pane : comparison.pageLayout(&device, page))
                plans.push_back(HeatmapPainter(pane.pane->data(), pane.pane->heatmapStyle())
                                    .labelLayout(pane.geometry, &device, QFont()));
            return plans;
        };
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        QPdfWriter writer(&buffer);
        setUpPdfWriter(writer, size);
        const auto pdfPlans = plansOn(writer);
        QCOMPARE(int(pdfPlans.size()), mode == int(ComparisonWidget::Mode::Difference) ? 3 : 2);
        for (const auto& plan : pdfPlans) {
            QCOMPARE(int(plan.rows.shown.size()), n);
            QCOMPARE(int(plan.cols.shown.size()), n);
            QVERIFY(plan.rows.pixelSize >= kMinimumLabelPixelSize - 1e-9);
            QVERIFY(plan.cols.pixelSize >= kMinimumLabelPixelSize - 1e-9);
        }
        for (double scale : {1.0, 2.0}) {
            QImage png = pngDevice(size, scale);
            const auto pngPlans = plansOn(png);
            QCOMPARE(pngPlans.size(), pdfPlans.size());
            for (size_t i = 0; i < pngPlans.size(); ++i) {
                QCOMPARE(pngPlans[i].rows.shown, pdfPlans[i].rows.shown);
                QCOMPARE(pngPlans[i].cols.shown, pdfPlans[i].cols.shown);
                QCOMPARE(pngPlans[i].rows.pixelSize, pdfPlans[i].rows.pixelSize);
            }
        }
        ExportOptions options = optionsAt(1.0);
        options.size = size;
        const HeatmapExporter exporter(HeatmapStyle{}, options);
        auto paint = [&](QPainter& p, const QRectF& area) { comparison.paintPanes(p, area); };
        // The page is filled: no band of blank rows taller than 6% of it (the square matrices of a widened
        // page once left its lower half white).
        const QString png = dir.filePath(QStringLiteral("c.png"));
        QVERIFY(exporter.exportView(png, QStringLiteral("c"), QStringLiteral("c"), paint).ok);
        const QImage image(png);
        QCOMPARE(image.size(), size);
        QVERIFY2(tallestBlankBand(image) <= image.height() * 0.06,
                 qPrintable(QStringLiteral("%1 blank rows on a %2×%3 page")
                                .arg(tallestBlankBand(image))
                                .arg(image.width())
                                .arg(image.height())));
        const QString svg = dir.filePath(QStringLiteral("c.svg"));
        QVERIFY(exporter.exportView(svg, QStringLiteral("c"), QStringLiteral("c"), paint).ok);
        const QStringList problems = svgTextProblems(readAll(svg));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 8).join(QLatin1Char('\n'))));
        const QString pdf = dir.filePath(QStringLiteral("c.pdf"));
        QVERIFY(exporter.exportView(pdf, QStringLiteral("c"), QStringLiteral("c"), paint).ok);
        PDF_WORDS_OR_SKIP(words, pdf);
        // Every query label, once per pane that draws it.
        const QStringList labels = labelsFor(n);
        for (const QString& label : labels)
            QVERIFY2(words.count(label) >= int(pdfPlans.size()),
                     qPrintable(QStringLiteral("%1: %2 times").arg(label).arg(words.count(label))));
    }

    void differenceIsScaledToItsLargestValue()
    {
        // Heads 0 and 1 of layer 0: sink 0.7 vs 0.1 spread over 10 keys; at the sink column
        // (0.7 + 0.3/10) − (0.1 + 0.9/10) = 0.54, elsewhere 0.03 − 0.09 = −0.06.
        const auto result = resultFor(10);
        ComparisonWidget comparison;
        comparison.resize(900, 600);
        comparison.setResult(result);
        comparison.show();
        QVERIFY(QTest::qWaitForWindowExposed(&comparison));
        comparison.setMode(ComparisonWidget::Mode::Difference);
        comparison.setHeads({{0, 0}, {0, 1}});
        QCOMPARE(int(comparison.panes().size()), 3);
        QVERIFY(std::abs(comparison.differenceRange() - 0.54f) < 1e-5f);
        const HeatmapData& diff = comparison.panes().back()->data();
        QVERIFY2(diff.title.contains(QStringLiteral("0.54")), qPrintable(diff.title));
        // The largest difference reaches the end of the colour axis.
        QVERIFY(std::abs(diff.colorParameter(0, 0, HeatmapScale::Absolute) - 1.0) < 1e-5);
        // Heads 1 and 2 are the same: the difference is 0, and the title says 0 (not the ±1 of its axis).
        comparison.setHeads({{0, 1}, {0, 2}});
        QCOMPARE(comparison.differenceRange(), 0.0f);
        const QString same = comparison.panes().back()->data().title;
        QVERIFY2(same.endsWith(QStringLiteral("max |Δ| 0")), qPrintable(same));
        // Panes use the space: 3 panes in 900×560 sit side by side, in a tall area stacked.
        QCOMPARE(ComparisonWidget::paneGridShape(3, QSizeF(900, 300)), std::make_pair(1, 3));
        QCOMPARE(ComparisonWidget::paneGridShape(3, QSizeF(400, 900)), std::make_pair(3, 1));
        QCOMPARE(ComparisonWidget::paneGridShape(4, QSizeF(800, 750)), std::make_pair(2, 2));
        QCOMPARE(ComparisonWidget::paneGridShape(3, QSizeF(700, 750)), std::make_pair(2, 2));
    }
};

QTEST_MAIN(TestExportLayout)
#include "tst_export_layout.moc"
