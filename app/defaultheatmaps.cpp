#include "defaultheatmaps.h"

#include "attentionsourceloader.h"
#include "export/heatmapexporter.h"
#include "model/modelcatalog.h"
#include "render/examples.h"

#include <QDir>

namespace attnscope {

namespace {

// The built-in models on a classroom sentence: the grid of all heads and the last layer's first head.
bool writeBuiltinModel(const ModelInfo& model, QDir& dir, QStringList& written, QString* error)
{
    const QString text = model.kind == QLatin1String("decoder") ? QStringLiteral("Kupa bavula sığmadı çünkü çok büyüktü.")
                                                               : QStringLiteral("The trophy didn't fit into the suitcase because it was too big.");
    auto source = loadAttentionSource(model.path, text, QString(), error);
    if (!source)
        return false;
    source->model = model.name;
    HeatmapStyle style;
    style.showValues = source->maps->queries() <= 12;
    ExportOptions options;
    options.size = QSize(1200, 1000);
    options.overwrite = true; // ./out/ is the tool's own output folder, rewritten on every run
    options.metadata.model = source->model;
    options.metadata.text = text;
    const QString stem = QFileInfo(QDir::cleanPath(model.name)).fileName();
    const QString gridPath = dir.absoluteFilePath(stem + QStringLiteral("-grid.png"));
    ExportResult result = HeatmapExporter(style, options).exportGrid(source->grid(AttentionExportSource::kThumbnailCells), gridPath);
    if (!result.ok) {
        *error = result.error;
        return false;
    }
    written << gridPath;
    const int layer = source->maps->layers() - 1;
    options.metadata.layer = layer;
    options.metadata.head = 0;
    const QString headPath = dir.absoluteFilePath(QStringLiteral("%1-L%2-H0.png").arg(stem).arg(layer));
    result = HeatmapExporter(style, options).exportHeatmap(source->heatmap(layer, 0), headPath);
    if (!result.ok) {
        *error = result.error;
        return false;
    }
    written << headPath;
    return true;
}

} // namespace

QStringList writeDefaultHeatmaps(const QString& directory, QString* error)
{
    QDir dir(directory);
    if (!dir.mkpath(QStringLiteral("."))) {
        *error = QStringLiteral("%1: cannot create the directory").arg(directory);
        return {};
    }
    QStringList written;
    // The built-in models when they are installed (or in the source tree); the worked example always.
    for (const ModelInfo& model : ModelCatalog::builtinModels())
        if (!writeBuiltinModel(model, dir, written, error))
            return written;
    HeatmapStyle style;
    style.showValues = true;
    style.fontPointSize = 11;
    ExportOptions options;
    options.size = QSize(800, 640);
    options.overwrite = true;
    for (bool causal : {false, true}) {
        const QString path = dir.absoluteFilePath(causal ? QStringLiteral("worked-example-causal.png")
                                                         : QStringLiteral("worked-example.png"));
        const ExportResult result = HeatmapExporter(style, options).exportHeatmap(workedExampleHeatmap(causal), path);
        if (!result.ok) {
            *error = result.error;
            return written;
        }
        written << path;
    }
    return written;
}

} // namespace attnscope
