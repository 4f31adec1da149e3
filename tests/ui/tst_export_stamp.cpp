// Issue 36: an exported picture says where it came from. Every PNG, SVG and PDF carries one small line at
// the foot of its page (model, text elided when long, measure, head) inside the page and clear of the
// picture; it can be turned off; and the window says where a file went ("Saved to <path>") or, in one line
// naming the file, why it did not.

#include "export/exportcontroller.h"
#include "export/heatmapexporter.h"
#include "i18n/languagemanager.h"
#include "render/headgriddata.h"
#include "support/drawntext.h"
#include "support/svgtextboxes.h"

#include <QDir>
#include <QFile>
#include <QFontMetricsF>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace attnscope;

namespace {

const QString kModel = QStringLiteral("tiny-bert-stamp");
// Long enough that no 900-px line holds it: the stamp must elide it, not run off the page.
const QString kText =
    QStringLiteral("The trophy doesn't fit into the brown suitcase because it is too large, ") +
    QStringLiteral("said the teacher, and the class laughed; ").repeated(8);

HeatmapData smallHeatmap()
{
    HeatmapData data;
    data.rows = data.cols = 4;
    data.rowLabels = data.colLabels = {QStringLiteral("[CLS]"), QStringLiteral("the"),
                                       QStringLiteral("trophy"), QStringLiteral("[SEP]")};
    for (int i = 0; i < 16; ++i)
        data.values.push_back(float(i % 5) / 4.0f);
    data.title = QStringLiteral("t");
    return data;
}

ExportOptions stampedOptions()
{
    ExportOptions options;
    options.size = QSize(900, 800);
    options.overwrite = true;
    options.metadata.model = kModel;
    options.metadata.text = kText;
    options.metadata.measure = QStringLiteral("attention weight α");
    options.metadata.layer = 1;
    options.metadata.head = 0;
    return options;
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The SVG's text box that starts the stamp (the model's name), or an empty box.
SvgTextBox stampBox(const QVector<SvgTextBox>& boxes)
{
    for (const SvgTextBox& box : boxes)
        if (box.text.startsWith(kModel)) return box;
    return {};
}

// pdftotext -bbox's words with their boxes (points), and the page size; empty when the tool is missing.
struct PdfWord
{
    QString text;
    QRectF box;
};
QVector<PdfWord> pdfWords(const QString& pdf, QSizeF* page, bool* missing)
{
    const QString tool = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
    *missing = tool.isEmpty();
    if (tool.isEmpty()) return {};
    QProcess process;
    process.start(tool, {QStringLiteral("-bbox"), pdf, QStringLiteral("-")});
    if (!process.waitForFinished(20000)) return {};
    const QString html = QString::fromUtf8(process.readAllStandardOutput());
    static const QRegularExpression pageSize(
        QStringLiteral("<page width=\"([\\d.]+)\" height=\"([\\d.]+)\""));
    if (const auto m = pageSize.match(html); m.hasMatch())
        *page = QSizeF(m.captured(1).toDouble(), m.captured(2).toDouble());
    static const QRegularExpression word(QStringLiteral(
        "<word xMin=\"([\\d.]+)\" yMin=\"([\\d.]+)\" xMax=\"([\\d.]+)\" yMax=\"([\\d.]+)\">([^<]*)</word>"));
    QVector<PdfWord> words;
    for (auto it = word.globalMatch(html); it.hasNext();) {
        const auto m = it.next();
        words.push_back({m.captured(5), QRectF(QPointF(m.captured(1).toDouble(), m.captured(2).toDouble()),
                                               QPointF(m.captured(3).toDouble(), m.captured(4).toDouble()))});
    }
    return words;
}

} // namespace

