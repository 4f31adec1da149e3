#include "export/batchexporter.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace attnscope {

BatchExporter::BatchExporter(AttentionExportSource source, HeatmapStyle style, ExportOptions options)
    : m_source(std::move(source)), m_style(style), m_options(std::move(options))
{
}

QStringList BatchExporter::plannedFiles(const QString& directory, const QString& stem, ExportFormat format) const
{
    const QDir dir(directory);
    const QString suffix = exportFormatSuffix(format);
    QStringList files;
    for (int l = 0; l < m_source.maps->layers(); ++l)
        for (int h = 0; h < m_source.maps->heads(); ++h)
            files << dir.filePath(QStringLiteral("%1-L%2-H%3.%4").arg(stem).arg(l).arg(h).arg(suffix));
    files << dir.filePath(QStringLiteral("%1-grid.%2").arg(stem, suffix));
    return files;
}

BatchExporter::Status BatchExporter::run(const QString& directory, const QString& stem, ExportFormat format,
                                         const Progress& progress, const std::atomic<bool>* cancel)
{
    m_error.clear();
    m_written.clear();
    if (!QDir().mkpath(directory)) {
        m_error = QCoreApplication::translate("attnscope", "%1: cannot create the folder").arg(directory);
        return Status::Failed;
    }
    const QStringList files = plannedFiles(directory, stem, format);
    if (!m_options.overwrite) {
        for (const QString& file : files) {
            if (QFileInfo::exists(file)) {
                m_error = QCoreApplication::translate("attnscope", "%1: the file exists and was not overwritten").arg(file);
                return Status::Failed;
            }
        }
    }
    const int total = int(files.size());
    if (progress)
        progress(0, total, QString());
    const int heads = m_source.maps->heads();
    for (int i = 0; i < total; ++i) {
        if (cancel && cancel->load())
            return Status::Cancelled;
        ExportOptions options = m_options;
        const bool isGrid = i == total - 1;
        options.metadata.layer = isGrid ? -1 : i / heads;
        options.metadata.head = isGrid ? -1 : i % heads;
        const HeatmapExporter exporter(m_style, options);
        const ExportResult result = isGrid ? exporter.exportGrid(m_source.grid(isImageFormat(format) ? AttentionExportSource::kThumbnailCells : 0), files[i])
                                           : exporter.exportHeatmap(m_source.heatmap(i / heads, i % heads), files[i]);
        if (!result.ok) {
            m_error = result.error;
            return Status::Failed;
        }
        m_written << files[i];
        if (progress)
            progress(i + 1, total, files[i]);
    }
    return Status::Done;
}

} // namespace attnscope
