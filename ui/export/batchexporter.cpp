#include "export/batchexporter.h"

#include "io/outputfile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <algorithm>

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
    m_refusedExisting = false;
    m_written.clear();
    m_notices.clear();
    const bool folderExisted = QFileInfo(directory).isDir();
    if (!QDir().mkpath(directory)) {
        m_error = QCoreApplication::translate("attnscope", "%1: cannot create the folder").arg(directory);
        return Status::Failed;
    }
    // A batch that stops before its first file (a refusal, a full disk) takes back the folder it made.
    struct FolderKeeper
    {
        const QString& directory;
        bool keep;
        const QStringList& written;
        ~FolderKeeper()
        {
            if (!keep && written.isEmpty()) QDir().rmdir(directory); // only if still empty
        }
    } keeper{directory, folderExisted, m_written};
    const QStringList files = plannedFiles(directory, stem, format);
    // Every file is checked against the output policy (an existing file without overwrite, a device, a
    // FIFO, a folder in the way) before the first one is written.
    for (const QString& file : files) {
        const OutputCheck check = checkOutputPath(file, m_options.overwrite);
        if (check.refusal != OutputRefusal::None) {
            m_error = check.error;
            m_refusedExisting = check.refusal == OutputRefusal::Exists;
            return Status::Failed;
        }
    }
    // The whole batch's numbers are estimated before the first file: heads × n² weights, plus the grid.
    if (!isImageFormat(format)) {
        const qint64 rows = m_source.maps->queries(), cols = m_source.maps->keys();
        const qint64 labelBytes =
            2 * 3 * m_source.tokens.join(QString()).size(); // row and column labels, UTF-8
        const qint64 perHead = HeatmapExporter::estimatedBytes(format, rows * cols, labelBytes, false);
        const qint64 heads = qint64(m_source.maps->layers()) * m_source.maps->heads();
        const qint64 grid = HeatmapExporter::estimatedBytes(format, heads * rows * cols,
                                                            heads * labelBytes * std::max(rows, cols), true);
        if (const QString tooLarge = outputSizeProblem(heads * perHead + grid, m_options.maxOutputBytes);
            !tooLarge.isEmpty()) {
            m_error = QDir::toNativeSeparators(directory) + QStringLiteral(": ") + tooLarge;
            return Status::Failed;
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
        if (!result.notice.isEmpty()) m_notices << result.notice;
        if (progress)
            progress(i + 1, total, files[i]);
    }
    return Status::Done;
}

} // namespace attnscope
