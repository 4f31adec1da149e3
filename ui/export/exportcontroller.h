#pragma once

#include "export/attentionexportsource.h"
#include "export/heatmapexporter.h"

#include <QObject>
#include <QPointer>
#include <QSize>
#include <functional>

class QWidget;

namespace attnscope {

// The window's File ▸ Export… commands: asks where to write (file dialog), asks before replacing an
// existing file (message box), then writes with HeatmapExporter or, for all heads, BatchExporter
// behind a progress dialog. The two questions are replaceable functions so tests can answer them.
class ExportController : public QObject
{
    Q_OBJECT
public:
    explicit ExportController(QWidget* parent);

    // Returns the path chosen, or "" when the user cancels. caption and suggested file name given.
    std::function<QString(const QString& caption, const QString& suggested, bool folder)> askPath;
    // Returns true when the user agrees to replace these existing files.
    std::function<bool(const QStringList& existing)> confirmOverwrite;
    // Shows an error to the user.
    std::function<void(const QString& message)> showError;
    // Tells the user where a file went and anything about it (ExportResult::notice): in the window's
    // status bar when the parent is in a main window, else in a message box (no parent: the log).
    std::function<void(const QString& message)> showNotice;

    QSize imageSize{1200, 1000};
    double scaleFactor = 2.0; // exports are sharper than the screen by default
    bool stamp = true;        // images carry their stamp line (ExportOptions::stamp)

    // Each returns true when something was written, and then says where (showNotice: "Saved to <path>");
    // a failure is showError's one line naming the file.
    // region: the view's visible cells (empty: all); cells: a long input's block on screen (see
    // HeatmapExporter).
    QRect region;
    bool exportHeatmap(const HeatmapData& data, const HeatmapStyle& style, const ExportMetadata& metadata,
                       const HeatmapData* cells = nullptr);
    // Images get thumbnails (pooled for long inputs); numbers every weight.
    bool exportGrid(const AttentionExportSource& source, const HeatmapStyle& style,
                    const ExportMetadata& metadata);
    // A view's own paint code (PNG, SVG or PDF at imageSize, or at pageSize when given): asks for the file
    // and before replacing one. A pageSize other than imageSize is said (showNotice), with `pageReason`.
    // metadata: what the stamp says.
    bool exportView(const QString& caption, const QString& suggestedName, const QString& title,
                    const ExportMetadata& metadata, const HeatmapExporter::PagePainter& paint,
                    QSize pageSize = QSize(), const QString& pageReason = QString());
    bool exportAllHeads(const AttentionExportSource& source, const HeatmapStyle& style, ExportFormat format);

    static QString fileFilters();

private:
    // The image size and scale chosen in the dialog, with this overwrite answer and metadata.
    ExportOptions optionsFor(bool overwrite, const ExportMetadata& metadata) const;
    QString chooseTarget(const QString& caption, const QString& suggested, bool& overwrite);
    // "Saved to <path>", then what the export changed (the result's notice), for showNotice.
    void sayWritten(const QString& path, const QString& notice);
    QPointer<QWidget> m_parent;
};

} // namespace attnscope
