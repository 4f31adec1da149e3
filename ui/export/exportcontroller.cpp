#include "export/exportcontroller.h"

#include "export/batchexportdialog.h"
#include "export/batchexporter.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMessageBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QWidget>

namespace attnscope {

ExportController::ExportController(QWidget* parent) : QObject(parent), m_parent(parent)
{
    askPath = [this](const QString& caption, const QString& suggested, bool folder) {
        if (folder)
            return QFileDialog::getExistingDirectory(m_parent, caption, suggested);
        // The confirmation is ours (confirmOverwrite), so that the GUI and tests take the same path.
        return QFileDialog::getSaveFileName(m_parent, caption, suggested, fileFilters(), nullptr,
                                            QFileDialog::DontConfirmOverwrite);
    };
    confirmOverwrite = [this](const QStringList& existing) {
        const QString text = existing.size() == 1
                                 ? tr("%1 already exists. Replace it?").arg(QFileInfo(existing.front()).fileName())
                                 : tr("%n file(s) already exist, for example %1. Replace them?", nullptr, int(existing.size()))
                                       .arg(QFileInfo(existing.front()).fileName());
        return QMessageBox::question(m_parent, tr("Replace files?"), text, QMessageBox::Yes | QMessageBox::No, QMessageBox::No) ==
               QMessageBox::Yes;
    };
    showError = [this](const QString& message) { QMessageBox::warning(m_parent, tr("Export failed"), message); };
    showNotice = [this](const QString& message) {
        if (auto* window = qobject_cast<QMainWindow*>(m_parent ? m_parent->window() : nullptr))
            window->statusBar()->showMessage(message, 20000);
        else if (m_parent)
            QMessageBox::information(m_parent, tr("Exported"), message);
        else // no window to say it in (a controller of its own, as tests make)
            qInfo("%s", qPrintable(message));
    };
}

QString ExportController::fileFilters()
{
    return tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf);;CSV numbers (*.csv);;JSON numbers (*.json);;"
              "NumPy array (*.npy)");
}

QString ExportController::chooseTarget(const QString& caption, const QString& suggested, bool& overwrite)
{
    QString path = askPath(caption, suggested, false);
    if (path.isEmpty())
        return {};
    if (!exportFormatFromPath(path))
        path += QStringLiteral(".png");
    overwrite = false;
    if (QFileInfo::exists(path)) {
        if (!confirmOverwrite({path}))
            return {};
        overwrite = true;
    }
    return path;
}

ExportOptions ExportController::optionsFor(bool overwrite, const ExportMetadata& metadata) const
{
    ExportOptions options;
    options.size = imageSize;
    options.scaleFactor = scaleFactor;
    options.overwrite = overwrite;
    options.metadata = metadata;
    options.stamp = stamp;
    return options;
}

void ExportController::sayWritten(const QString& path, const QString& notice)
{
    const QString saved = tr("Saved to %1").arg(QDir::toNativeSeparators(path));
    showNotice(notice.isEmpty() ? saved : saved + QStringLiteral(" · ") + notice);
}

bool ExportController::exportHeatmap(const HeatmapData& data, const HeatmapStyle& style, const ExportMetadata& metadata,
                                     const HeatmapData* cells)
{
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    const QString suggested = QDir(documents).filePath(
        metadata.layer >= 0 ? QStringLiteral("attention-L%1-H%2.png").arg(metadata.layer).arg(metadata.head) : QStringLiteral("attention.png"));
    bool overwrite = false;
    const QString path = chooseTarget(tr("Export heatmap"), suggested, overwrite);
    if (path.isEmpty())
        return false;
    ExportOptions options = optionsFor(overwrite, metadata);
    options.region = region;
    const ExportResult result = HeatmapExporter(style, options).exportHeatmap(data, path, cells);
    if (!result.ok)
        showError(result.error);
    else
        sayWritten(path, result.notice);
    return result.ok;
}

bool ExportController::exportGrid(const AttentionExportSource& source, const HeatmapStyle& style, const ExportMetadata& metadata)
{
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    bool overwrite = false;
    const QString path = chooseTarget(tr("Export head grid"), QDir(documents).filePath(QStringLiteral("attention-grid.png")), overwrite);
    if (path.isEmpty())
        return false;
    ExportOptions options = optionsFor(overwrite, metadata);
    const auto format = exportFormatFromPath(path);
    const HeadGridData grid = source.grid(format && isImageFormat(*format) ? AttentionExportSource::kThumbnailCells : 0);
    const ExportResult result = HeatmapExporter(style, options).exportGrid(grid, path);
    if (!result.ok)
        showError(result.error);
    else
        sayWritten(path, result.notice);
    return result.ok;
}

bool ExportController::exportView(const QString& caption, const QString& suggestedName, const QString& title,
                                  const ExportMetadata& metadata, const HeatmapExporter::PagePainter& paint,
                                  QSize pageSize, const QString& pageReason)
{
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    bool overwrite = false;
    const QString path = chooseTarget(caption, QDir(documents).filePath(suggestedName), overwrite);
    if (path.isEmpty())
        return false;
    ExportOptions options = optionsFor(overwrite, metadata);
    if (pageSize.isValid())
        options.size = pageSize;
    const ExportResult result = HeatmapExporter(HeatmapStyle(), options).exportView(path, title, title, paint);
    if (!result.ok)
        showError(result.error);
    else
        sayWritten(path, options.size == imageSize ? QString()
                                                   : tr("%1: the page is %2×%3 px instead of %4×%5: %6")
                                                         .arg(path)
                                                         .arg(options.size.width())
                                                         .arg(options.size.height())
                                                         .arg(imageSize.width())
                                                         .arg(imageSize.height())
                                                         .arg(pageReason));
    return result.ok;
}

bool ExportController::exportAllHeads(const AttentionExportSource& source, const HeatmapStyle& style, ExportFormat format)
{
    const QString folder = askPath(tr("Export all heads into folder"),
                                   QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation), true);
    if (folder.isEmpty())
        return false;
    ExportOptions options = optionsFor(false, source.metadata());
    const QString stem = QStringLiteral("attention");
    BatchExporter probe(source, style, options);
    QStringList existing;
    for (const QString& file : probe.plannedFiles(folder, stem, format))
        if (QFileInfo::exists(file))
            existing << file;
    if (!existing.isEmpty()) {
        if (!confirmOverwrite(existing))
            return false;
        options.overwrite = true;
    }
    BatchExporter exporter(source, style, options);
    BatchExportDialog dialog(m_parent);
    const BatchExporter::Status status = dialog.run(exporter, folder, stem, format);
    if (status == BatchExporter::Status::Failed)
        showError(exporter.error());
    else if (status == BatchExporter::Status::Done)
        sayWritten(folder, exporter.notices().join(QLatin1Char('\n')));
    return status == BatchExporter::Status::Done;
}

} // namespace attnscope
