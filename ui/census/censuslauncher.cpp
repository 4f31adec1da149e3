#include "censuslauncher.h"

#include "corpuswindow.h"

#include <QWidget>

namespace attnscope {

CensusLauncher::CensusLauncher(QWidget* window) : QObject(window), m_window(window) {}

CorpusWindow* CensusLauncher::open(const QString& modelFolder, QString* message)
{
    if (modelFolder.isEmpty()) {
        *message = tr("The corpus census needs a model: choose a built-in model or open a model folder.");
        return nullptr;
    }
    message->clear();
    if (!m_corpusWindow || m_corpusWindow->property("modelFolder").toString() != modelFolder) {
        m_corpusWindow = new CorpusWindow(modelFolder, m_window);
        m_corpusWindow->setProperty("modelFolder", modelFolder);
        m_corpusWindow->setAttribute(Qt::WA_DeleteOnClose);
        connect(m_corpusWindow, &CorpusWindow::openInExplorer, this, &CensusLauncher::openInExplorer);
    }
    m_corpusWindow->show();
    m_corpusWindow->raise();
    return m_corpusWindow;
}

} // namespace attnscope
