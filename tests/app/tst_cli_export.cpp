// Runs `attnscope export` as a user would and checks what it writes against the worked example's
// attention computed here by hand: softmax(QKᵀ/√4) of the vectors in core/attention/workedexample.h.

#include "attention/attention.h"
#include "attention/workedexample.h"
#include "export/heatmapexporter.h"
#include "render/colormap.h"
#include "render/heatmapdata.h"
#include "support/processrun.h"
#include "support/testdata.h"

#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPainter>
#include <QProcess>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtEndian>
#include <QtTest>
#include <cmath>
#include <cstring>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

const QString kText = QStringLiteral("kedi mindere oturdu");

using Run = TextRun;

Run runAttnscope(const QStringList& arguments, const QString& workingDirectory, bool withDisplayVariables = false)
{
    ProcessOptions options;
    // Without the display variables: no X, no Wayland, no platform chosen: the binary must pick offscreen
    // itself.
    if (!withDisplayVariables) options.environment = environmentWithoutDisplay();
    options.environment.insert(QStringLiteral("XDG_RUNTIME_DIR"), privateRuntimeDir());
    options.workingDirectory = workingDirectory;
    options.timeoutMs = 60000;
    Run run = runProcess(QStringLiteral(ATTNSCOPE_BINARY), QStringList{QStringLiteral("export")} + arguments,
                         options)
                  .text();
    if (!run.finished) return {};
    return run;
}

// The command line stamps its images (model, text, measure, head: ExportOptions::stamp): the page's
// geometry is that of a stamped page, whatever the stamp says.
ExportOptions stampedLikeTheCli()
{
    ExportOptions options;
    options.metadata.model = QStringLiteral("worked-example");
    return options;
}

// export of the worked example (kText), then `rest` (what to draw, --out, the flags).
Run exportWorkedExample(const QStringList& rest, const QString& workingDirectory)
{
    return runAttnscope(QStringList{QStringLiteral("--model"), QStringLiteral("worked-example"),
                                    QStringLiteral("--text"), kText} +
                            rest,
                        workingDirectory);
}

// The worked example by hand, in double: P[q][k] = softmax_k(Q_q · K_k / 2), with -inf above the diagonal when causal.
std::vector<double> handAttention(bool causal)
{
    const double q[3][4] = {{3, 1, 3, 1}, {1, 1, 1, 5}, {3, 2, 3, 1}};
    const double k[3][4] = {{1, 0, 1, 0}, {0, 1, 0, 1}, {1, 1, 0, 0}};
    std::vector<double> p(9);
    for (int i = 0; i < 3; ++i) {
        double s[3], max = -1e300, sum = 0;
        for (int j = 0; j < 3; ++j) {
            s[j] = (q[i][0] * k[j][0] + q[i][1] * k[j][1] + q[i][2] * k[j][2] + q[i][3] * k[j][3]) / 2.0;
            if (!(causal && j > i))
                max = std::max(max, s[j]);
        }
        for (int j = 0; j < 3; ++j)
            sum += causal && j > i ? 0.0 : std::exp(s[j] - max);
        for (int j = 0; j < 3; ++j)
            p[size_t(i * 3 + j)] = causal && j > i ? 0.0 : std::exp(s[j] - max) / sum;
    }
    return p;
}

// The matrix the core computes (float): what the exports must carry bit for bit.
std::vector<float> coreAttention()
{
    const WorkedExample example;
    const FloatBuffer p = attentionFull(example.q(), example.k(), example.v(), AttentionOptions{}).probabilities;
    return std::vector<float>(p.begin(), p.end());
}

HeatmapData workedHeatmap(bool causal)
{
    HeatmapData data;
    data.rows = data.cols = 3;
    for (double v : handAttention(causal))
        data.values.push_back(float(v));
    data.rowLabels = data.colLabels = kText.split(QLatin1Char(' '));
    data.causal = causal;
    data.title = QStringLiteral("title");
    return data;
}

bool colorClose(QRgb a, QRgb b, int tolerance)
{
    return std::abs(qRed(a) - qRed(b)) <= tolerance && std::abs(qGreen(a) - qGreen(b)) <= tolerance &&
           std::abs(qBlue(a) - qBlue(b)) <= tolerance;
}

