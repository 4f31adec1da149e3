#pragma once

#include "export/batchexporter.h"

#include <QProgressDialog>

#include <atomic>

namespace attnscope {

// A progress bar with Cancel around BatchExporter, for "Export all heads…" in the window. The export
// runs on the GUI thread between event-loop turns (each file takes milliseconds), so Cancel is seen
// after the file being written.
class BatchExportDialog : public QProgressDialog
{
    Q_OBJECT
public:
    explicit BatchExportDialog(QWidget* parent = nullptr);

    BatchExporter::Status run(BatchExporter& exporter, const QString& directory, const QString& stem, ExportFormat format);
    void requestCancel() { m_cancel = true; }

private:
    std::atomic<bool> m_cancel{false};
};

} // namespace attnscope
