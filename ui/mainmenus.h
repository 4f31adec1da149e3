#pragma once

#include <QObject>

class QAction;
class QMenu;

namespace attnscope {

class LessonLauncher;
class MainWindow;
class Retranslation;

// The window's menu bar: File (open a model folder or GGUF file, add a folder to the list, the corpus
// census, quit), Examples, View (fit, discount special tokens, the compute backend), Lesson, Export and
// Language. The last two are filled by MainWindowFeatures; the actions call the window.
class MainMenus : public QObject
{
    Q_OBJECT
public:
    // openInLesson: the window's "Open in lesson" action, which the Lesson menu carries.
    MainMenus(MainWindow* window, QAction* openInLesson);

    QMenu* viewMenu() const { return m_viewMenu; }
    QMenu* computeMenu() const { return m_computeMenu; }
    QMenu* lessonMenu() const { return m_lessonMenu; }
    QMenu* exportMenu() const { return m_exportMenu; }
    QMenu* languageMenu() const { return m_languageMenu; }
    LessonLauncher* lessonLauncher() const { return m_lessons; }

    // Ticks the backend the session has chosen in View ▸ Compute backend.
    void showBackendChoice();

private:
    void buildFileMenu();
    void buildExamplesMenu();
    void buildViewMenu();

    MainWindow* m_window;
    Retranslation* m_retranslation;
    QMenu* m_viewMenu = nullptr;
    QMenu* m_computeMenu = nullptr;
    QMenu* m_lessonMenu = nullptr;
    QMenu* m_exportMenu = nullptr;
    QMenu* m_languageMenu = nullptr;
    LessonLauncher* m_lessons = nullptr;
};

} // namespace attnscope
