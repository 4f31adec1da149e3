#include "defaultheatmaps.h"

#include "render/examples.h"
#include "render/heatmappainter.h"

#include <QDir>
#include <QImage>
#include <QSaveFile>

namespace attnscope {

QStringList writeDefaultHeatmaps(const QString& directory, QString* error)
{
    QDir dir(directory);
    if (!dir.mkpath(QStringLiteral("."))) {
        *error = QStringLiteral("%1: cannot create the directory").arg(directory);
        return {};
    }
    HeatmapStyle style;
    style.showValues = true;
    style.fontPointSize = 11;
    QStringList written;
    for (bool causal : {false, true}) {
        const QString path = dir.absoluteFilePath(causal ? QStringLiteral("worked-example-causal.png")
                                                         : QStringLiteral("worked-example.png"));
        const QImage image = renderHeatmapImage(workedExampleHeatmap(causal), style, 800, 640);
        QSaveFile file(path);
        if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit()) {
            *error = QStringLiteral("%1: cannot write the image (%2)").arg(path, file.errorString());
            return written;
        }
        written << path;
    }
    return written;
}

} // namespace attnscope