class TestExportStamp : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The SVG: the stamp is one line of real text below the matrix and its legend, inside the page, clear of
    // every other label, with the model, the start of the text (elided), the measure and the head.
    void svgStampIsInsideThePageAndClearOfThePicture()
    {
        QTemporaryDir dir;
        const HeatmapExporter exporter(HeatmapStyle{}, stampedOptions());
        const QString svg = dir.filePath(QStringLiteral("h.svg"));
        QVERIFY(exporter.exportHeatmap(smallHeatmap(), svg).ok);
        QString error;
        const QVector<SvgTextBox> boxes = svgTextBoxes(readAll(svg), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const SvgTextBox stamp = stampBox(boxes);
        QVERIFY2(!stamp.text.isEmpty(), "no text starts with the model's name");
        QVERIFY2(stamp.text.contains(QStringLiteral(" · “The trophy doesn't fit")), qPrintable(stamp.text));
        QVERIFY2(stamp.text.contains(QChar(0x2026)), qPrintable(stamp.text)); // elided
        QVERIFY2(
            !stamp.text.contains(QStringLiteral("laughed; said the teacher, and the class laughed; said")),
            qPrintable(stamp.text));
        // The measure and the head follow the text in the same line (Qt may split off the "α" by font).
        QStringList all;
        for (const SvgTextBox& box : boxes)
            all << box.text;
        const QString joined = all.join(QString());
        QVERIFY2(joined.contains(QStringLiteral("attention weight")) &&
                     joined.contains(QStringLiteral("layer 1, head 0")),
                 qPrintable(joined));
        // Inside the page, below the matrix's cells; no text box leaves the page or overlaps another.
        const QRectF bounds = stamp.box.boundingRect();
        QVERIFY2(QRectF(0, 0, 900, 800).contains(bounds), qPrintable(QStringLiteral("%1,%2 %3×%4")
                                                                         .arg(bounds.x())
                                                                         .arg(bounds.y())
                                                                         .arg(bounds.width())
                                                                         .arg(bounds.height())));
        QImage device(900, 800, QImage::Format_ARGB32);
        device.setDotsPerMeterX(3780); // 96 dpi, as the exporter paints
        device.setDotsPerMeterY(3780);
        const HeatmapGeometry geometry =
            exporter.heatmapPageGeometry(device, QRectF(0, 0, 900, 800), smallHeatmap());
        QVERIFY2(bounds.top() >= geometry.area().bottom(), qPrintable(QString::number(bounds.top())));
        QVERIFY2(bounds.height() < 20, qPrintable(QString::number(bounds.height()))); // small: a caption
        const QStringList problems = svgTextProblems(readAll(svg));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    // The PDF carries the stamp as text, inside its page (pdftotext's boxes, in points).
    void pdfStampIsInsideThePage()
    {
        QTemporaryDir dir;
        const QString pdf = dir.filePath(QStringLiteral("h.pdf"));
        QVERIFY(HeatmapExporter(HeatmapStyle{}, stampedOptions()).exportHeatmap(smallHeatmap(), pdf).ok);
        QSizeF page;
        bool missing = false;
        const QVector<PdfWord> words = pdfWords(pdf, &page, &missing);
        if (missing) QSKIP("pdftotext is not installed (Debian: poppler-utils)");
        QCOMPARE(page, QSizeF(675, 600)); // 900×800 px at 96 dpi
        int found = 0;
        for (const PdfWord& word : words) {
            if (word.text != kModel && word.text != QStringLiteral("“The")) continue;
            ++found;
            QVERIFY2(QRectF(QPointF(0, 0), page).contains(word.box), qPrintable(word.text));
            QVERIFY2(word.box.top() > page.height() * 0.9, qPrintable(QString::number(word.box.top())));
        }
        QCOMPARE(found, 2);
    }

    // Off, the page is the picture alone: nothing drawn names the model, and the matrix takes the room.
    void theStampCanBeTurnedOff()
    {
        QImage device(900, 800, QImage::Format_ARGB32);
        device.setDotsPerMeterX(3780);
        device.setDotsPerMeterY(3780);
        ExportOptions off = stampedOptions();
        off.stamp = false;
        const HeatmapData data = smallHeatmap();
        auto drawn = [&](const ExportOptions& options) {
            const HeatmapExporter exporter(HeatmapStyle{}, options);
            return drawnTexts(device, [&](QPainter& painter) {
                exporter.paintHeatmapPage(painter, QRectF(0, 0, 900, 800), data);
            });
        };
        auto namesModel = [](const QStringList& texts) {
            for (const QString& text : texts)
                if (text.contains(kModel)) return true;
            return false;
        };
        QVERIFY(namesModel(drawn(stampedOptions())));
        QVERIFY(!namesModel(drawn(off)));
        const double on = HeatmapExporter(HeatmapStyle{}, stampedOptions())
                              .heatmapPageGeometry(device, QRectF(0, 0, 900, 800), data)
                              .area()
                              .bottom();
        const double without = HeatmapExporter(HeatmapStyle{}, off)
                                   .heatmapPageGeometry(device, QRectF(0, 0, 900, 800), data)
                                   .area()
                                   .bottom();
        QVERIFY(without >= on);
        // Nothing known (a test's bare options): nothing to stamp.
        QVERIFY(!HeatmapExporter(HeatmapStyle{}, ExportOptions{}).hasStamp());
    }

    // From the Turkish window, the stamp is Turkish (the head as "kafa": docs/glossary-tr.md).
    void theStampSpeaksTheWindowsLanguage()
    {
        QVERIFY(LanguageManager::shared()->setLanguage(QStringLiteral("tr")));
        QImage device(900, 800, QImage::Format_ARGB32);
        const QFontMetricsF metrics(QFont(), &device);
        const QString stamp = HeatmapExporter(HeatmapStyle{}, stampedOptions()).stampText(metrics, 4000);
        QVERIFY(LanguageManager::shared()->setLanguage(QStringLiteral("en")));
        QVERIFY2(stamp.endsWith(QStringLiteral(" · attention weight α · katman 1, kafa 0")),
                 qPrintable(stamp));
    }

    // The grid says "all heads"; a view's own painter gets the page above the stamp, and the stamp names
    // the heads the view shows.
    void gridAndViewsAreStamped()
    {
        QTemporaryDir dir;
        HeadGridData grid;
        grid.layers = 2;
        grid.heads = 2;
        for (int i = 0; i < 4; ++i)
            grid.thumbnails.push_back(smallHeatmap());
        ExportOptions options = stampedOptions();
        options.metadata.layer = options.metadata.head = -1;
        const QString gridSvg = dir.filePath(QStringLiteral("g.svg"));
        QVERIFY(HeatmapExporter(HeatmapStyle{}, options).exportGrid(grid, gridSvg).ok);
        QString error;
        QString joined;
        for (const SvgTextBox& box : svgTextBoxes(readAll(gridSvg), &error))
            joined += box.text;
        QVERIFY2(joined.contains(kModel) && joined.contains(QStringLiteral("all heads")), qPrintable(joined));
        QVERIFY2(svgTextProblems(readAll(gridSvg)).isEmpty(),
                 qPrintable(svgTextProblems(readAll(gridSvg)).join(QLatin1Char('\n'))));

        options.metadata.heads = QStringLiteral("layer 0, head 1 + layer 1, head 0");
        QRectF given;
        const QString viewSvg = dir.filePath(QStringLiteral("v.svg"));
        QVERIFY(HeatmapExporter(HeatmapStyle{}, options)
                    .exportView(viewSvg, QStringLiteral("v"), QStringLiteral("v"),
                                [&](QPainter& painter, const QRectF& page) {
                                    given = page;
                                    painter.fillRect(page,
                                                     QColor(200, 220, 240)); // a view that fills its page
                                })
                    .ok);
        const QVector<SvgTextBox> viewBoxes = svgTextBoxes(readAll(viewSvg), &error);
        const SvgTextBox stamp = stampBox(viewBoxes);
        QString viewText; // the stamp's line, with the pieces Qt splits off by font ("α")
        for (const SvgTextBox& box : viewBoxes)
            viewText += box.text;
        QVERIFY2(viewText.contains(QStringLiteral("layer 0, head 1 + layer 1, head 0")),
                 qPrintable(viewText));
        QCOMPARE(given.top(), 0.0);
        QCOMPARE(given.width(), 900.0);
        QVERIFY2(given.bottom() <= stamp.box.boundingRect().top(),
                 qPrintable(QStringLiteral("view to %1, stamp from %2")
                                .arg(given.bottom())
                                .arg(stamp.box.boundingRect().top())));
        QVERIFY(stamp.box.boundingRect().bottom() <= 800);
    }

    // The window's controller: "Saved to <path>" after a file is written; one line naming the file when it
    // cannot be (a folder that does not exist), and no "saved".
    void theControllerSaysWhereTheFileWent()
    {
        QTemporaryDir dir;
        ExportController controller(nullptr);
        controller.imageSize = QSize(400, 300);
        controller.scaleFactor = 1.0;
        QString target = dir.filePath(QStringLiteral("heat.png"));
        QStringList notices, errors;
        controller.askPath = [&](const QString&, const QString&, bool) { return target; };
        controller.confirmOverwrite = [](const QStringList&) { return true; };
        controller.showNotice = [&](const QString& message) { notices << message; };
        controller.showError = [&](const QString& message) { errors << message; };
        ExportMetadata metadata = stampedOptions().metadata;
        QVERIFY(controller.exportHeatmap(smallHeatmap(), HeatmapStyle{}, metadata));
        QVERIFY(QFileInfo::exists(target));
        QCOMPARE(notices, QStringList{QStringLiteral("Saved to ") + QDir::toNativeSeparators(target)});
        QVERIFY(errors.isEmpty());

        notices.clear();
        target = dir.filePath(QStringLiteral("no-such-folder/heat.svg"));
        QVERIFY(!controller.exportHeatmap(smallHeatmap(), HeatmapStyle{}, metadata));
        QVERIFY(notices.isEmpty());
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.front().contains(QDir::toNativeSeparators(target)) || errors.front().contains(target),
                 qPrintable(errors.front()));
        QVERIFY(!errors.front().contains(QLatin1Char('\n')));

        // A view's export says it too.
        errors.clear();
        target = dir.filePath(QStringLiteral("view.pdf"));
        QVERIFY(controller.exportView(QStringLiteral("c"), QStringLiteral("v.pdf"), QStringLiteral("v"),
                                      metadata,
                                      [](QPainter& painter, const QRectF& page) { painter.drawRect(page); }));
        QCOMPARE(notices, QStringList{QStringLiteral("Saved to ") + QDir::toNativeSeparators(target)});
        QVERIFY(errors.isEmpty());
    }
};

QTEST_MAIN(TestExportStamp)
#include "tst_export_stamp.moc"
