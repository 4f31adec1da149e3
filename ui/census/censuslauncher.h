#pragma once

#include <QObject>
#include <QPointer>

class QWidget;

namespace attnscope {

class CorpusWindow;

// File ▸ Corpus census…: one CorpusWindow per model folder, a child of the explorer window that deletes
// itself when closed; asked again for the same folder it is raised, for another folder a new one opens.
class CensusLauncher : public QObject
{
    Q_OBJECT
public:
    explicit CensusLauncher(QWidget* window);

    // The census of `modelFolder`, shown. Null when there is no folder (the worked example, the demos):
    // *message then says why.
    CorpusWindow* open(const QString& modelFolder, QString* message);

signals:
    // The census's "open in explorer" on a pair of its sentences.
    void openInExplorer(const QString& textA, const QString& textB);

private:
    QWidget* m_window;
    QPointer<CorpusWindow> m_corpusWindow;
};

} // namespace attnscope