// Reads a .npy v1 float32 file independently of the app's writer.
bool readNpy(const QByteArray& bytes, std::vector<long long>& shape, std::vector<float>& values)
{
    if (!bytes.startsWith("\x93NUMPY") || bytes.size() < 10)
        return false;
    const int headerLength = qFromLittleEndian<quint16>(bytes.constData() + 8);
    const QByteArray header = bytes.mid(10, headerLength);
    const bool f8 = header.contains("'descr': '<f8'");
    if (!(f8 || header.contains("'descr': '<f4'")) || !header.contains("'fortran_order': False") || (10 + headerLength) % 64 != 0)
        return false;
    const int open = int(header.indexOf('(', header.indexOf("'shape'"))), close = int(header.indexOf(')', open));
    shape.clear();
    long long count = 1;
    for (const QByteArray& part : header.mid(open + 1, close - open - 1).split(',')) {
        if (part.trimmed().isEmpty())
            continue;
        shape.push_back(part.trimmed().toLongLong());
        count *= shape.back();
    }
    const QByteArray data = bytes.mid(10 + headerLength);
    if (data.size() != count * (f8 ? 8 : 4))
        return false;
    values.resize(size_t(count));
    for (long long i = 0; i < count; ++i) {
        if (f8) { // the oracle fixtures are float64
            const quint64 bits = qFromLittleEndian<quint64>(data.constData() + i * 8);
            double v;
            std::memcpy(&v, &bits, 8);
            values[size_t(i)] = float(v);
        } else {
            const quint32 bits = qFromLittleEndian<quint32>(data.constData() + i * 4);
            std::memcpy(&values[size_t(i)], &bits, 4);
        }
    }
    return true;
}

} // namespace

class TestCliExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(QStringLiteral(ATTNSCOPE_BINARY)), ATTNSCOPE_BINARY);
        QVERIFY(m_dir.isValid());
    }

    void handAndCoreAgree()
    {
        const std::vector<double> hand = handAttention(false);
        const std::vector<float> core = coreAttention();
        QCOMPARE(core.size(), hand.size());
        for (size_t i = 0; i < hand.size(); ++i)
            QVERIFY(std::abs(double(core[i]) - hand[i]) < 1e-6);
    }

    void pngHasTheSizeAndColours_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("colormap");
        QTest::addColumn<QString>("scale");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::newRow("viridis abs 640x480") << "worked-example" << "viridis" << "abs" << 640 << 480;
        QTest::newRow("magma row 1000x900") << "worked-example" << "magma" << "row" << 1000 << 900;
        QTest::newRow("greys log 500x700") << "worked-example" << "greys" << "log" << 500 << 700;
        QTest::newRow("cividis abs causal") << "worked-example-causal" << "cividis" << "abs" << 800 << 800;
    }
    void pngHasTheSizeAndColours()
    {
        QFETCH(QString, model);
        QFETCH(QString, colormap);
        QFETCH(QString, scale);
        QFETCH(int, width);
        QFETCH(int, height);
        const QString out = m_dir.filePath(QStringLiteral("%1-%2-%3.png").arg(model, colormap, scale));
        const Run run = runAttnscope({QStringLiteral("--model"), model, QStringLiteral("--text"), kText, QStringLiteral("--layer"),
                                      QStringLiteral("0"), QStringLiteral("--head"), QStringLiteral("0"), QStringLiteral("--colormap"),
                                      colormap, QStringLiteral("--scale"), scale, QStringLiteral("--size"),
                                      QStringLiteral("%1x%2").arg(width).arg(height), QStringLiteral("--out"), out},
                                     m_dir.path());
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QImage image(out);
        QCOMPARE(image.size(), QSize(width, height));

        const bool causal = model.endsWith(QLatin1String("causal"));
        const HeatmapData data = workedHeatmap(causal);
        HeatmapStyle style;
        style.colorMap = *colorMapFromName(colormap);
        style.scale = scale == QLatin1String("row") ? HeatmapScale::RowMax : scale == QLatin1String("log") ? HeatmapScale::Log : HeatmapScale::Absolute;
        style.showValues = true;
        const HeatmapGeometry geometry = HeatmapExporter(style, stampedLikeTheCli())
                                             .heatmapPageGeometry(image, QRectF(0, 0, width, height), data);
        const std::vector<double> p = handAttention(causal);
        for (int r = 0; r < 3; ++r) {
            double rowMax = 0;
            for (int c = 0; c < 3; ++c)
                rowMax = std::max(rowMax, p[size_t(r * 3 + c)]);
            for (int c = 0; c < 3; ++c) {
                const QRectF cell = geometry.cellRect(r, c);
                QVERIFY(cell.width() > 20 && cell.height() > 20);
                // A point near the cell's corner: clear of the number written in its middle.
                const QPoint at = (cell.topLeft() + QPointF(cell.width() * 0.15, cell.height() * 0.15)).toPoint();
                const QRgb pixel = image.pixel(at);
                if (causal && c > r) {
                    // Masked: light grey with a hatch, never a colour of the map.
                    QVERIFY2(qRed(pixel) == qGreen(pixel) && qGreen(pixel) == qBlue(pixel) && qRed(pixel) >= 190,
                             qPrintable(QStringLiteral("masked cell (%1,%2) is %3").arg(r).arg(c).arg(QColor(pixel).name())));
                    continue;
                }
                const double v = p[size_t(r * 3 + c)];
                const double t = style.scale == HeatmapScale::Absolute ? v
                               : style.scale == HeatmapScale::RowMax  ? v / rowMax
                                                                      : (std::log10(std::max(v, 1e-4)) + 4.0) / 4.0;
                const QRgb expected = colorMapColor(style.colorMap, t);
                QVERIFY2(colorClose(pixel, expected, 1), qPrintable(QStringLiteral("cell (%1,%2) at %3,%4: %5, expected %6")
                                                                        .arg(r).arg(c).arg(at.x()).arg(at.y())
                                                                        .arg(QColor(pixel).name(), QColor(expected).name())));
            }
        }
    }

    void svgIsXmlWithTokenText()
    {
        const QString out = m_dir.filePath(QStringLiteral("head.svg"));
        const Run run =
            exportWorkedExample({QStringLiteral("--layer"), QStringLiteral("0"), QStringLiteral("--head"),
                                 QStringLiteral("0"), QStringLiteral("--out"), out},
                                m_dir.path());
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&file);
        QStringList texts;
        bool sawSvg = false;
        while (!xml.atEnd()) {
            xml.readNext();
            if (xml.isStartElement() && xml.name() == QLatin1String("svg"))
                sawSvg = true;
            if (xml.isStartElement() && xml.name() == QLatin1String("text"))
                texts << xml.readElementText().trimmed();
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(sawSvg);
        // Each token twice: as a query label (rows) and a key label (columns).
        for (const QString& token : kText.split(QLatin1Char(' ')))
            QCOMPARE(texts.count(token), 2);

        // Drawn by an SVG renderer (Qt's), the cells have the worked example's colours at the same places as
        // in the PNG: the SVG is the same picture, not just valid XML.
        QSvgRenderer renderer(out);
        QVERIFY(renderer.isValid());
        QCOMPARE(renderer.viewBox(), QRect(0, 0, 900, 800));
        QImage image(900, 800, QImage::Format_ARGB32);
        image.fill(Qt::white);
        {
            QPainter painter(&image);
            renderer.render(&painter);
        }
        if (const QString dir = qEnvironmentVariable("ATTNSCOPE_TEST_OUTPUT"); !dir.isEmpty())
            image.save(dir + QStringLiteral("/svg-rendered.png"));
        HeatmapStyle style;
        style.showValues = true;
        const HeatmapGeometry geometry =
            HeatmapExporter(style, stampedLikeTheCli())
                .heatmapPageGeometry(image, QRectF(0, 0, 900, 800), workedHeatmap(false));
        const std::vector<double> p = handAttention(false);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                const QRectF cell = geometry.cellRect(r, c);
                const QPoint at = (cell.topLeft() + QPointF(cell.width() * 0.15, cell.height() * 0.15)).toPoint();
                QVERIFY(colorClose(image.pixel(at), colorMapColor(ColorMapKind::Viridis, p[size_t(r * 3 + c)]), 2));
            }
    }

    // Issue 36: the image says where it came from, in a line of text at its foot (model, text, measure,
    // head); --no-stamp leaves the picture alone.
    void imagesAreStampedUnlessAskedNot()
    {
        auto texts = [this](const QString& name, const QStringList& extra) {
            const QString out = m_dir.filePath(name);
            const Run run =
                runAttnscope(QStringList{QStringLiteral("--model"), QStringLiteral("worked-example"),
                                         QStringLiteral("--text"), kText, QStringLiteral("--layer"),
                                         QStringLiteral("0"), QStringLiteral("--head"), QStringLiteral("0"),
                                         QStringLiteral("--force"), QStringLiteral("--out"), out} +
                                 extra,
                             m_dir.path());
            QStringList found;
            if (run.exitCode != 0) return QStringList{QStringLiteral("exit: ") + run.err};
            QFile file(out);
            if (!file.open(QIODevice::ReadOnly)) return found;
            QXmlStreamReader xml(&file);
            while (!xml.atEnd()) {
                xml.readNext();
                if (xml.isStartElement() && xml.name() == QLatin1String("text"))
                    found << xml.readElementText().trimmed();
            }
            return found;
        };
        const QStringList stamped = texts(QStringLiteral("stamped.svg"), {});
        const QString joined = stamped.join(QString());
        QVERIFY2(joined.contains(QStringLiteral("“kedi mindere oturdu”")) &&
                     joined.contains(QStringLiteral("attention weight")) &&
                     joined.contains(QStringLiteral("layer 0, head 0")),
                 qPrintable(stamped.join(QLatin1Char('|'))));
        const QStringList bare = texts(QStringLiteral("bare.svg"), {QStringLiteral("--no-stamp")});
        QVERIFY2(!bare.isEmpty() && !bare.join(QString()).contains(QStringLiteral("attention weight")),
                 qPrintable(bare.join(QLatin1Char('|'))));
    }

    void pdfRendersWithPdftoppm()
    {
        const QString pdftoppm = QStandardPaths::findExecutable(QStringLiteral("pdftoppm"));
        QVERIFY2(!pdftoppm.isEmpty(), "pdftoppm (poppler-utils) is required: tools/dev installs it");
        const QString out = m_dir.filePath(QStringLiteral("head.pdf"));
        const Run run = exportWorkedExample(
            {QStringLiteral("--layer"), QStringLiteral("0"), QStringLiteral("--head"), QStringLiteral("0"),
             QStringLiteral("--size"), QStringLiteral("900x800"), QStringLiteral("--out"), out},
            m_dir.path());
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QProcess render;
        render.start(pdftoppm, {QStringLiteral("-png"), QStringLiteral("-r"), QStringLiteral("96"), QStringLiteral("-singlefile"), out,
                                m_dir.filePath(QStringLiteral("pdfpage"))});
        QVERIFY(render.waitForFinished(30000));
        QCOMPARE(render.exitCode(), 0);
        const QImage page(m_dir.filePath(QStringLiteral("pdfpage.png")));
        QVERIFY(!page.isNull());
        // A 900×800 page at 96 dpi (675×600 pt) renders back to 900×800 pixels at 96 dpi.
        QVERIFY(std::abs(page.width() - 900) <= 1 && std::abs(page.height() - 800) <= 1);
        const HeatmapData data = workedHeatmap(false);
        HeatmapStyle style;
        style.showValues = true;
        QImage probe(900, 800, QImage::Format_ARGB32);
        const HeatmapGeometry geometry = HeatmapExporter(style, stampedLikeTheCli())
                                             .heatmapPageGeometry(probe, QRectF(0, 0, 900, 800), data);
        const std::vector<double> p = handAttention(false);
        for (int r = 0; r < 3; ++r) {
            for (int c = 0; c < 3; ++c) {
                const QRectF cell = geometry.cellRect(r, c);
                const QPoint at = (cell.topLeft() + QPointF(cell.width() * 0.15, cell.height() * 0.15)).toPoint();
                const QRgb expected = colorMapColor(ColorMapKind::Viridis, p[size_t(r * 3 + c)]);
                QVERIFY2(colorClose(page.pixel(at), expected, 3), qPrintable(QStringLiteral("cell (%1,%2): %3, expected %4")
                                                                              .arg(r).arg(c).arg(QColor(page.pixel(at)).name(), QColor(expected).name())));
            }
        }
    }

    void numbersRoundTrip()
    {
        const std::vector<float> core = coreAttention();
        auto exportTo = [&](const QString& name) {
            const QString out = m_dir.filePath(name);
            const Run run =
                exportWorkedExample({QStringLiteral("--layer"), QStringLiteral("0"), QStringLiteral("--head"),
                                     QStringLiteral("0"), QStringLiteral("--out"), out},
                                    m_dir.path());
            QFile file(out);
            return run.exitCode == 0 && file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        };
        // CSV: header of key tokens, then query token and weights.
        const QByteArray csv = exportTo(QStringLiteral("m.csv"));
        const QList<QByteArray> lines = csv.trimmed().split('\n');
        QCOMPARE(lines.size(), 4);
        QCOMPARE(lines[0], QByteArray("query\\key,kedi,mindere,oturdu"));
        for (int r = 0; r < 3; ++r) {
            const QList<QByteArray> fields = lines[r + 1].split(',');
            QCOMPARE(fields.size(), 4);
            QCOMPARE(QString::fromUtf8(fields[0]), kText.split(QLatin1Char(' '))[r]);
            for (int c = 0; c < 3; ++c)
                QCOMPARE(fields[c + 1].toFloat(), core[size_t(r * 3 + c)]); // exact
        }
        // JSON
        const QJsonObject json = QJsonDocument::fromJson(exportTo(QStringLiteral("m.json"))).object();
        QCOMPARE(json.value(QStringLiteral("model")).toString(), QStringLiteral("worked-example"));
        QCOMPARE(json.value(QStringLiteral("text")).toString(), kText);
        QCOMPARE(json.value(QStringLiteral("layer")).toInt(), 0);
        QCOMPARE(json.value(QStringLiteral("query_tokens")).toArray().size(), 3);
        const QJsonArray rows = json.value(QStringLiteral("attention")).toArray();
        QCOMPARE(rows.size(), 3);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                QCOMPARE(float(rows[r].toArray()[c].toDouble()), core[size_t(r * 3 + c)]);
        // NPY, read by the independent reader above.
        std::vector<long long> shape;
        std::vector<float> values;
        QVERIFY(readNpy(exportTo(QStringLiteral("m.npy")), shape, values));
        QCOMPARE(shape, (std::vector<long long>{3, 3}));
        QCOMPARE(values, core);
    }

    // A model's grid carries the explorer's head labels (badge per head, legend), computed from the token
    // roles with the default thresholds; the worked example has no roles and so no badges.
    void modelGridCarriesHeadLabels()
    {
        const QString svg = m_dir.filePath(QStringLiteral("labelled-grid.svg"));
        Run run = runAttnscope({QStringLiteral("--model"), QStringLiteral("tiny-bert-en-tr"), QStringLiteral("--text"),
                                QStringLiteral("the cat sat on the mat"), QStringLiteral("--grid"), QStringLiteral("--out"), svg},
                               m_dir.path());
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QByteArray text = readFileBytes(svg);
        QVERIFY2(!text.isEmpty(), qPrintable(svg + QStringLiteral(": empty or unreadable")));
        for (int head = 0; head < 8; ++head)
            QCOMPARE(text.count(QStringLiteral(">H%1 ").arg(head).toUtf8()), 6); // one badge per layer
        const QString plain = m_dir.filePath(QStringLiteral("worked-grid.svg"));
        run = exportWorkedExample({QStringLiteral("--grid"), QStringLiteral("--out"), plain}, m_dir.path());
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QFile plainFile(plain);
        QVERIFY(plainFile.open(QIODevice::ReadOnly));
        QCOMPARE(plainFile.readAll().count(">H0 "), 0);
    }

    // Word pieces keep their marker in an exported heatmap, as in the window ("tr" "##oph" "##y", not
    // "tr" "oph" "y", which read like words).
    void subwordMarkersStayInExports()
    {
        const QString svg = m_dir.filePath(QStringLiteral("pieces.svg"));
        const Run run = runAttnscope({QStringLiteral("--model"), QStringLiteral("tiny-bert-en-tr"), QStringLiteral("--text"),
                                      QStringLiteral("The trophy didn't fit."), QStringLiteral("--layer"), QStringLiteral("1"),
                                      QStringLiteral("--head"), QStringLiteral("3"), QStringLiteral("--out"), svg},
                                     m_dir.path());
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QByteArray text = readFileBytes(svg);
        QVERIFY2(!text.isEmpty(), qPrintable(svg + QStringLiteral(": empty or unreadable")));
        QVERIFY2(text.contains(">##oph<"), text.left(400).constData());
        QVERIFY(!text.contains(">oph<"));
    }

    void gridAndAllHeads()
    {
        const QString grid = m_dir.filePath(QStringLiteral("grid.png"));
        Run run = exportWorkedExample({QStringLiteral("--grid"), QStringLiteral("--size"),
                                       QStringLiteral("700x600"), QStringLiteral("--out"), grid},
                                      m_dir.path());
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(QImage(grid).size(), QSize(700, 600));
        QVERIFY2(!run.err.contains(QLatin1String("enlarged")), qPrintable(run.err)); // written as asked
        // A page too small for the grid grows, and one stderr line says so: to the file's size, and why.
        run =
            exportWorkedExample({QStringLiteral("--grid"), QStringLiteral("--size"), QStringLiteral("60x50"),
                                 QStringLiteral("--force"), QStringLiteral("--out"), grid},
                                m_dir.path());
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QSize grown = QImage(grid).size();
        QVERIFY(grown.width() > 60 && grown.height() > 50);
        QCOMPARE(run.err.count(QLatin1String("enlarged")), 1);
        QVERIFY2(run.err.contains(QStringLiteral("grid.png: the page was enlarged from 60×50 to %1×%2 px")
                                      .arg(grown.width())
                                      .arg(grown.height())) &&
                     run.err.contains(QLatin1String("head's number")),
                 qPrintable(run.err));

        const QString gridNpy = m_dir.filePath(QStringLiteral("grid.npy"));
        run = exportWorkedExample({QStringLiteral("--grid"), QStringLiteral("--out"), gridNpy}, m_dir.path());
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        std::vector<long long> shape;
        std::vector<float> values;
        QVERIFY(readNpy(readFileBytes(gridNpy), shape, values));
        QCOMPARE(shape, (std::vector<long long>{1, 1, 3, 3}));
        QCOMPARE(values, coreAttention());

        const QString folder = m_dir.filePath(QStringLiteral("heads"));
        run = exportWorkedExample(
            {QStringLiteral("--all-heads"), folder, QStringLiteral("--out"), QStringLiteral("attn.svg")},
            m_dir.path());
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY(QFile::exists(folder + QStringLiteral("/attn-L0-H0.svg")));
        QVERIFY(QFile::exists(folder + QStringLiteral("/attn-grid.svg")));
        // Again without --force: refused, nothing rewritten.
        const QDateTime before = QFileInfo(folder + QStringLiteral("/attn-L0-H0.svg")).lastModified();
        run = exportWorkedExample(
            {QStringLiteral("--all-heads"), folder, QStringLiteral("--out"), QStringLiteral("attn.svg")},
            m_dir.path());
        QVERIFY(run.exitCode != 0);
        QVERIFY(run.err.contains(QLatin1String("--force")));
        QCOMPARE(QFileInfo(folder + QStringLiteral("/attn-L0-H0.svg")).lastModified(), before);
    }

    void overwriteNeedsForce()
    {
        const QString out = m_dir.filePath(QStringLiteral("keep.png"));
        const QStringList base{QStringLiteral("--model"), QStringLiteral("worked-example"), QStringLiteral("--text"), kText,
                               QStringLiteral("--layer"), QStringLiteral("0"), QStringLiteral("--head"), QStringLiteral("0"),
                               QStringLiteral("--out"), out};
        QCOMPARE(runAttnscope(base, m_dir.path()).exitCode, 0);
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray original = file.readAll();
        file.close();
        const Run refused = runAttnscope(base + QStringList{QStringLiteral("--colormap"), QStringLiteral("magma")}, m_dir.path());
        QVERIFY(refused.exitCode != 0);
        QCOMPARE(refused.err.trimmed().count(QLatin1Char('\n')), 0);
        QVERIFY(refused.err.contains(out));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), original);
        file.close();
        const Run forced = runAttnscope(base + QStringList{QStringLiteral("--colormap"), QStringLiteral("magma"), QStringLiteral("--force")}, m_dir.path());
        QCOMPARE(forced.exitCode, 0);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll() != original);
    }

    // Real models: the oracle fixtures hold tiny BERT, GPT-2 and Llama models with the text they were run on
    // and transformers' attention for it. The exported grid must match, and so must the PNG's colours.
    void oracleModels_data()
    {
        QTest::addColumn<QString>("folder");
        const QDir oracle(QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle"));
        // (llama_s0/s1 have no tokenizer: their cases are given as ids, which export does not take.)
        for (const QString& name : {QStringLiteral("bert_s0"), QStringLiteral("bert_s1"), QStringLiteral("gpt2_s0"), QStringLiteral("gpt2_s1")})
            QTest::newRow(qPrintable(name)) << oracle.filePath(name);
    }
    void oracleModels()
    {
        QFETCH(QString, folder);
        QFile caseFile(folder + QStringLiteral("/case.json"));
        QVERIFY2(caseFile.open(QIODevice::ReadOnly), qPrintable(folder + QStringLiteral(": fixture missing (configure with -DATTNSCOPE_FIXTURES_DIR)")));
        const QJsonObject kase = QJsonDocument::fromJson(caseFile.readAll()).object();
        const QString text = kase.value(QStringLiteral("text")).toString();
        QFile expectedFile(folder + QStringLiteral("/attentions.npy"));
        QVERIFY(expectedFile.open(QIODevice::ReadOnly));
        std::vector<long long> expectedShape;
        std::vector<float> expected;
        QVERIFY(readNpy(expectedFile.readAll(), expectedShape, expected));
        QCOMPARE(expectedShape.size(), size_t(4));

        const QString name = QFileInfo(folder).fileName();
        const QString npyPath = m_dir.filePath(name + QStringLiteral("-grid.npy"));
        Run run = runAttnscope({QStringLiteral("--model"), folder, QStringLiteral("--text"), text, QStringLiteral("--grid"),
                                QStringLiteral("--out"), npyPath},
                               m_dir.path());
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        std::vector<long long> shape;
        std::vector<float> values;
        QVERIFY(readNpy(readFileBytes(npyPath), shape, values));
        QCOMPARE(shape, expectedShape);
        float maxError = 0;
        for (size_t i = 0; i < values.size(); ++i)
            maxError = std::max(maxError, std::abs(values[i] - expected[i]));
        QVERIFY2(maxError < 2e-5f, qPrintable(QStringLiteral("max |exported - transformers| = %1").arg(double(maxError))));

        // The last head of the last layer as a PNG: each cell's colour is viridis of transformers' weight.
        const int layers = int(shape[0]), heads = int(shape[1]), n = int(shape[2]);
        const int layer = layers - 1, head = heads - 1;
        const QString pngPath = m_dir.filePath(name + QStringLiteral(".png"));
        run = runAttnscope({QStringLiteral("--model"), folder, QStringLiteral("--text"), text, QStringLiteral("--layer"),
                            QString::number(layer), QStringLiteral("--head"), QString::number(head), QStringLiteral("--size"),
                            QStringLiteral("1000x1000"), QStringLiteral("--out"), pngPath},
                           m_dir.path());
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QImage image(pngPath);
        QCOMPARE(image.size(), QSize(1000, 1000));
        // Same layout as the export: the labels are the token texts, which the test does not know, so the
        // layout comes from the JSON export of the same head (its token labels).
        const QString jsonPath = m_dir.filePath(name + QStringLiteral(".json"));
        run = runAttnscope({QStringLiteral("--model"), folder, QStringLiteral("--text"), text, QStringLiteral("--layer"),
                            QString::number(layer), QStringLiteral("--head"), QString::number(head), QStringLiteral("--out"), jsonPath},
                           m_dir.path());
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QFile jsonFile(jsonPath);
        QVERIFY(jsonFile.open(QIODevice::ReadOnly));
        const QJsonObject json = QJsonDocument::fromJson(jsonFile.readAll()).object();
        HeatmapData frame;
        frame.rows = frame.cols = n;
        frame.values.assign(size_t(n) * size_t(n), 0.0f);
        for (const QJsonValue& v : json.value(QStringLiteral("query_tokens")).toArray())
            frame.rowLabels << v.toString();
        frame.colLabels = frame.rowLabels;
        frame.causal = json.value(QStringLiteral("causal")).toBool();
        frame.title = QStringLiteral("t");
        QCOMPARE(int(frame.rowLabels.size()), n);
        HeatmapStyle style;
        style.showValues = n <= 12;
        const HeatmapGeometry geometry = HeatmapExporter(style, stampedLikeTheCli())
                                             .heatmapPageGeometry(image, QRectF(0, 0, 1000, 1000), frame);
        const float* p = expected.data() + (size_t(layer) * size_t(heads) + size_t(head)) * size_t(n) * size_t(n);
        int checked = 0;
        for (int q = 0; q < n; ++q) {
            for (int k = 0; k < n; ++k) {
                if (frame.isMasked(q, k))
                    continue;
                const QRectF cell = geometry.cellRect(q, k);
                const QPoint at = (cell.topLeft() + QPointF(cell.width() * 0.12, cell.height() * 0.12)).toPoint();
                const QRgb want = colorMapColor(ColorMapKind::Viridis, double(p[q * n + k]));
                QVERIFY2(colorClose(image.pixel(at), want, 2), qPrintable(QStringLiteral("cell (%1,%2): %3, expected %4")
                                                                             .arg(q).arg(k).arg(QColor(image.pixel(at)).name(), QColor(want).name())));
                ++checked;
            }
        }
        QVERIFY(checked >= n * (n + 1) / 2);
    }

    // No display and no command: the default heatmaps of the built-in models (here two oracle models posing
    // as built-ins through $ATTNSCOPE_RESOURCES_DIR) and of the worked example land in ./out/.
    void noDisplayWritesDefaultHeatmaps()
    {
        QTemporaryDir work;
        QVERIFY(QDir(work.path()).mkpath(QStringLiteral("resources/models")));
        QVERIFY(QFile::link(QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/bert_s0"), work.filePath(QStringLiteral("resources/models/tiny-bert"))));
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("DISPLAY"));
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        env.remove(QStringLiteral("QT_QPA_PLATFORM"));
        env.insert(QStringLiteral("ATTNSCOPE_RESOURCES_DIR"), work.filePath(QStringLiteral("resources")));
        process.setProcessEnvironment(env);
        process.setWorkingDirectory(work.path());
        process.start(QStringLiteral(ATTNSCOPE_BINARY), QStringList{});
        QVERIFY(process.waitForFinished(60000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        for (const char* name : {"tiny-bert-grid.png", "tiny-bert-L1-H0.png", "worked-example.png", "worked-example-causal.png"}) {
            const QImage image(work.filePath(QStringLiteral("out/") + QLatin1String(name)));
            QVERIFY2(!image.isNull(), name);
        }
    }

    void badArguments_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        const QStringList head{QStringLiteral("--layer"), QStringLiteral("0"), QStringLiteral("--head"), QStringLiteral("0")};
        const QStringList model{QStringLiteral("--model"), QStringLiteral("worked-example"), QStringLiteral("--text"), kText};
        const QString png = QStringLiteral("bad.png");
        QTest::newRow("unknown layer") << (model + QStringList{QStringLiteral("--layer"), QStringLiteral("3"), QStringLiteral("--head"), QStringLiteral("0"), QStringLiteral("--out"), png})
                                       << "layer 3 does not exist";
        QTest::newRow("unknown head") << (model + QStringList{QStringLiteral("--layer"), QStringLiteral("0"), QStringLiteral("--head"), QStringLiteral("7"), QStringLiteral("--out"), png})
                                      << "head 7 does not exist";
        QTest::newRow("negative head") << (model + QStringList{QStringLiteral("--layer"), QStringLiteral("0"), QStringLiteral("--head=-1"), QStringLiteral("--out"), png})
                                       << "head -1 does not exist";
        QTest::newRow("unknown format") << (model + head + QStringList{QStringLiteral("--out"), QStringLiteral("bad.bmp")}) << "unknown format";
        QTest::newRow("no suffix") << (model + head + QStringList{QStringLiteral("--out"), QStringLiteral("bad")}) << "unknown format";
        QTest::newRow("size 0") << (model + head + QStringList{QStringLiteral("--size"), QStringLiteral("0x0"), QStringLiteral("--out"), png}) << "out of range";
        QTest::newRow("size huge") << (model + head + QStringList{QStringLiteral("--size"), QStringLiteral("100000x100000"), QStringLiteral("--out"), png})
                                   << "1 to 16384 pixels";
        QTest::newRow("size garbage") << (model + head + QStringList{QStringLiteral("--size"), QStringLiteral("big"), QStringLiteral("--out"), png}) << "WIDTHxHEIGHT";
        QTest::newRow("unwritable") << (model + head + QStringList{QStringLiteral("--out"), QStringLiteral("/nonexistent-folder/x.png")})
                                    << "does not exist";
        QTest::newRow("unknown model") << QStringList{QStringLiteral("--model"), QStringLiteral("no-such-model"), QStringLiteral("--text"), kText,
                                                      QStringLiteral("--grid"), QStringLiteral("--out"), png}
                                       << "no-such-model: no such model";
        QTest::newRow("two modes") << (model + head + QStringList{QStringLiteral("--grid"), QStringLiteral("--out"), png}) << "exactly one of";
        QTest::newRow("no out") << (model + head) << "--out is required";
        QTest::newRow("bad colormap") << (model + head + QStringList{QStringLiteral("--colormap"), QStringLiteral("jet"), QStringLiteral("--out"), png})
                                      << "unknown colour map";
        QTest::newRow("bad scale") << (model + head + QStringList{QStringLiteral("--scale"), QStringLiteral("linear"), QStringLiteral("--out"), png})
                                   << "unknown --scale";
    }
    void badArguments()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const Run run = runAttnscope(arguments, dir.path());
        QVERIFY(run.exitCode != 0);
        QVERIFY2(run.err.contains(message), qPrintable(run.err));
        QCOMPARE(run.err.trimmed().count(QLatin1Char('\n')), 0); // one line
        QVERIFY(run.err.startsWith(QLatin1String("attnscope: ")));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 0); // nothing written
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestCliExport)
#include "tst_cli_export.moc"
