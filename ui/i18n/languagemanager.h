#pragma once

#include <QMenu>
#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>
#include <memory>

class QActionGroup;
class QTranslator;

namespace attnscope {

// Chooses the UI language: AttnScope's own translations (embedded as :/i18n/attnscope_<code>.qm) plus
// Qt's (qtbase_<code>.qm from the Qt installation, for standard dialogs). Installing a translator makes
// Qt send QEvent::LanguageChange to every widget, which retranslates itself in changeEvent().
// QLocale::setDefault follows the language, so numbers are written the way its readers expect.
class LanguageManager : public QObject
{
    Q_OBJECT
public:
    explicit LanguageManager(QObject* parent = nullptr);
    ~LanguageManager() override;

    // The application's manager, created on first use (owned by the QCoreApplication).
    static LanguageManager* shared();

    static QStringList availableLanguages();           // "en", "tr"
    static QString nativeName(const QString& code);     // "English", "Türkçe": never translated
    // The system locale's language when AttnScope has it, else English.
    static QString systemLanguage();
    // Embedded resource of a language ("" when none is embedded).
    static QString translationResource(const QString& code);

    // "" means the system's language. Returns false (and keeps the current one) for unknown codes.
    bool setLanguage(const QString& code);
    QString language() const { return m_language; }       // the effective code, never ""
    QString requestedLanguage() const { return m_requested; } // "" when following the system

Q_SIGNALS:
    void languageChanged(const QString& code);

private:
    std::unique_ptr<QTranslator> m_appTranslator;
    std::unique_ptr<QTranslator> m_qtTranslator;
    QString m_language;
    QString m_requested;
};

// The "Language" menu: "System default" and one entry per language (in its own name), checkable.
// Choosing one switches at once and is handed to `remember` (the window saves it in AppSettings, a floor
// above: ui/README.md). It fills a menu it is given (the window's own Language menu) and keeps that menu's
// title and entries translated.
class LanguageMenu : public QObject
{
    Q_OBJECT
public:
    using Remember = std::function<void(const QString& code)>;
    LanguageMenu(LanguageManager* manager, QMenu* menu, Remember remember = {}); // {}: nothing remembered
    QMenu* menu() const { return m_menu; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void retranslate();
    void syncChecks();

    LanguageManager* m_manager;
    QMenu* m_menu;
    Remember m_remember;
    QActionGroup* m_group;
    QAction* m_system;
};

} // namespace attnscope
