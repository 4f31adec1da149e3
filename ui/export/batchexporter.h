#pragma once

#include "export/attentionexportsource.h"
#include "export/heatmapexporter.h"

#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>

namespace attnscope {

// "Export all heads": one file per head (<stem>-L<layer>-H<head>.<ext>) plus the grid (<stem>-grid.<ext>)
// in one folder. A plain class: progress goes to a callback, cancel is a flag checked between files,
// so the CLI and the GUI (BatchExportDialog) share it. Each file is written atomically; a cancelled run
// keeps the files already written.
class BatchExporter
{
public:
    enum class Status { Done, Cancelled, Failed };
    // done files of total; current is the file just written.
    using Progress = std::function<void(int done, int total, const QString& current)>;

    BatchExporter(AttentionExportSource source, HeatmapStyle style, ExportOptions options);

    // The files run() would write, heads first (layer-major), the grid last.
    QStringList plannedFiles(const QString& directory, const QString& stem, ExportFormat format) const;
    // Before writing anything, refuses when a planned file exists and overwrite is off.
    Status run(const QString& directory, const QString& stem, ExportFormat format, const Progress& progress = {},
               const std::atomic<bool>* cancel = nullptr);

    QString error() const { return m_error; }
    // What the written files say to the user (ExportResult::notice), one line each.
    QStringList notices() const { return m_notices; }
    // The run failed because a planned file existed and overwrite was off: nothing was written.
    bool refusedExisting() const { return m_refusedExisting; }
    QStringList written() const { return m_written; }

private:
    AttentionExportSource m_source;
    HeatmapStyle m_style;
    ExportOptions m_options;
    QString m_error;
    QStringList m_notices;
    bool m_refusedExisting = false;
    QStringList m_written;
};

} // namespace attnscope
