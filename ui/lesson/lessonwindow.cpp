#include "lesson/lessonwindow.h"

#include "lesson/lessonview.h"

#include <QAction>
#include <QKeySequence>
#include <QMenu>
#include <QMenuBar>

namespace attnscope {

LessonWindow::LessonWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(tr("AttnScope \u2014 Lesson: attention step by step"));
    m_view = new LessonView(this);
    setCentralWidget(m_view);

    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("Save step as &image\u2026"), m_view, &LessonView::saveStepImage);
    file->addAction(tr("Save matrix as &CSV\u2026"), m_view, &LessonView::saveStepCsv);
    file->addAction(tr("Save &all steps\u2026"), m_view, &LessonView::saveAllSteps);
    file->addSeparator();
    QAction* close = file->addAction(tr("&Close"), this, &QWidget::close);
    close->setShortcut(QKeySequence::Close);

    QMenu* lesson = menuBar()->addMenu(tr("&Lesson"));
    QAction* previous = lesson->addAction(tr("&Previous step"), m_view, &LessonView::previousStep);
    previous->setShortcut(QKeySequence(Qt::Key_PageUp));
    QAction* next = lesson->addAction(tr("&Next step"), m_view, &LessonView::nextStep);
    next->setShortcut(QKeySequence(Qt::Key_PageDown));

    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
    QAction* large = viewMenu->addAction(tr("&Large fonts (projector)"));
    large->setCheckable(true);
    connect(large, &QAction::toggled, m_view, &LessonView::setLargeFonts);
    QAction* fullScreen = viewMenu->addAction(tr("&Full screen"));
    fullScreen->setCheckable(true);
    fullScreen->setShortcut(QKeySequence(Qt::Key_F11));
    connect(fullScreen, &QAction::toggled, this, [this](bool on) { on ? showFullScreen() : showNormal(); });
    resize(1500, 860);
}

} // namespace attnscope
