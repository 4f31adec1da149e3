#include "modeldroptarget.h"

#include "model/transformermodel.h"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QMimeData>
#include <QWidget>

namespace attnscope {

ModelDropTarget::ModelDropTarget(QWidget* window) : QObject(window)
{
    window->setAcceptDrops(true);
    window->installEventFilter(this);
}

bool ModelDropTarget::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::DragEnter) {
        auto* enter = static_cast<QDragEnterEvent*>(event);
        if (enter->mimeData()->hasUrls()) enter->acceptProposedAction();
        return true;
    }
    if (event->type() != QEvent::Drop) return QObject::eventFilter(watched, event);
    for (const QUrl& url : static_cast<QDropEvent*>(event)->mimeData()->urls()) {
        const QFileInfo info(url.toLocalFile());
        if (info.isDir() || (info.isFile() && TransformerModel::isGgufPath(info.absoluteFilePath()))) {
            emit modelDropped(info.absoluteFilePath());
            return true;
        }
    }
    emit dropRefused(tr("Drop a model folder (with config.json and model.safetensors) or a .gguf file"));
    return true;
}

} // namespace attnscope
