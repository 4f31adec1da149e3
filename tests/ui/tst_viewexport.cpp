// Export of the comparison, arc and per-layer chart views through ExportController: each view's own paint
// code onto PNG (pixels checked where the geometry says a bar, an arc or a pane is), SVG (valid XML with the
// labels as <text>) and PDF (rendered back with pdftoppm when it is installed).

#include "attention/attentionmaps.h"
#include "explorer/arclayout.h"
#include "explorer/arcwidget.h"
#include "explorer/comparisonwidget.h"
#include "explorer/explorerresult.h"
#include "explorer/heatmapwidget.h"
#include "explorer/layerchartwidget.h"
#include "export/exportcontroller.h"
#include "support/testdata.h"

#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QWidget>
#include <QXmlStreamReader>
#include <QtTest>
#include <memory>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

constexpr int kTokens = 4;

// 1 layer × 2 heads over 4 tokens: head 0 is the identity (query i looks only at key i), head 1 is uniform.
std::shared_ptr<ExplorerResult> smallResult()
{
    std::vector<float> p;
    for (int h = 0; h < 2; ++h)
        for (int q = 0; q < kTokens; ++q)
            for (int k = 0; k < kTokens; ++k)
                p.push_back(h == 0 ? float(q == k) : 1.0f / kTokens);
    auto result = std::make_shared<ExplorerResult>();
    result->textA = QStringLiteral("kedi oturdu");
    result->modelName = QStringLiteral("synthetic");
    result->run.labels = {QStringLiteral("[CLS]"), QStringLiteral("kedi"), QStringLiteral("oturdu"), QStringLiteral("[SEP]")};
    result->run.tokens = result->run.labels;
    result->run.roles.special = {true, false, false, true};
    result->run.roles.clsPositions = {0};
    result->run.roles.sepPositions = {3};
    result->run.maps = std::make_shared<DenseAttentionMaps>(1, 2, kTokens, kTokens, std::move(p));
    AnalysisOptions options;
    options.threads = 1;
    result->analysis = *analyzeAttention(*result->run.maps, result->run.roles, options);
    return result;
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The texts of every <text> element (QSvgGenerator writes real text, not outlines); empty when not XML.
QStringList svgTexts(const QByteArray& svg, QString* error)
{
    QStringList texts;
    QXmlStreamReader xml(svg);
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("text"))
            texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
    }
    if (xml.hasError())
        *error = xml.errorString();
    return texts;
}

bool near(QColor a, QColor b, int tolerance)
{
    return std::abs(a.red() - b.red()) <= tolerance && std::abs(a.green() - b.green()) <= tolerance &&
           std::abs(a.blue() - b.blue()) <= tolerance;
}

// Renders page 1 of a PDF at 96 dpi (1 PDF pixel = 1 logical pixel); null image when pdftoppm is missing.
QImage renderPdf(const QString& pdf, const QString& stem, bool* missing)
{
    const QString tool = QStandardPaths::findExecutable(QStringLiteral("pdftoppm"));
    *missing = tool.isEmpty();
    if (tool.isEmpty())
        return {};
    QProcess process;
    process.start(tool, {QStringLiteral("-png"), QStringLiteral("-r"), QStringLiteral("96"), QStringLiteral("-singlefile"), pdf, stem});
    if (!process.waitForFinished(20000) || process.exitCode() != 0)
        return {};
    return QImage(stem + QStringLiteral(".png"));
}

class Target
{
public:
    explicit Target(ExportController& controller, const QString& path) : m_path(path)
    {
        controller.askPath = [this](const QString&, const QString&, bool) { return m_path; };
        controller.confirmOverwrite = [](const QStringList&) { return true; };
        controller.showError = [this](const QString& message) { error = message; };
    }
    QString error;

private:
    QString m_path;
};

