// attnscope export: heatmaps, the head grid or every head of a model on a text, as images or numbers,
// with no display needed.

#include "analysiscommandline.h"
#include "attentionsourceloader.h"
#include "command.h"
#include "export/batchexporter.h"
#include "export/heatmapexporter.h"
#include "io/outputfile.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace attnscope {

namespace {

std::optional<QSize> parseSize(const QString& text, QString* error)
{
    static const QRegularExpression pattern(QStringLiteral("^(\\d{1,9})[x×](\\d{1,9})$"));
    const auto match = pattern.match(text.trimmed());
    if (!match.hasMatch()) {
        *error = QStringLiteral("--size '%1' is not WIDTHxHEIGHT (for example 1200x900)").arg(text);
        return std::nullopt;
    }
    const qint64 w = match.captured(1).toLongLong(), h = match.captured(2).toLongLong();
    if (w < 1 || h < 1 || w > kMaxExportSide || h > kMaxExportSide) {
        *error = QStringLiteral("--size %1x%2 is out of range: each side must be 1 to %3 pixels").arg(w).arg(h).arg(kMaxExportSide);
        return std::nullopt;
    }
    return QSize(int(w), int(h));
}

std::optional<int> parseIndex(const QString& text, const QString& what, int count, QString* error)
{
    bool ok = false;
    const int value = text.toInt(&ok);
    if (!ok) {
        *error = QStringLiteral("--%1 '%2' is not a number").arg(what, text);
        return std::nullopt;
    }
    if (value < 0 || value >= count) {
        *error = QStringLiteral("%1 %2 does not exist: the model has %3 %1s (0 to %4)").arg(what).arg(value).arg(count).arg(count - 1);
        return std::nullopt;
    }
    return value;
}

int runExport(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Exports attention of a model on a text, with no display needed.\n"
        "One head (--layer L --head H), the layer × head grid (--grid), or every head plus the grid into a folder\n"
        "(--all-heads DIR: files named <stem of --out>-L<l>-H<h>.<ext> and <stem>-grid.<ext>).\n"
        "The format follows the suffix of --out: png, svg, pdf (images, as the window draws them), csv, json, npy\n"
        "(the attention weights, float32). Existing files are never overwritten without --force.\n"
        "Images carry a small line at their foot naming the model, the text, the measure and the head\n"
        "(--no-stamp: the picture alone)."));
    parser.addHelpOption();
    const QCommandLineOption modelOption(QStringLiteral("model"), QStringLiteral("Model: a built-in name, a folder, or worked-example."), QStringLiteral("M"));
    const QCommandLineOption textOption(QStringLiteral("text"), QStringLiteral("The text (sentence A)."), QStringLiteral("T"));
    const QCommandLineOption textBOption(QStringLiteral("text-b"), QStringLiteral("Sentence B (encoders)."), QStringLiteral("T2"));
    const QCommandLineOption layerOption(QStringLiteral("layer"), QStringLiteral("Layer, from 0."), QStringLiteral("L"));
    const QCommandLineOption headOption(QStringLiteral("head"), QStringLiteral("Head, from 0."), QStringLiteral("H"));
    const QCommandLineOption gridOption(QStringLiteral("grid"), QStringLiteral("The grid of all heads."));
    const QCommandLineOption allHeadsOption(QStringLiteral("all-heads"), QStringLiteral("One file per head plus the grid, in DIR."), QStringLiteral("DIR"));
    const QCommandLineOption colorMapOption(QStringLiteral("colormap"), QStringLiteral("viridis (default), magma, cividis or greys."), QStringLiteral("NAME"), QStringLiteral("viridis"));
    const QCommandLineOption scaleOption(QStringLiteral("scale"), QStringLiteral("abs (0-1, default), row (each row's max) or log."), QStringLiteral("S"), QStringLiteral("abs"));
    const QCommandLineOption sizeOption(QStringLiteral("size"), QStringLiteral("Image size in pixels, at most %1 per side (default 900x800).").arg(kMaxExportSide), QStringLiteral("WxH"), QStringLiteral("900x800"));
    const QCommandLineOption discountOption(QStringLiteral("discount-special"), QStringLiteral("Renormalise rows without special tokens ([CLS], [SEP], BOS)."));
    const QCommandLineOption forceOption(QStringLiteral("force"), QStringLiteral("Overwrite existing files."));
    const QCommandLineOption noStampOption(
        QStringLiteral("no-stamp"),
        QStringLiteral("Images without the stamp line at their foot (model, text, measure, head)."));
    const QCommandLineOption outOption(QStringLiteral("out"), QStringLiteral("Output file: .png, .svg, .pdf, .csv, .json or .npy."), QStringLiteral("FILE"));
    parser.addOptions({modelOption, textOption, textBOption, layerOption, headOption, gridOption,
                       allHeadsOption, colorMapOption, scaleOption, sizeOption, discountOption, forceOption,
                       noStampOption, outOption, maxOutputSizeOption()});
    if (const std::optional<int> done = parseCommandLine(parser, arguments, QStringLiteral("export")))
        return *done;
    if (parser.isSet(allHeadsOption) && !parser.isSet(outOption)) {
        // --all-heads DIR takes the folder; the names and the format of the files come from --out.
        printError(QStringLiteral("export: --all-heads %1 writes NAME-L<l>-H<h>.EXT and NAME-grid.EXT into %1: give "
                                  "NAME.EXT with --out (for example --out attention.png; .png, .svg, .pdf, .csv, "
                                  ".json or .npy)")
                       .arg(parser.value(allHeadsOption)));
        return 2;
    }
    for (const auto* required : {&modelOption, &textOption, &outOption}) {
        if (!parser.isSet(*required)) {
            printError(QStringLiteral("export: --%1 is required (see attnscope export --help)").arg(required->names().constFirst()));
            return 2;
        }
    }
    if (const QString empty = emptyTextProblem(parser); !empty.isEmpty()) {
        printError(QStringLiteral("export: ") + empty);
        return 2;
    }
    const bool single = parser.isSet(layerOption) || parser.isSet(headOption);
    const int modes = int(single) + int(parser.isSet(gridOption)) + int(parser.isSet(allHeadsOption));
    if (modes != 1) {
        printError(QStringLiteral("export: give exactly one of --layer L --head H, --grid or --all-heads DIR"));
        return 2;
    }
    if (single && !(parser.isSet(layerOption) && parser.isSet(headOption))) {
        printError(QStringLiteral("export: --layer and --head go together"));
        return 2;
    }

    const QString out = parser.value(outOption);
    if (const QString problem = outOptionProblem(out, false); !problem.isEmpty()) {
        printError(QStringLiteral("export: ") + problem);
        return 2;
    }
    const auto format = exportFormatFromPath(out);
    if (!format) {
        printError(QStringLiteral("%1: unknown format '%2'; use .png, .svg, .pdf, .csv, .json or .npy")
                       .arg(out, QFileInfo(out).suffix()));
        return 2;
    }
    HeatmapStyle style;
    const auto colorMap = colorMapFromName(parser.value(colorMapOption));
    if (!colorMap) {
        printError(QStringLiteral("export: unknown colour map '%1'; use %2").arg(parser.value(colorMapOption), colorMapNames().join(QStringLiteral(", "))));
        return 2;
    }
    style.colorMap = *colorMap;
    const QString scale = parser.value(scaleOption);
    if (scale == QLatin1String("abs"))
        style.scale = HeatmapScale::Absolute;
    else if (scale == QLatin1String("row"))
        style.scale = HeatmapScale::RowMax;
    else if (scale == QLatin1String("log"))
        style.scale = HeatmapScale::Log;
    else {
        printError(QStringLiteral("export: unknown --scale '%1'; use abs, row or log").arg(scale));
        return 2;
    }
    QString error;
    const auto size = parseSize(parser.value(sizeOption), &error);
    const std::optional<qint64> maxBytes = size ? maxOutputSize(parser, &error) : std::nullopt;
    if (!size || !maxBytes) {
        printError(QStringLiteral("export: ") + error);
        return 2;
    }
    if (!parser.isSet(allHeadsOption)) {
        // Refused before the model runs: a device, a FIFO, a folder, or an existing file without --force.
        if (outputPathRefused(out, parser.isSet(forceOption))) return 1;
    }

    auto source = loadAttentionSource(parser.value(modelOption), parser.value(textOption), parser.value(textBOption), &error);
    if (!source) {
        printError(QStringLiteral("export: ") + error);
        return 1;
    }
    source->discountSpecial = parser.isSet(discountOption);
    // Small matrices read best with their numbers in the cells, as the window shows them.
    style.showValues = source->maps->queries() <= 12 && source->maps->keys() <= 12;

    ExportOptions options;
    options.size = *size;
    options.overwrite = parser.isSet(forceOption);
    options.maxOutputBytes = *maxBytes;
    options.metadata = source->metadata();
    if (options.metadata.measure.isEmpty()) options.metadata.measure = QStringLiteral("attention weight α");
    options.stamp = !parser.isSet(noStampOption);

    if (parser.isSet(allHeadsOption)) {
        const QString directory = parser.value(allHeadsOption);
        BatchExporter batch(*source, style, options);
        const BatchExporter::Status status = batch.run(directory, QFileInfo(out).completeBaseName(), *format);
        for (const QString& file : batch.written())
            printOut(file + QLatin1Char('\n'));
        if (status != BatchExporter::Status::Done) {
            printError(batch.error() +
                       (batch.refusedExisting() ? QStringLiteral(" (use --force to overwrite)") : QString()));
            return 1;
        }
        return 0;
    }

    // Numbers hold every weight: their size is estimated before the matrices are even gathered.
    const qint64 n = source->maps->queries();
    const qint64 labelBytes = 2 * 3 * source->tokens.join(QString()).size();
    const qint64 heads = single ? 1 : qint64(source->maps->layers()) * source->maps->heads();
    if (const QString tooLarge = outputSizeProblem(
            HeatmapExporter::estimatedBytes(*format, heads * n * n,
                                            single ? labelBytes : heads * n * labelBytes, !single),
            *maxBytes);
        !tooLarge.isEmpty()) {
        printError(QStringLiteral("export: %1: %2").arg(out, tooLarge));
        return 1;
    }

    ExportResult result;
    if (single) {
        const auto layer = parseIndex(parser.value(layerOption), QStringLiteral("layer"), source->maps->layers(), &error);
        const auto head = layer ? parseIndex(parser.value(headOption), QStringLiteral("head"), source->maps->heads(), &error) : std::nullopt;
        if (!layer || !head) {
            printError(QStringLiteral("export: ") + error);
            return 2;
        }
        options.metadata.layer = *layer;
        options.metadata.head = *head;
        result = HeatmapExporter(style, options).exportHeatmap(source->heatmap(*layer, *head), out);
    } else {
        // Images get thumbnails (pooled for long inputs), numbers every value.
        result = HeatmapExporter(style, options).exportGrid(source->grid(isImageFormat(*format) ? AttentionExportSource::kThumbnailCells : 0), out);
    }
    if (!result.ok) {
        printError(result.error + (result.refusedExisting ? QStringLiteral(" (use --force to overwrite)") : QString()));
        return 1;
    }
    if (!result.notice.isEmpty())
        printError(QStringLiteral("export: ") + result.notice); // written, but not quite as asked
    printOut(out + QLatin1Char('\n'));
    return 0;
}

const CommandRegistration registration(Command{QStringLiteral("export"),
                                               QStringLiteral("write heatmaps, the head grid or all heads as PNG/SVG/PDF/CSV/JSON/NPY"),
                                               true, &runExport});

} // namespace

} // namespace attnscope
