#pragma once

#include <QObject>
#include <QPointer>

namespace attnscope {

class LanguageManager;
class MainWindow;

// Owns the explorer window and switches its language at run time. The explorer builds its widgets
// with tr() once, so on a language change the host builds a fresh window in the new language and
// carries the state over: geometry, model, texts, the head on screen, the tab, presenter mode. The
// old window goes away after the new one is shown.
class MainWindowHost : public QObject
{
    Q_OBJECT
public:
    explicit MainWindowHost(LanguageManager* language, QObject* parent = nullptr);
    ~MainWindowHost() override;

    MainWindow* window() const { return m_window; }
    void show();

Q_SIGNALS:
    void windowReplaced(MainWindow* window);

private:
    void rebuild();

    LanguageManager* m_language;
    QPointer<MainWindow> m_window;
};

} // namespace attnscope
