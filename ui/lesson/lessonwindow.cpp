#include "lesson/lessonwindow.h"

#include "lesson/lessonview.h"

#include <QAction>
#include <QEvent>
#include <QKeySequence>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>

namespace attnscope {

LessonWindow::LessonWindow(QWidget* parent) : QMainWindow(parent)
{
    m_view = new LessonView(this);
    setCentralWidget(m_view);
    createMenus();
    // Roomy where the screen allows, never larger than it (a 1280×800 classroom projector).
    QSize size(1500, 860);
    if (const QScreen* screen = parent ? parent->screen() : this->screen())
        size = size.boundedTo(screen->availableGeometry().size());
    resize(size);
}

void LessonWindow::createMenus()
{
    setWindowTitle(tr("AttnScope — Lesson: attention step by step"));
    menuBar()->clear();
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("Save step as &image…"), m_view, &LessonView::saveStepImage);
    file->addAction(tr("Save matrix as &CSV…"), m_view, &LessonView::saveStepCsv);
    file->addAction(tr("Save &all steps…"), m_view, &LessonView::saveAllSteps);
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
    large->setChecked(m_view->largeFonts());
    connect(large, &QAction::toggled, m_view, &LessonView::setLargeFonts);
    QAction* fullScreen = viewMenu->addAction(tr("&Full screen"));
    fullScreen->setCheckable(true);
    fullScreen->setChecked(isFullScreen());
    fullScreen->setShortcut(QKeySequence(Qt::Key_F11));
    connect(fullScreen, &QAction::toggled, this, [this](bool on) { on ? showFullScreen() : showNormal(); });
}

void LessonWindow::changeEvent(QEvent* event)
{
    // Menus are rebuilt from tr() once the language change has reached every widget.
    if (event->type() == QEvent::LanguageChange && !m_retranslatePending) {
        m_retranslatePending = true;
        QMetaObject::invokeMethod(
            this,
            [this] {
                m_retranslatePending = false;
                createMenus();
            },
            Qt::QueuedConnection);
    }
    QMainWindow::changeEvent(event);
}

} // namespace attnscope
