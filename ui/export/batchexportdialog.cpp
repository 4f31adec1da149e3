#include "export/batchexportdialog.h"

#include <QCoreApplication>
#include <QFileInfo>

namespace attnscope {

BatchExportDialog::BatchExportDialog(QWidget* parent) : QProgressDialog(parent)
{
    setWindowTitle(tr("Export all heads"));
    setCancelButtonText(tr("Cancel"));
    setWindowModality(Qt::WindowModal);
    setMinimumDuration(0);
    setAutoReset(false);
    setAutoClose(false);
    connect(this, &QProgressDialog::canceled, this, &BatchExportDialog::requestCancel);
}

BatchExporter::Status BatchExportDialog::run(BatchExporter& exporter, const QString& directory, const QString& stem, ExportFormat format)
{
    m_cancel = false;
    setLabelText(tr("Preparing…"));
    show();
    const BatchExporter::Status status = exporter.run(
        directory, stem, format,
        [this](int done, int total, const QString& current) {
            setMaximum(total);
            setValue(done);
            if (!current.isEmpty())
                setLabelText(tr("Wrote %1 (%2 of %3)").arg(QFileInfo(current).fileName()).arg(done).arg(total));
            QCoreApplication::processEvents();
        },
        &m_cancel);
    hide();
    return status;
}

} // namespace attnscope
