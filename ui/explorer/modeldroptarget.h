#pragma once

#include <QObject>

class QWidget;

namespace attnscope {

// Drag and drop onto the explorer window: a model folder or a llama.cpp .gguf file opens (the first of the
// dropped URLs that is one); anything else is refused with a one-line message. An event filter on the
// window, which it sets to accept drops.
class ModelDropTarget : public QObject
{
    Q_OBJECT
public:
    explicit ModelDropTarget(QWidget* window);

signals:
    void modelDropped(const QString& path);
    void dropRefused(const QString& message);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};

} // namespace attnscope
