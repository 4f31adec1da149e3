#pragma once

#include <QString>
#include <QStringList>

namespace attnscope {

// Writes the heatmaps the GUI would open on into `directory` (created if needed) and returns their
// paths. Used when there is no display, so the run command still shows something.
QStringList writeDefaultHeatmaps(const QString& directory, QString* error);

} // namespace attnscope
