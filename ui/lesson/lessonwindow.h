#pragma once

#include <QMainWindow>

namespace attnscope {

class LessonView;

// Lesson mode on its own: a LessonView with menus for stepping, export, large fonts and full screen (F11).
class LessonWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit LessonWindow(QWidget* parent = nullptr);
    LessonView* view() const { return m_view; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void createMenus();

    LessonView* m_view = nullptr;
    bool m_retranslatePending = false;
};

} // namespace attnscope
