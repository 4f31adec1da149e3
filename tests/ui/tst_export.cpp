// The export machinery without the CLI: batch export with progress and cancel, the GUI's overwrite
// confirmation, the grid painter's colours, discounting special tokens, cropping, PNG scale factor.

#include "export/attentionexportsource.h"
#include "export/batchexporter.h"
#include "export/exportcontroller.h"
#include "export/heatmapexporter.h"
#include "io/npywriter.h"
#include "render/colormap.h"
#include "render/headgridpainter.h"
#include "support/testdata.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QWidget>
#include <QtTest>

#include <cmath>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

// 2 layers × 3 heads over 4 tokens, each row a distinct softmax so every head differs.
std::shared_ptr<DenseAttentionMaps> syntheticMaps()
{
    const int L = 2, H = 3, n = 4;
    std::vector<float> p;
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h)
            for (int q = 0; q < n; ++q) {
                double sum = 0, e[n];
                for (int k = 0; k < n; ++k)
                    sum += e[k] = std::exp(0.4 * (h + 1) * q * k / 3.0 - 0.6 * (l + 1) * k + 0.3 * h * (k == 0));
                for (int k = 0; k < n; ++k)
                    p.push_back(float(e[k] / sum));
            }
    return std::make_shared<DenseAttentionMaps>(L, H, n, n, std::move(p));
}

AttentionExportSource syntheticSource()
{
    AttentionExportSource source;
    source.maps = syntheticMaps();
    source.tokens = {QStringLiteral("[CLS]"), QStringLiteral("kedi"), QStringLiteral("oturdu"), QStringLiteral("[SEP]")};
    source.special = {true, false, false, true};
    source.model = QStringLiteral("synthetic");
    source.text = QStringLiteral("kedi oturdu");
    return source;
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

std::vector<float> csvMatrix(const QByteArray& csv)
{
    std::vector<float> values;
    const QList<QByteArray> lines = csv.trimmed().split('\n');
    for (int i = 1; i < lines.size(); ++i) {
        const QList<QByteArray> fields = lines[i].split(',');
        for (int j = 1; j < fields.size(); ++j)
            values.push_back(fields[j].toFloat());
    }
    return values;
}

} // namespace

class TestExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void batchWritesEveryHeadWithProgress()
    {
        QTemporaryDir dir;
        const AttentionExportSource source = syntheticSource();
        BatchExporter batch(source, HeatmapStyle{}, ExportOptions{});
        const QStringList planned = batch.plannedFiles(dir.path(), QStringLiteral("s"), ExportFormat::Csv);
        QCOMPARE(planned.size(), 2 * 3 + 1);
        QVector<int> progress;
        int reportedTotal = 0;
        const auto status = batch.run(dir.path(), QStringLiteral("s"), ExportFormat::Csv, [&](int done, int total, const QString&) {
            progress << done;
            reportedTotal = total;
        });
        QCOMPARE(status, BatchExporter::Status::Done);
        QCOMPARE(reportedTotal, 7);
        QCOMPARE(progress, (QVector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
        QCOMPARE(batch.written(), planned);
        for (int l = 0; l < 2; ++l)
            for (int h = 0; h < 3; ++h)
                QCOMPARE(csvMatrix(readAll(dir.filePath(QStringLiteral("s-L%1-H%2.csv").arg(l).arg(h)))), source.maps->matrix(l, h));
        // The grid CSV is long format: 6 heads × 16 cells + header.
        QCOMPARE(readAll(dir.filePath(QStringLiteral("s-grid.csv"))).trimmed().split('\n').size(), 6 * 16 + 1);
    }

    void batchCancelKeepsWhatWasWritten()
    {
        QTemporaryDir dir;
        BatchExporter batch(syntheticSource(), HeatmapStyle{}, ExportOptions{});
        std::atomic<bool> cancel{false};
        const auto status = batch.run(
            dir.path(), QStringLiteral("s"), ExportFormat::Png,
            [&](int done, int, const QString&) {
                if (done == 2)
                    cancel = true;
            },
            &cancel);
        QCOMPARE(status, BatchExporter::Status::Cancelled);
        QCOMPARE(batch.written().size(), 2);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 2);
        for (const QString& file : batch.written())
            QVERIFY(!QImage(file).isNull());
    }

    void batchRefusesExistingFilesBeforeWritingAny()
    {
        QTemporaryDir dir;
        QVERIFY(writeFileBytes(dir.filePath(QStringLiteral("s-L1-H2.npy")), "mine"));
        BatchExporter batch(syntheticSource(), HeatmapStyle{}, ExportOptions{});
        QCOMPARE(batch.run(dir.path(), QStringLiteral("s"), ExportFormat::Npy), BatchExporter::Status::Failed);
        QVERIFY(batch.error().contains(QLatin1String("s-L1-H2.npy")));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("s-L1-H2.npy")});
        QCOMPARE(readAll(dir.filePath(QStringLiteral("s-L1-H2.npy"))), QByteArray("mine"));
    }

    void guiAsksBeforeReplacing()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("view.json"));
        QVERIFY(writeFileBytes(path, "old"));
        QWidget parent;
        ExportController controller(&parent);
        int asked = 0;
        bool answer = false;
        controller.askPath = [&](const QString&, const QString&, bool folder) { return folder ? dir.path() : path; };
        controller.confirmOverwrite = [&](const QStringList& existing) {
            ++asked;
            return existing.contains(path) ? answer : true;
        };
        QStringList errors, notices;
        controller.showError = [&](const QString& message) { errors << message; };
        controller.showNotice = [&](const QString& message) { notices << message; };
        const AttentionExportSource source = syntheticSource();
        const HeatmapData data = source.heatmap(0, 1);
        QVERIFY(!controller.exportHeatmap(data, HeatmapStyle{}, ExportMetadata{}));
        QCOMPARE(asked, 1);
        QCOMPARE(readAll(path), QByteArray("old"));
        QVERIFY(notices.isEmpty()); // declined: nothing was saved, nothing said
        answer = true;
        QVERIFY(controller.exportHeatmap(data, HeatmapStyle{}, ExportMetadata{}));
        QCOMPARE(asked, 2);
        QVERIFY(readAll(path).contains("\"attention\""));
        QVERIFY(errors.isEmpty());
        QCOMPARE(notices, QStringList{QStringLiteral("Saved to ") + QDir::toNativeSeparators(path)});

        // All heads into a folder where one file exists: declined -> nothing written.
        {
            QFile existing(dir.filePath(QStringLiteral("attention-L0-H0.csv")));
            QVERIFY(existing.open(QIODevice::WriteOnly));
        }
        controller.confirmOverwrite = [&](const QStringList&) { return false; };
        QVERIFY(!controller.exportAllHeads(source, HeatmapStyle{}, ExportFormat::Csv));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("attention-grid.csv"))));
        controller.confirmOverwrite = [&](const QStringList&) { return true; };
        QVERIFY(controller.exportAllHeads(source, HeatmapStyle{}, ExportFormat::Csv));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("attention-grid.csv"))));
        QCOMPARE(notices.last(), QStringLiteral("Saved to ") + QDir::toNativeSeparators(dir.path()));
        QCOMPARE(csvMatrix(readAll(dir.filePath(QStringLiteral("attention-L0-H0.csv")))), source.maps->matrix(0, 0));
    }

    void gridPainterColoursEachHead()
    {
        const AttentionExportSource source = syntheticSource();
        const HeadGridData grid = source.grid();
        HeatmapStyle style;
        style.colorMap = ColorMapKind::Magma;
        const QImage image = renderHeadGridImage(grid, style, 900, 600);
        if (const QString out = qEnvironmentVariable("ATTNSCOPE_TEST_OUTPUT"); !out.isEmpty())
            image.save(out + QStringLiteral("/grid-synthetic.png")); // for a person to look at
        QFont font;
        font.setPointSizeF(style.fontPointSize);
        const QFontMetricsF metrics(font, &image);
        const HeadGridPainter painter(grid, style);
        for (int l = 0; l < 2; ++l)
            for (int h = 0; h < 3; ++h) {
                const QRectF thumb = painter.thumbnailRect(QRectF(8, 8, 900 - 16, 600 - 16), metrics, l, h);
                const std::vector<float> m = source.maps->matrix(l, h);
                for (int q = 0; q < 4; ++q)
                    for (int k = 0; k < 4; ++k) {
                        const QPointF centre(thumb.left() + (k + 0.5) * thumb.width() / 4, thumb.top() + (q + 0.5) * thumb.height() / 4);
                        const QRgb expected = colorMapColor(ColorMapKind::Magma, m[size_t(q * 4 + k)]);
                        QCOMPARE(QColor(image.pixel(centre.toPoint())).name(), QColor(expected).name());
                    }
            }
    }

    void discountUsesTheViewsRule()
    {
        AttentionExportSource source = syntheticSource();
        source.discountSpecial = true;
        const HeatmapData data = source.heatmap(1, 1);
        const std::vector<float> raw = source.maps->matrix(1, 1);
        QVERIFY(data.discounted);
        QVERIFY(data.title.contains(QLatin1String("special tokens discounted")));
        for (int q = 0; q < 4; ++q) {
            const double kept = double(raw[size_t(q * 4 + 1)]) + double(raw[size_t(q * 4 + 2)]);
            QCOMPARE(data.value(q, 0), 0.0f); // [CLS]
            QCOMPARE(data.value(q, 3), 0.0f); // [SEP]
            QVERIFY(std::abs(double(data.value(q, 1)) - raw[size_t(q * 4 + 1)] / kept) < 1e-6);
            QVERIFY(std::abs(double(data.value(q, 2)) - raw[size_t(q * 4 + 2)] / kept) < 1e-6);
        }
    }

    // A zoomed view exports what it shows: the region fills the plot, and numbers hold the region only.
    void regionExportsTheZoomedView()
    {
        QTemporaryDir dir;
        AttentionExportSource source = syntheticSource();
        source.causal = true;
        const HeatmapData data = source.heatmap(1, 2);
        ExportOptions options;
        options.size = QSize(600, 500);
        options.region = QRect(1, 2, 3, 2); // keys 1..3, queries 2..3
        const HeatmapExporter exporter(HeatmapStyle{}, options);
        const QString csv = dir.filePath(QStringLiteral("r.csv"));
        QVERIFY(exporter.exportHeatmap(data, csv).ok);
        const QList<QByteArray> lines = readAll(csv).trimmed().split('\n');
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0], QByteArray("query\\key,kedi,oturdu,[SEP]"));
        QVERIFY(lines[1].startsWith("oturdu,"));
        QCOMPARE(csvMatrix(readAll(csv)), (std::vector<float>{data.value(2, 1), data.value(2, 2), data.value(2, 3),
                                                              data.value(3, 1), data.value(3, 2), data.value(3, 3)}));

        const QString png = dir.filePath(QStringLiteral("r.png"));
        QVERIFY(exporter.exportHeatmap(data, png).ok);
        const QImage image(png);
        const HeatmapGeometry geometry = exporter.heatmapPageGeometry(image, QRectF(0, 0, 600, 500), data);
        int row0, row1, col0, col1;
        geometry.visibleRange(row0, row1, col0, col1);
        // The whole region is visible and fills the plot in one direction (the matrix edge may show a bit more).
        QVERIFY(row0 <= 2 && row1 >= 4 && col0 <= 1 && col1 >= 4);
        QVERIFY((row1 - row0) * (col1 - col0) < 16);
        QVERIFY(std::abs(geometry.cellWidth() * 3 - geometry.area().width()) < 1.0 ||
                std::abs(geometry.cellHeight() * 2 - geometry.area().height()) < 1.0);
        // Query 2 → key 1 is a visible, unmasked cell: its colour; query 2 → key 3 is masked (causal).
        const QRectF cell = geometry.cellRect(2, 1);
        QVERIFY(cell.width() > 50);
        const QPoint at = (cell.topLeft() + QPointF(cell.width() * 0.1, cell.height() * 0.1)).toPoint();
        QCOMPARE(QColor(image.pixel(at)).name(), QColor(colorMapColor(ColorMapKind::Viridis, data.value(2, 1))).name());
        const QRectF masked = geometry.cellRect(2, 3);
        const QRgb maskedPixel = image.pixel((masked.topLeft() + QPointF(masked.width() * 0.5, masked.height() * 0.3)).toPoint());
        QVERIFY(qRed(maskedPixel) == qGreen(maskedPixel) && qGreen(maskedPixel) == qBlue(maskedPixel));

        // Long inputs hold no dense values: the exact block on screen is what gets written.
        HeatmapData frame = data;
        frame.values.clear();
        HeatmapData block;
        block.rows = 2;
        block.cols = 4;
        block.firstRow = 2;
        for (int q = 2; q < 4; ++q)
            for (int k = 0; k < 4; ++k)
                block.values.push_back(data.value(q, k));
        const QString npy = dir.filePath(QStringLiteral("tile.json"));
        QVERIFY(exporter.exportHeatmap(frame, npy, &block).ok);
        QVERIFY(readAll(npy).contains("\"first_query\": 2"));
        // Without a block covering the region there is nothing exact to write: refused, with the reason.
        const ExportResult refused = exporter.exportHeatmap(frame, dir.filePath(QStringLiteral("none.csv")));
        QVERIFY(!refused.ok);
        QVERIFY(refused.error.contains(QLatin1String("zoom in")));
    }

    void pngScaleFactorMultipliesPixels()
    {
        QTemporaryDir dir;
        ExportOptions options;
        options.size = QSize(300, 200);
        options.scaleFactor = 2.5;
        const QString path = dir.filePath(QStringLiteral("x.png"));
        QVERIFY(HeatmapExporter(HeatmapStyle{}, options).exportHeatmap(syntheticSource().heatmap(0, 0), path).ok);
        QCOMPARE(QImage(path).size(), QSize(750, 500));
        options.size = QSize(10000, 10);
        options.scaleFactor = 2;
        const ExportResult tooBig = HeatmapExporter(HeatmapStyle{}, options).exportHeatmap(syntheticSource().heatmap(0, 0), dir.filePath(QStringLiteral("y.png")));
        QVERIFY(!tooBig.ok);
        QVERIFY(tooBig.error.contains(QLatin1String("16384")));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("y.png"))));
    }

    void npyHeaderIsAligned_data()
    {
        QTest::addColumn<QVector<long long>>("shape");
        QTest::newRow("1-D") << QVector<long long>{5};
        QTest::newRow("2-D") << QVector<long long>{2, 3};
        QTest::newRow("4-D") << QVector<long long>{1, 2, 1, 3};
    }
    void npyHeaderIsAligned()
    {
        QFETCH(QVector<long long>, shape);
        long long count = 1;
        for (long long d : shape)
            count *= d;
        std::vector<float> values(size_t(count), 0.25f);
        const QByteArray bytes = npyFloat32(values, std::vector<long long>(shape.begin(), shape.end()));
        const int headerLength = quint8(bytes[8]) | (quint8(bytes[9]) << 8);
        QCOMPARE((10 + headerLength) % 64, 0);
        QCOMPARE(bytes.size(), 10 + headerLength + count * 4);
        QVERIFY(bytes.mid(10, headerLength).endsWith('\n'));
        QString expected = QStringLiteral("(");
        for (int i = 0; i < shape.size(); ++i)
            expected += QString::number(shape[i]) + (shape.size() == 1 ? QStringLiteral(",") : i + 1 < shape.size() ? QStringLiteral(", ") : QString());
        expected += QLatin1Char(')');
        QVERIFY2(QString::fromLatin1(bytes.mid(10, headerLength)).contains(QStringLiteral("'shape': ") + expected), bytes.mid(10, headerLength).constData());
    }
};

QTEST_MAIN(TestExport)
#include "tst_export.moc"
