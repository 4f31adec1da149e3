#include "i18n/languagemanager.h"

#include <QActionGroup>
#include <QCoreApplication>
#include <QEvent>
#include <QFile>
#include <QLibraryInfo>
#include <QLocale>
#include <QPointer>
#include <QTranslator>

namespace attnscope {

LanguageManager::LanguageManager(QObject* parent) : QObject(parent) {}

LanguageManager* LanguageManager::shared()
{
    static QPointer<LanguageManager> instance;
    if (!instance)
        instance = new LanguageManager(QCoreApplication::instance());
    return instance;
}

LanguageManager::~LanguageManager()
{
    // The shared manager goes with the application object: its translators go with it, nothing to remove.
    if (!QCoreApplication::instance()) return;
    if (m_appTranslator)
        QCoreApplication::removeTranslator(m_appTranslator.get());
    if (m_qtTranslator)
        QCoreApplication::removeTranslator(m_qtTranslator.get());
}

QStringList LanguageManager::availableLanguages()
{
    return {QStringLiteral("en"), QStringLiteral("tr")};
}

QString LanguageManager::nativeName(const QString& code)
{
    if (code == QLatin1String("tr"))
        return QStringLiteral("Türkçe");
    if (code == QLatin1String("en"))
        return QStringLiteral("English");
    return code;
}

QString LanguageManager::systemLanguage()
{
    for (const QString& name : QLocale::system().uiLanguages()) {
        const QString code = name.section(QLatin1Char('-'), 0, 0).section(QLatin1Char('_'), 0, 0).toLower();
        if (availableLanguages().contains(code))
            return code;
    }
    return QStringLiteral("en");
}

QString LanguageManager::translationResource(const QString& code)
{
    const QString path = QStringLiteral(":/i18n/attnscope_%1.qm").arg(code);
    return QFile::exists(path) ? path : QString();
}

bool LanguageManager::setLanguage(const QString& requested)
{
    const QString code = requested.isEmpty() ? systemLanguage() : requested;
    if (!availableLanguages().contains(code))
        return false;
    if (m_appTranslator)
        QCoreApplication::removeTranslator(m_appTranslator.get());
    if (m_qtTranslator)
        QCoreApplication::removeTranslator(m_qtTranslator.get());
    m_appTranslator = std::make_unique<QTranslator>();
    m_qtTranslator = std::make_unique<QTranslator>();
    // English is the source language: its .qm only carries plural forms, so failing to load it is fine.
    const QString resource = translationResource(code);
    if (!resource.isEmpty() && m_appTranslator->load(resource))
        QCoreApplication::installTranslator(m_appTranslator.get());
    if (code != QLatin1String("en") &&
        m_qtTranslator->load(QStringLiteral("qtbase_") + code, QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(m_qtTranslator.get());
    QLocale::setDefault(QLocale(code == QLatin1String("tr") ? QLocale::Turkish : QLocale::English,
                                code == QLatin1String("tr") ? QLocale::Turkey : QLocale::UnitedStates));
    m_language = code;
    m_requested = requested;
    Q_EMIT languageChanged(code);
    return true;
}

LanguageMenu::LanguageMenu(LanguageManager* manager, QMenu* menu, Remember remember)
    : QObject(menu), m_manager(manager), m_menu(menu), m_remember(std::move(remember)),
      m_group(new QActionGroup(this))
{
    m_group->setExclusive(true);
    m_system = m_menu->addAction(QString());
    m_system->setCheckable(true);
    m_system->setData(QString());
    m_group->addAction(m_system);
    m_menu->addSeparator();
    for (const QString& code : LanguageManager::availableLanguages()) {
        QAction* action = m_menu->addAction(LanguageManager::nativeName(code));
        action->setCheckable(true);
        action->setData(code);
        m_group->addAction(action);
    }
    connect(m_group, &QActionGroup::triggered, this, [this](QAction* action) {
        const QString code = action->data().toString();
        if (m_manager->setLanguage(code) && m_remember) m_remember(code);
    });
    connect(m_manager, &LanguageManager::languageChanged, this, &LanguageMenu::syncChecks);
    m_menu->installEventFilter(this);
    retranslate();
    syncChecks();
}

bool LanguageMenu::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_menu && event->type() == QEvent::LanguageChange)
        retranslate();
    return QObject::eventFilter(watched, event);
}

void LanguageMenu::retranslate()
{
    m_menu->setTitle(tr("&Language"));
    m_system->setText(tr("System default (%1)").arg(LanguageManager::nativeName(LanguageManager::systemLanguage())));
}

void LanguageMenu::syncChecks()
{
    const QString requested = m_manager->requestedLanguage();
    for (QAction* action : m_group->actions())
        action->setChecked(action->data().toString() == requested);
}

} // namespace attnscope
