#include "export/heatmapexporter.h"

#include "io/npywriter.h"
#include "io/outputfile.h"
#include "render/headgridpainter.h"
#include "render/heatmappainter.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QStringList>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>

namespace attnscope {

namespace {

// Shortest decimal that reads back as the same float: 9 significant digits always suffice.
QByteArray floatText(float v)
{
    return QByteArray::number(double(v), 'g', 9);
}

QByteArray csvField(const QString& text)
{
    QByteArray utf8 = text.toUtf8();
    if (utf8.contains(',') || utf8.contains('"') || utf8.contains('\n') || utf8.contains('\r') ||
        utf8.startsWith(' ') || utf8.endsWith(' ')) {
        utf8.replace("\"", "\"\"");
        return '"' + utf8 + '"';
    }
    return utf8;
}

QJsonArray toJsonArray(const QStringList& list)
{
    QJsonArray array;
    for (const QString& s : list)
        array.append(s);
    return array;
}

QJsonArray matrixJson(const HeatmapData& data)
{
    QJsonArray rows;
    for (int r = 0; r < data.rows; ++r) {
        QJsonArray row;
        for (int c = 0; c < data.cols; ++c)
            row.append(double(data.value(r, c))); // float -> double is exact; JSON keeps the double exactly
        rows.append(row);
    }
    return rows;
}

QJsonArray specialJson(const std::vector<bool>& special, int count) // block-local flags
{
    QJsonArray array;
    for (int i = 0; i < count; ++i)
        array.append(size_t(i) < special.size() && special[size_t(i)]);
    return array;
}

constexpr double kMargin = 8.0;
constexpr int kDpi = 96;

} // namespace

HeatmapExporter::HeatmapExporter(const HeatmapStyle& style, ExportOptions options)
    : m_style(style), m_options(std::move(options))
{
}

QString HeatmapExporter::legendText() const
{
    QString scale;
    switch (m_style.scale) {
    case HeatmapScale::Absolute:
        scale = QCoreApplication::translate("attnscope", "absolute (0–1)");
        break;
    case HeatmapScale::RowMax:
        scale = QCoreApplication::translate("attnscope", "divided by each row's maximum");
        break;
    case HeatmapScale::Log:
        scale = QCoreApplication::translate("attnscope", "log₁₀, from 10⁻⁴ to 1");
        break;
    }
    QString text = QCoreApplication::translate("attnscope", "Colour map: %1 · scale: %2 · rows: queries, columns: keys").arg(colorMapName(m_style.colorMap), scale);
    if (m_options.metadata.discountSpecial)
        text += QCoreApplication::translate("attnscope", " · special tokens discounted (rows renormalised without them)");
    return text;
}

QFont HeatmapExporter::stampFont(const QFont& base) const
{
    QFont font = base;
    font.setPointSizeF(m_style.fontPointSize * 0.85); // smaller than the legend: a caption, not a title
    return font;
}

QString HeatmapExporter::stampText(const QFontMetricsF& metrics, double width, const QString& heads) const
{
    if (!hasStamp()) return {};
    const ExportMetadata& m = m_options.metadata;
    const QString separator = QStringLiteral(" · ");
    QStringList before, after;
    if (!m.model.isEmpty()) before << m.model;
    if (!m.measure.isEmpty()) after << m.measure;
    if (!heads.isEmpty())
        after << heads;
    else if (m.layer >= 0 && m.head >= 0)
        after << QCoreApplication::translate("attnscope", "layer %1, head %2").arg(m.layer).arg(m.head);
    else if (!m.heads.isEmpty())
        after << m.heads;
    if (m.discountSpecial) after << QCoreApplication::translate("attnscope", "special tokens discounted");
    QString quoted;
    if (!m.text.isEmpty() || !m.textB.isEmpty()) {
        quoted = QCoreApplication::translate("attnscope", "“%1”").arg(m.text);
        if (!m.textB.isEmpty()) quoted += QCoreApplication::translate("attnscope", " + “%1”").arg(m.textB);
    }
    // The text gives way first (a long paragraph), down to a quarter of the line; then the whole line.
    const QString fixed = (before + after).join(separator);
    if (!quoted.isEmpty()) {
        const double room = width - metrics.horizontalAdvance(fixed + separator);
        before << metrics.elidedText(quoted, Qt::ElideRight, std::max(room, width * 0.25));
    }
    return metrics.elidedText((before + after).join(separator), Qt::ElideRight, width);
}

QRectF HeatmapExporter::contentRect(const QPaintDevice& device, const QRectF& page) const
{
    if (!hasStamp()) return page;
    const QFontMetricsF metrics(stampFont(QFont()), &device);
    return page.adjusted(0, 0, 0, -(metrics.height() * 1.4 + kMargin));
}

void HeatmapExporter::paintStamp(QPainter& painter, const QRectF& page, const QString& heads) const
{
    if (!hasStamp()) return;
    painter.save();
    const QFont font = stampFont(painter.font());
    painter.setFont(font);
    const QFontMetricsF metrics(font, painter.device());
    const double height = metrics.height() * 1.4;
    const QRectF line(page.left() + kMargin, page.bottom() - kMargin - height, page.width() - 2 * kMargin,
                      height);
    painter.setPen(QColor(100, 100, 100));
    painter.drawText(line, Qt::AlignLeft | Qt::AlignVCenter, stampText(metrics, line.width(), heads));
    painter.restore();
}

HeatmapGeometry HeatmapExporter::heatmapPageGeometry(const QPaintDevice& device, const QRectF& fullPage,
                                                     const HeatmapData& data) const
{
    const QRectF page = contentRect(device, fullPage);
    QFont font;
    font.setPointSizeF(m_style.fontPointSize);
    const QFontMetricsF metrics(font, &device);
    const double legendHeight = metrics.height() * 1.5;
    const QRectF inner = page.adjusted(kMargin, kMargin, -kMargin, -kMargin - legendHeight);
    HeatmapGeometry geometry = HeatmapPainter(data, m_style).layout(inner, QFont(), &device);
    const QRect region = m_options.region.intersected(QRect(0, 0, data.cols, data.rows));
    if (!region.isEmpty() && region != QRect(0, 0, data.cols, data.rows)) {
        // The region fills the plot with square cells, as the fitted view does for the whole matrix.
        const double cell = std::min(geometry.area().width() / region.width(), geometry.area().height() / region.height());
        geometry.setView(QPointF(region.x(), region.y()), cell, cell);
    }
    return geometry;
}

void HeatmapExporter::paintPage(QPainter& painter, const QRectF& fullPage, const QString& heads,
                                const std::function<void(const QRectF& plot)>& paintPlot) const
{
    paintStamp(painter, fullPage, heads);
    const QRectF page = contentRect(*painter.device(), fullPage);
    QFont font = painter.font();
    font.setPointSizeF(m_style.fontPointSize);
    const QFontMetricsF metrics(font, painter.device());
    const double legendHeight = metrics.height() * 1.5;
    const QRectF inner = page.adjusted(kMargin, kMargin, -kMargin, -kMargin - legendHeight);
    paintPlot(inner);
    painter.setFont(font);
    painter.setPen(QColor(60, 60, 60));
    painter.drawText(QRectF(inner.left(), inner.bottom(), inner.width(), legendHeight),
                     Qt::AlignLeft | Qt::AlignVCenter,
                     metrics.elidedText(legendText(), Qt::ElideRight, inner.width()));
}

void HeatmapExporter::paintHeatmapPage(QPainter& painter, const QRectF& fullPage, const HeatmapData& data,
                                       const HeatmapData* cells) const
{
    paintPage(painter, fullPage, QString(), [&](const QRectF& plot) {
        const HeatmapGeometry geometry = heatmapPageGeometry(*painter.device(), fullPage, data);
        HeatmapPainter(data, m_style).paint(painter, plot, &geometry, cells);
    });
}

void HeatmapExporter::paintGridPage(QPainter& painter, const QRectF& fullPage, const HeadGridData& grid) const
{
    paintPage(
        painter, fullPage, QCoreApplication::translate("attnscope", "all heads"), [&](const QRectF& plot) {
            HeadGridPainter gridPainter(grid, m_style);
            gridPainter.setKeepNumbersReadable(true); // exportGrid grows the page to minimumGridPageSize
            gridPainter.paint(painter, plot);
        });
}

QSize HeatmapExporter::minimumGridPageSize(const HeadGridData& grid) const
{
    // Measured on a 96-dpi image: every image format is painted at kDpi in logical pixels.
    QImage device(1, 1, QImage::Format_ARGB32_Premultiplied);
    device.setDotsPerMeterX(int(std::lround(kDpi / 0.0254)));
    device.setDotsPerMeterY(int(std::lround(kDpi / 0.0254)));
    QFont font;
    font.setPointSizeF(m_style.fontPointSize);
    const QFontMetricsF metrics(font, &device);
    HeadGridPainter gridPainter(grid, m_style);
    gridPainter.setKeepNumbersReadable(true);
    const QSizeF inner = gridPainter.minimumTargetSize(metrics, &device);
    const QRectF probe(0, 0, 1000, 1000); // the stamp's strip, whatever the page
    const double stamp = probe.height() - contentRect(device, probe).height();
    return QSize(int(std::ceil(inner.width() + 2 * kMargin)),
                 int(std::ceil(inner.height() + 2 * kMargin + metrics.height() * 1.5 + stamp)));
}

QString HeatmapExporter::sizeError(QSize size, double scaleFactor)
{
    if (!(scaleFactor > 0) || scaleFactor > 16)
        return QCoreApplication::translate("attnscope", "the scale factor must be above 0 and at most 16");
    if (size.width() < 1 || size.height() < 1)
        return QCoreApplication::translate("attnscope", "the size %1×%2 is empty: give a width and a height of at least 1 pixel").arg(size.width()).arg(size.height());
    const double w = std::ceil(size.width() * scaleFactor), h = std::ceil(size.height() * scaleFactor);
    if (w > kMaxExportSide || h > kMaxExportSide)
        return QCoreApplication::translate("attnscope", "the size %1×%2 is too large: at most %3 pixels per side").arg(qint64(w)).arg(qint64(h)).arg(kMaxExportSide);
    return {};
}

ExportResult HeatmapExporter::writeAtomically(const QString& path, const QByteArray& bytes, bool overwrite)
{
    ExportResult result;
    OutputRefusal refusal = OutputRefusal::None;
    result.ok = writeOutputFile(path, bytes, overwrite, &result.error, &refusal);
    result.refusedExisting = refusal == OutputRefusal::Exists;
    return result;
}

// An image's page at `size` (at the scale factor, for PNG): an error naming `path` when it cannot be drawn.
ExportResult HeatmapExporter::checkPage(QSize size, ExportFormat format, const QString& path) const
{
    const QString e = sizeError(size, format == ExportFormat::Png ? m_options.scaleFactor : 1.0);
    if (!e.isEmpty())
        return {false, false, path + QStringLiteral(": ") + e};
    return {true, false, QString()};
}

ExportResult HeatmapExporter::unknownFormat(const QString& path)
{
    return {false, false, QCoreApplication::translate("attnscope", "%1: unknown format; use one of .%2").arg(path, exportFormatSuffixes().join(QStringLiteral(", .")))};
}

ExportResult HeatmapExporter::checkTarget(const QString& path) const
{
    const OutputCheck check = checkOutputPath(path, m_options.overwrite);
    return {check.refusal == OutputRefusal::None, check.refusal == OutputRefusal::Exists, check.error};
}

qint64 HeatmapExporter::estimatedBytes(ExportFormat format, qint64 values, qint64 labelBytes, bool grid)
{
    // Upper bounds per weight: CSV "1.23456791e-05" and a separator (the grid's long format adds layer, head,
    // query and key on every line); JSON through QJsonDocument, up to 17 digits (a head's file indented, one
    // value per line); npy 4 bytes. Labels may double when quoted or escaped.
    switch (format) {
    case ExportFormat::Csv:
        return 4096 + 2 * labelBytes + values * (grid ? 56 : 16);
    case ExportFormat::Json:
        return 4096 + 2 * labelBytes + values * (grid ? 26 : 48);
    case ExportFormat::Npy:
        return 128 + 4 * values;
    default:
        return 0; // images: bounded by kMaxExportSide, not by the matrix
    }
}

ExportResult HeatmapExporter::exportImage(ExportFormat format, const QString& path, const QString& title,
                                          const QString& description, const PagePainter& paint,
                                          QSize pageSize) const
{
    const QSize size = pageSize.isValid() ? pageSize : m_options.size;
    const QRectF page(0, 0, size.width(), size.height());
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    switch (format) {
    case ExportFormat::Png: {
        const QSize pixels(int(std::ceil(size.width() * m_options.scaleFactor)), int(std::ceil(size.height() * m_options.scaleFactor)));
        QImage image(pixels, QImage::Format_ARGB32_Premultiplied);
        if (image.isNull())
            return {false, false, QCoreApplication::translate("attnscope", "%1: not enough memory for a %2×%3 image").arg(path).arg(pixels.width()).arg(pixels.height())};
        image.setDevicePixelRatio(m_options.scaleFactor);
        // Painted at 96 dpi in logical pixels, as SVG and PDF are: the same fonts, the same labels, the
        // device pixel ratio makes it sharper. (At scaleFactor × 96 dpi every font would be scaleFactor
        // times larger and labels would be dropped for room.) The file then says its real resolution.
        image.setDotsPerMeterX(int(std::lround(kDpi / 0.0254)));
        image.setDotsPerMeterY(int(std::lround(kDpi / 0.0254)));
        image.fill(Qt::white);
        {
            QPainter painter(&image);
            painter.setRenderHint(QPainter::TextAntialiasing);
            paint(painter, page);
        }
        image.setDotsPerMeterX(int(std::lround(kDpi / 0.0254 * m_options.scaleFactor)));
        image.setDotsPerMeterY(int(std::lround(kDpi / 0.0254 * m_options.scaleFactor)));
        if (!image.save(&buffer, "PNG"))
            return {false, false, QCoreApplication::translate("attnscope", "%1: cannot encode the PNG").arg(path)};
        break;
    }
    case ExportFormat::Svg: {
        QSvgGenerator generator;
        generator.setOutputDevice(&buffer);
        generator.setResolution(kDpi);
        generator.setSize(size);
        generator.setViewBox(page);
        generator.setTitle(title);
        generator.setDescription(description);
        QPainter painter(&generator);
        painter.fillRect(page, Qt::white);
        paint(painter, page);
        break;
    }
    case ExportFormat::Pdf: {
        QPdfWriter writer(&buffer);
        writer.setResolution(kDpi);
        writer.setTitle(title);
        writer.setCreator(QStringLiteral("AttnScope"));
        writer.setPageLayout(QPageLayout(QPageSize(QSizeF(size.width() * 72.0 / kDpi, size.height() * 72.0 / kDpi), QPageSize::Point),
                                         QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
        QPainter painter(&writer);
        paint(painter, page);
        break;
    }
    default:
        return {false, false, QCoreApplication::translate("attnscope", "%1: not an image format").arg(path)};
    }
    buffer.close();
    return writeAtomically(path, bytes, m_options.overwrite);
}

ExportResult HeatmapExporter::exportView(const QString& path, const QString& title, const QString& description,
                                         const PagePainter& paint) const
{
    const auto format = exportFormatFromPath(path);
    if (!format || !isImageFormat(*format))
        return {false, false, QCoreApplication::translate("attnscope", "%1: not an image format; use .png, .svg or .pdf").arg(path)};
    if (const ExportResult target = checkTarget(path); !target.ok) return target;
    if (const ExportResult page = checkPage(m_options.size, *format, path); !page.ok) return page;
    return exportImage(*format, path, title, description, [&](QPainter& painter, const QRectF& page) {
        paintStamp(painter, page);
        paint(painter, contentRect(*painter.device(), page)); // the view above the stamp
    });
}

ExportResult HeatmapExporter::checkOutput(const QString& path, std::optional<ExportFormat>* format) const
{
    *format = exportFormatFromPath(path);
    if (!*format) return unknownFormat(path);
    if (const ExportResult target = checkTarget(path); !target.ok) return target;
    if (isImageFormat(**format)) return checkPage(m_options.size, **format, path);
    return {true, false, QString()};
}

ExportResult HeatmapExporter::exportHeatmap(const HeatmapData& data, const QString& path, const HeatmapData* cells) const
{
    std::optional<ExportFormat> format;
    if (const ExportResult refused = checkOutput(path, &format); !refused.ok) return refused;
    if (isImageFormat(*format)) {
        return exportImage(*format, path, data.title, legendText(),
                           [&](QPainter& painter, const QRectF& page) { paintHeatmapPage(painter, page, data, cells); });
    }
    QString error;
    const HeatmapData block = regionValues(data, cells, &error);
    if (!error.isEmpty())
        return {false, false, path + QStringLiteral(": ") + error};
    const qint64 labelBytes =
        3 * (block.rowLabels.join(QString()).size() + block.colLabels.join(QString()).size());
    const QString tooLarge =
        outputSizeProblem(estimatedBytes(*format, qint64(block.rows) * block.cols, labelBytes, false),
                          m_options.maxOutputBytes);
    if (!tooLarge.isEmpty()) return {false, false, path + QStringLiteral(": ") + tooLarge};
    const QByteArray bytes = *format == ExportFormat::Csv ? heatmapCsv(block)
                           : *format == ExportFormat::Json ? heatmapJson(block)
                                                           : heatmapNpy(block);
    return writeAtomically(path, bytes, m_options.overwrite);
}

HeatmapData HeatmapExporter::regionValues(const HeatmapData& data, const HeatmapData* cells, QString* error) const
{
    QRect region = m_options.region.intersected(QRect(0, 0, data.cols, data.rows));
    if (region.isEmpty())
        region = QRect(0, 0, data.cols, data.rows);
    const int r0 = region.y(), c0 = region.x(), rows = region.height(), cols = region.width();
    // Where the values are: the data itself (dense), or the block the view shows (exact rows of a long input).
    const HeatmapData* source = nullptr;
    int sourceRow0 = 0, sourceCol0 = 0;
    if (data.values.size() == size_t(data.rows) * size_t(data.cols) && data.rowStarts.empty() && data.colStarts.empty()) {
        source = &data;
    } else if (cells && cells->rowStarts.empty() && cells->colStarts.empty() && cells->firstRow <= r0 && cells->firstCol <= c0 &&
               cells->firstRow + cells->rows >= r0 + rows && cells->firstCol + cells->cols >= c0 + cols) {
        source = cells;
        sourceRow0 = cells->firstRow;
        sourceCol0 = cells->firstCol;
    }
    if (!source) {
        *error = QCoreApplication::translate("attnscope", "this view shows a pooled overview, not the weights themselves; "
                                                          "zoom in until exact values are shown, or use attnscope export");
        return {};
    }
    HeatmapData block;
    block.rows = rows;
    block.cols = cols;
    block.values.reserve(size_t(rows) * size_t(cols));
    for (int r = r0; r < r0 + rows; ++r)
        for (int c = c0; c < c0 + cols; ++c)
            block.values.push_back(source->value(r - sourceRow0, c - sourceCol0));
    block.rowLabels = data.rowLabels.mid(r0, rows);
    block.colLabels = data.colLabels.mid(c0, cols);
    for (int r = r0; r < r0 + rows; ++r)
        block.specialRows.push_back(size_t(r) < data.specialRows.size() && data.specialRows[size_t(r)]);
    for (int c = c0; c < c0 + cols; ++c)
        block.specialCols.push_back(size_t(c) < data.specialCols.size() && data.specialCols[size_t(c)]);
    block.causal = data.causal;
    block.discounted = data.discounted;
    block.firstRow = r0; // positions in the whole matrix, written to JSON
    block.firstCol = c0;
    block.title = data.title;
    return block;
}

ExportResult HeatmapExporter::exportGrid(const HeadGridData& grid, const QString& path) const
{
    std::optional<ExportFormat> format;
    if (const ExportResult refused = checkOutput(path, &format); !refused.ok) return refused;
    if (isImageFormat(*format)) {
        // A page too small for thumbnails that carry every head's number grows to the size they need.
        const QSize size = m_options.size.expandedTo(minimumGridPageSize(grid));
        if (const ExportResult page = checkPage(size, *format, path); !page.ok) return page;
        ExportResult written = exportImage(
            *format, path, grid.title, legendText(),
            [&](QPainter& painter, const QRectF& page) { paintGridPage(painter, page, grid); }, size);
        if (written.ok && size != m_options.size)
            written.notice =
                QCoreApplication::translate("attnscope",
                                            "%1: the page was enlarged from %2×%3 to %4×%5 px so that every "
                                            "head's number fits on its thumbnail (%6 layers × %7 heads)")
                    .arg(path)
                    .arg(m_options.size.width())
                    .arg(m_options.size.height())
                    .arg(size.width())
                    .arg(size.height())
                    .arg(grid.layers)
                    .arg(grid.heads);
        return written;
    }
    for (const HeatmapData& head : grid.thumbnails)
        if (!head.rowStarts.empty() || !head.colStarts.empty())
            return {false, false, QCoreApplication::translate("attnscope", "%1: the grid holds pooled thumbnails, not every weight").arg(path)};
    if (const QString tooLarge =
            outputSizeProblem(estimatedGridBytes(grid, *format), m_options.maxOutputBytes);
        !tooLarge.isEmpty())
        return {false, false, path + QStringLiteral(": ") + tooLarge};
    const QByteArray bytes = *format == ExportFormat::Csv ? gridCsv(grid)
                           : *format == ExportFormat::Json ? gridJson(grid)
                                                           : gridNpy(grid);
    return writeAtomically(path, bytes, m_options.overwrite);
}

qint64 HeatmapExporter::estimatedGridBytes(const HeadGridData& grid, ExportFormat format)
{
    qint64 values = 0, labelBytes = 0;
    for (const HeatmapData& head : grid.thumbnails) {
        const qint64 rowLabels = 3 * head.rowLabels.join(QString()).size(); // UTF-8: at most 3 bytes per unit
        const qint64 colLabels = 3 * head.colLabels.join(QString()).size();
        values += qint64(head.rows) * head.cols;
        // The long CSV names both tokens on every line; JSON names them once.
        labelBytes += format == ExportFormat::Csv ? rowLabels * head.cols + colLabels * head.rows
                                                  : rowLabels + colLabels;
    }
    return estimatedBytes(format, values, labelBytes, true);
}

// CSV: a header of key tokens, then one line per query: its token, then its weights.
QByteArray HeatmapExporter::heatmapCsv(const HeatmapData& data) const
{
    QByteArray out = "query\\key";
    for (int c = 0; c < data.cols; ++c)
        out += ',' + csvField(c < data.colLabels.size() ? data.colLabels.at(c) : QString::number(data.firstCol + c));
    out += '\n';
    for (int r = 0; r < data.rows; ++r) {
        out += csvField(r < data.rowLabels.size() ? data.rowLabels.at(r) : QString::number(data.firstRow + r));
        for (int c = 0; c < data.cols; ++c)
            out += ',' + floatText(data.value(r, c));
        out += '\n';
    }
    return out;
}

// What every JSON export says of its run (QJsonObject keeps its keys sorted: the order here is free).
QJsonObject HeatmapExporter::metadataJson() const
{
    const ExportMetadata& m = m_options.metadata;
    QJsonObject object;
    object.insert(QStringLiteral("model"), m.model);
    object.insert(QStringLiteral("text"), m.text);
    if (!m.textB.isEmpty())
        object.insert(QStringLiteral("text_b"), m.textB);
    object.insert(QStringLiteral("discount_special"), m.discountSpecial);
    return object;
}

QByteArray HeatmapExporter::heatmapJson(const HeatmapData& data) const
{
    QJsonObject object = metadataJson();
    object.insert(QStringLiteral("layer"), m_options.metadata.layer);
    object.insert(QStringLiteral("head"), m_options.metadata.head);
    object.insert(QStringLiteral("causal"), data.causal);
    object.insert(QStringLiteral("first_query"), data.firstRow);
    object.insert(QStringLiteral("first_key"), data.firstCol);
    object.insert(QStringLiteral("query_tokens"), toJsonArray(data.rowLabels));
    object.insert(QStringLiteral("key_tokens"), toJsonArray(data.colLabels));
    object.insert(QStringLiteral("special_queries"), specialJson(data.specialRows, data.rows));
    object.insert(QStringLiteral("special_keys"), specialJson(data.specialCols, data.cols));
    object.insert(QStringLiteral("attention"), matrixJson(data));
    return QJsonDocument(object).toJson(QJsonDocument::Indented);
}

QByteArray HeatmapExporter::heatmapNpy(const HeatmapData& data) const
{
    return npyFloat32(data.values, {data.rows, data.cols});
}

// Long format, one line per cell of every head: easy to load into a data frame.
QByteArray HeatmapExporter::gridCsv(const HeadGridData& grid) const
{
    QByteArray out = "layer,head,query,key,query_token,key_token,weight\n";
    for (int l = 0; l < grid.layers; ++l) {
        for (int h = 0; h < grid.heads; ++h) {
            const HeatmapData& d = grid.at(l, h);
            for (int r = 0; r < d.rows; ++r)
                for (int c = 0; c < d.cols; ++c)
                    out += QByteArray::number(l) + ',' + QByteArray::number(h) + ',' + QByteArray::number(d.firstRow + r) + ',' +
                           QByteArray::number(d.firstCol + c) + ',' + csvField(d.rowLabels.value(r)) + ',' +
                           csvField(d.colLabels.value(c)) + ',' + floatText(d.value(r, c)) + '\n';
        }
    }
    return out;
}

QByteArray HeatmapExporter::gridJson(const HeadGridData& grid) const
{
    QJsonObject object = metadataJson();
    object.insert(QStringLiteral("layers"), grid.layers);
    object.insert(QStringLiteral("heads"), grid.heads);
    if (!grid.thumbnails.empty()) {
        object.insert(QStringLiteral("causal"), grid.thumbnails.front().causal);
        object.insert(QStringLiteral("query_tokens"), toJsonArray(grid.thumbnails.front().rowLabels));
        object.insert(QStringLiteral("key_tokens"), toJsonArray(grid.thumbnails.front().colLabels));
    }
    QJsonArray layers;
    for (int l = 0; l < grid.layers; ++l) {
        QJsonArray heads;
        for (int h = 0; h < grid.heads; ++h)
            heads.append(matrixJson(grid.at(l, h)));
        layers.append(heads);
    }
    object.insert(QStringLiteral("attention"), layers); // [layer][head][query][key]
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QByteArray HeatmapExporter::gridNpy(const HeadGridData& grid) const
{
    if (grid.thumbnails.empty())
        return npyFloat32({}, {grid.layers, grid.heads, 0, 0});
    const int rows = grid.thumbnails.front().rows, cols = grid.thumbnails.front().cols;
    std::vector<float> values;
    values.reserve(grid.thumbnails.size() * size_t(rows) * size_t(cols));
    for (const HeatmapData& d : grid.thumbnails)
        values.insert(values.end(), d.values.begin(), d.values.end());
    return npyFloat32(values, {grid.layers, grid.heads, rows, cols});
}

} // namespace attnscope