// Exports the view (caption "c", title "t") through the controller, its file dialog answering `path` (the
// name it suggests is that file's) and its overwrite question yes: exportView's answer, with the error the
// controller showed in *error. The answers hold no reference into this call: the controller keeps them.
bool exportViewTo(ExportController& controller, const QString& path,
                  const HeatmapExporter::PagePainter& paint, QString* error = nullptr)
{
    const auto shown = std::make_shared<QString>();
    controller.askPath = [path](const QString&, const QString&, bool) { return path; };
    controller.confirmOverwrite = [](const QStringList&) { return true; };
    controller.showError = [shown](const QString& message) { *shown = message; };
    const bool ok =
        controller.exportView(QStringLiteral("c"), QFileInfo(path).fileName(), QStringLiteral("t"), ExportMetadata(), paint);
    if (error) *error = *shown;
    return ok;
}

} // namespace

// The file `pdf` is a PDF, its page 1 rendered into `rendered` (renderPdf, as `stem`.png); the test function
// skips where pdftoppm is not installed.
#define RENDER_PDF_OR_SKIP(rendered, pdf, stem)                                                              \
    QVERIFY(readAll(pdf).startsWith("%PDF"));                                                                \
    bool rendered##Missing = false;                                                                          \
    const QImage rendered = renderPdf(pdf, stem, &rendered##Missing);                                        \
    if (rendered##Missing) QSKIP("pdftoppm is not installed")

// The texts of the SVG file `svg` (svgTexts) into `texts`; the file must be well-formed XML.
#define READ_SVG_TEXTS(texts, svg)                                                                           \
    QString texts##Error;                                                                                    \
    const QStringList texts = svgTexts(readAll(svg), &texts##Error);                                         \
    QVERIFY2(texts##Error.isEmpty(), qPrintable(texts##Error))

class TestViewExport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void layerChartBarsInEveryFormat()
    {
        QTemporaryDir dir;
        LayerChartWidget chart;
        std::vector<LayerSummary> summaries(2);
        summaries[0].layer = 0;
        summaries[0].sinkMass = 0.8;
        summaries[0].sepMass = 0.3;
        summaries[1].layer = 1;
        summaries[1].sinkMass = 0.5;
        summaries[1].sepMass = 0.9;
        chart.setSummaries(summaries);
        ExportController controller(nullptr);
        controller.imageSize = QSize(500, 300);
        controller.scaleFactor = 1.0;
        auto paint = [&chart](QPainter& painter, const QRectF& page) { chart.paintChart(painter, page); };

        const QRectF page(0, 0, 500, 300);
        const LayerChartGeometry geometry(LayerChartWidget::plotRect(page), 2);
        const QColor sink(0, 114, 178), sep(213, 94, 0);
        struct Probe { QPointF at; QColor colour; };
        const std::vector<Probe> probes = {
            {geometry.barRect(0, 0, 0.8).center(), sink},
            {geometry.barRect(0, 1, 0.3).center(), sep},
            {geometry.barRect(1, 0, 0.5).center(), sink},
            {geometry.barRect(1, 1, 0.9).center(), sep},
            // Above layer 0's sink bar (0.8) at 0.9: the background.
            {QPointF(geometry.barRect(0, 0, 0.8).center().x(), geometry.yFor(0.9)), QColor(Qt::white)},
        };

        const QString png = dir.filePath(QStringLiteral("chart.png"));
        QString exportError;
        QVERIFY2(exportViewTo(controller, png, paint, &exportError), qPrintable(exportError));
        const QImage image(png);
        QCOMPARE(image.size(), QSize(500, 300));
        for (const Probe& probe : probes)
            QCOMPARE(image.pixelColor(probe.at.toPoint()), probe.colour);

        const QString svg = dir.filePath(QStringLiteral("chart.svg"));
        QVERIFY(exportViewTo(controller, svg, paint));
        READ_SVG_TEXTS(texts, svg);
        QVERIFY2(texts.contains(QStringLiteral("L0")) && texts.contains(QStringLiteral("L1")), qPrintable(texts.join(QLatin1Char('|'))));
        QVERIFY(texts.contains(QStringLiteral("Mean attention per layer")));

        const QString pdf = dir.filePath(QStringLiteral("chart.pdf"));
        QVERIFY(exportViewTo(controller, pdf, paint));
        RENDER_PDF_OR_SKIP(rendered, pdf, dir.filePath(QStringLiteral("chart-pdf")));
        QCOMPARE(rendered.size(), QSize(500, 300));
        for (const Probe& probe : probes)
            QVERIFY2(near(rendered.pixelColor(probe.at.toPoint()), probe.colour, 6),
                     qPrintable(rendered.pixelColor(probe.at.toPoint()).name()));
    }

    void arcsDrawTheHeadColourWhereTheLayoutPutsTheLines()
    {
        QTemporaryDir dir;
        const auto result = smallResult();
        ArcWidget arcs; // never shown: the export fetches the tiles itself
        arcs.setResult(result);
        arcs.setHeads({{0, 0}});
        ExportController controller(nullptr);
        controller.imageSize = QSize(600, 400);
        controller.scaleFactor = 1.0;
        auto paint = [&arcs](QPainter& painter, const QRectF& page) { arcs.paintView(painter, page); };

        // The same layout the view uses for this page: head 0 is the identity, so every line joins query i to
        // key i with full weight and is drawn opaque in head 0's colour.
        const QRectF page(0, 0, 600, 400);
        const std::vector<std::vector<float>> matrices = {
            result->run.maps->tile(0, 0, 0, kTokens, 0, kTokens)};
        const ArcLayout layout(ArcWidget::arcArea(page), kTokens, ArcWidget::kLabelWidth, matrices);
        const auto lines = layout.lines();
        QCOMPARE(int(lines.size()), kTokens);
        const QColor colour = ArcLayout::headColor(0);

        const QString png = dir.filePath(QStringLiteral("arcs.png"));
        QString exportError;
        QVERIFY2(exportViewTo(controller, png, paint, &exportError), qPrintable(exportError));
        const QImage image(png);
        QCOMPARE(image.size(), QSize(600, 400));
        for (const auto& line : lines) {
            const QPoint mid = line.line.center().toPoint();
            QVERIFY2(near(image.pixelColor(mid), colour, 3), qPrintable(image.pixelColor(mid).name()));
        }
        // Between two lines' midpoints there is no line (the background).
        const QPointF between = (lines[0].line.center() + lines[1].line.center()) / 2;
        QCOMPARE(image.pixelColor(between.toPoint()), QColor(Qt::white));

        const QString svg = dir.filePath(QStringLiteral("arcs.svg"));
        QVERIFY(exportViewTo(controller, svg, paint));
        READ_SVG_TEXTS(texts, svg);
        for (const QString& label : result->run.labels)
            QCOMPARE(texts.count(label), 2); // query and key column

        const QString pdf = dir.filePath(QStringLiteral("arcs.pdf"));
        QVERIFY(exportViewTo(controller, pdf, paint));
        RENDER_PDF_OR_SKIP(rendered, pdf, dir.filePath(QStringLiteral("arcs-pdf")));
        QCOMPARE(rendered.size(), QSize(600, 400));
        const QPoint mid = lines[1].line.center().toPoint();
        QVERIFY2(near(rendered.pixelColor(mid), colour, 8), qPrintable(rendered.pixelColor(mid).name()));
    }

    void comparisonExportIsWhatThePanesShow()
    {
        QTemporaryDir dir;
        const auto result = smallResult();
        ComparisonWidget comparison;
        comparison.resize(800, 500);
        comparison.setResult(result);
        comparison.setHeads({{0, 0}, {0, 1}});
        comparison.show();
        QVERIFY(QTest::qWaitForWindowExposed(&comparison));
        QTRY_COMPARE(int(comparison.panes().size()), 2);
        // The layout settles: its posted requests (and the resizes they cause) are handled now, not after a
        // wait that a loaded machine may outlast.
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();

        // Export at the panes' own size, so pixels compare one to one with what the screen paints.
        QRect bounds;
        for (HeatmapWidget* pane : comparison.panes())
            bounds |= QRect(pane->mapTo(&comparison, QPoint(0, 0)), pane->size());
        QVERIFY(!bounds.isEmpty());
        ExportController controller(nullptr);
        controller.imageSize = bounds.size();
        controller.scaleFactor = 1.0;
        auto paint = [&comparison](QPainter& painter, const QRectF& page) { comparison.paintPanes(painter, page); };

        const QString png = dir.filePath(QStringLiteral("comparison.png"));
        QString exportError;
        QVERIFY2(exportViewTo(controller, png, paint, &exportError), qPrintable(exportError));
        const QImage image(png);
        QCOMPARE(image.size(), bounds.size());
        // The page lays each pane out anew (under a title, at the page's resolution): every cell of every
        // pane has the colour the screen shows for that cell.
        const auto page = comparison.pageLayout(&image, QRectF(QPointF(0, 0), QSizeF(bounds.size())));
        QCOMPARE(int(page.size()), int(comparison.panes().size()));
        for (const ComparisonWidget::PagePane& onPage : page) {
            const QImage screen =
                const_cast<HeatmapWidget*>(onPage.pane)->grab().toImage(); // grab() is not const
            const double ratio = screen.devicePixelRatio();
            int same = 0, probes = 0;
            for (int r = 0; r < onPage.pane->data().rows; ++r)
                for (int c = 0; c < onPage.pane->data().cols; ++c) {
                    ++probes;
                    const QPointF there = onPage.geometry.cellRect(r, c).center();
                    const QPointF here = onPage.pane->geometryForTests().cellRect(r, c).center() * ratio;
                    same += near(image.pixelColor(there.toPoint()), screen.pixelColor(here.toPoint()), 2);
                }
            QCOMPARE(probes, kTokens * kTokens);
            QVERIFY2(same == probes,
                     qPrintable(QStringLiteral("%1 of %2 cells match").arg(same).arg(probes)));
        }

        // Twice the size: a different picture size, the same view.
        controller.imageSize = bounds.size() * 2;
        const QString big = dir.filePath(QStringLiteral("comparison-big.png"));
        QVERIFY(exportViewTo(controller, big, paint));
        QCOMPARE(QImage(big).size(), bounds.size() * 2);

        const QString svg = dir.filePath(QStringLiteral("comparison.svg"));
        QVERIFY(exportViewTo(controller, svg, paint));
        READ_SVG_TEXTS(texts, svg);
        QVERIFY2(texts.contains(QStringLiteral("kedi")) && texts.contains(QStringLiteral("oturdu")), qPrintable(texts.join(QLatin1Char('|'))));

        const QString pdf = dir.filePath(QStringLiteral("comparison.pdf"));
        QVERIFY(exportViewTo(controller, pdf, paint));
        RENDER_PDF_OR_SKIP(rendered, pdf, dir.filePath(QStringLiteral("comparison-pdf")));
        // A page of 1.5 points rounds to the next pixel in pdftoppm.
        QVERIFY2(std::abs(rendered.width() - bounds.width() * 2) <= 1 && std::abs(rendered.height() - bounds.height() * 2) <= 1,
                 qPrintable(QStringLiteral("%1x%2").arg(rendered.width()).arg(rendered.height())));
    }

    void existingFileIsReplacedOnlyWhenConfirmed()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("chart.png"));
        QVERIFY(writeFileBytes(path, "old"));
        LayerChartWidget chart;
        ExportController controller(nullptr);
        controller.imageSize = QSize(300, 200);
        Target target(controller, path);
        QStringList asked;
        controller.confirmOverwrite = [&asked](const QStringList& existing) { asked = existing; return false; };
        auto paint = [&chart](QPainter& painter, const QRectF& page) { chart.paintChart(painter, page); };
        QVERIFY(!controller.exportView(QStringLiteral("c"), QStringLiteral("chart.png"), QStringLiteral("t"), ExportMetadata(), paint));
        QCOMPARE(asked, QStringList{path});
        QCOMPARE(readAll(path), QByteArray("old"));
        controller.confirmOverwrite = [](const QStringList&) { return true; };
        QVERIFY(controller.exportView(QStringLiteral("c"), QStringLiteral("chart.png"), QStringLiteral("t"), ExportMetadata(), paint));
        QCOMPARE(QImage(path).size(), QSize(600, 400)); // default scale factor 2
    }
};

QTEST_MAIN(TestViewExport)
#include "tst_viewexport.moc"
