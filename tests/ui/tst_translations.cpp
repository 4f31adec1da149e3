// The Turkish UI: the translations are embedded, a Turkish locale picks them, menus and actions switch
// language at run time, numbers follow the locale, and no Turkish entry is left unfinished.

#include "export/batchexportdialog.h"
#include "i18n/languagemanager.h"
#include "mainwindow.h"
#include "mainwindowfeatures.h"
#include "mainwindowhost.h"
#include "presenter/presentermode.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QLibraryInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QPointer>
#include <QTabWidget>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

using namespace attnscope;

namespace {

const QString kSource = QStringLiteral(ATTNSCOPE_SOURCE_DIR);

struct TsCount
{
    int messages = 0;
    QStringList unfinished;
};

// Reads a Qt Linguist file; an entry is unfinished when marked so or when its translation is empty.
TsCount countTs(const QString& path, QString* error)
{
    TsCount count;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = path + QStringLiteral(": cannot open");
        return count;
    }
    QXmlStreamReader xml(&file);
    QString source;
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement())
            continue;
        if (xml.name() == QLatin1String("source")) {
            source = xml.readElementText();
        } else if (xml.name() == QLatin1String("translation")) {
            ++count.messages;
            const QString type = xml.attributes().value(QLatin1String("type")).toString();
            if (type == QLatin1String("vanished") || type == QLatin1String("obsolete")) {
                --count.messages;
                continue;
            }
            const QString text = xml.readElementText(QXmlStreamReader::IncludeChildElements);
            if (type == QLatin1String("unfinished") || text.trimmed().isEmpty())
                count.unfinished << source;
        }
    }
    if (xml.hasError())
        *error = path + QStringLiteral(": ") + xml.errorString();
    return count;
}

QString qtTool(const char* name)
{
    return QLibraryInfo::path(QLibraryInfo::BinariesPath) + QLatin1Char('/') + QLatin1String(name);
}

} // namespace

class TestTranslations : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void translationsAreEmbedded()
    {
        QVERIFY(QFile::exists(QStringLiteral(":/i18n/attnscope_tr.qm")));
        QVERIFY(QFile::exists(QStringLiteral(":/i18n/attnscope_en.qm")));
    }

    void turkishLocaleIsChosen()
    {
        // main() below sets LANGUAGE/LC_ALL to Turkish before the application exists.
        QCOMPARE(LanguageManager::systemLanguage(), QStringLiteral("tr"));
        LanguageManager manager;
        QVERIFY(manager.setLanguage(QString()));
        QCOMPARE(manager.language(), QStringLiteral("tr"));
        QMenu menu;
        LanguageMenu language(&manager, &menu);
        QCOMPARE(menu.title(), QStringLiteral("&Dil"));
        QCOMPARE(menu.actions().size(), 4); // system default, separator, English, Türkçe
        QCOMPARE(QLocale().toString(0.5, 'g', 4), QStringLiteral("0,5")); // Turkish decimal comma
    }

    void menusSwitchAtRunTime()
    {
        LanguageManager manager;
        QVERIFY(manager.setLanguage(QStringLiteral("tr")));
        QMainWindow window;
        PresenterMode presenter(&window);
        QMenu languageMenu(&window);
        LanguageMenu language(&manager, &languageMenu);
        BatchExportDialog dialog(&window);
        QCOMPARE(presenter.toggleAction()->text(), QStringLiteral("&Sunum kipi"));
        QCOMPARE(presenter.fullScreenAction()->text(), QStringLiteral("&Tam ekran"));
        QCOMPARE(presenter.examplesMenu()->title(), QStringLiteral("Ö&rnekler"));
        QCOMPARE(languageMenu.title(), QStringLiteral("&Dil"));
        QCOMPARE(dialog.windowTitle(), QStringLiteral("Tüm başlıkları dışa aktar"));

        QVERIFY(manager.setLanguage(QStringLiteral("en")));
        QCoreApplication::processEvents();
        QCOMPARE(presenter.toggleAction()->text(), QStringLiteral("&Presenter mode"));
        QCOMPARE(languageMenu.title(), QStringLiteral("&Language"));
        QCOMPARE(QLocale().toString(0.5, 'g', 4), QStringLiteral("0.5"));

        QVERIFY(manager.setLanguage(QStringLiteral("tr")));
        QCoreApplication::processEvents();
        QCOMPARE(presenter.toggleAction()->text(), QStringLiteral("&Sunum kipi"));
        QVERIFY(!manager.setLanguage(QStringLiteral("xx")));
        QCOMPARE(manager.language(), QStringLiteral("tr"));
    }

    // The explorer window in Turkish, then switched to English at run time: MainWindowHost builds a
    // fresh window in the new language.
    void explorerMenusFollowTheLanguage()
    {
        LanguageManager manager;
        QVERIFY(manager.setLanguage(QStringLiteral("tr")));
        MainWindowHost host(&manager);
        host.show();
        auto menuTitles = [](MainWindow* window) {
            QStringList titles;
            for (QAction* action : window->menuBar()->actions())
                titles << action->text();
            return titles;
        };
        QCOMPARE(menuTitles(host.window()), (QStringList{QStringLiteral("&Dosya"), QStringLiteral("Ö&rnekler"), QStringLiteral("&Görünüm"),
                                                         QStringLiteral("&Dışa aktar"), QStringLiteral("&Dil")}));
        QCOMPARE(host.window()->tabs()->tabText(0), QStringLiteral("Isı haritası"));
        QVERIFY(host.window()->features()->presenter()->toggleAction()->text() == QStringLiteral("&Sunum kipi"));

        QPointer<MainWindow> old = host.window();
        QVERIFY(manager.setLanguage(QStringLiteral("en")));
        QVERIFY(host.window() != old.data());
        QCOMPARE(menuTitles(host.window()), (QStringList{QStringLiteral("&File"), QStringLiteral("E&xamples"), QStringLiteral("&View"),
                                                         QStringLiteral("E&xport"), QStringLiteral("&Language")}));
        QTRY_VERIFY(old.isNull()); // the Turkish window is gone
        QVERIFY(manager.setLanguage(QStringLiteral("tr")));
        QCOMPARE(host.window()->tabs()->tabText(3), QStringLiteral("İstatistikler"));
    }

    void noUnfinishedTurkishEntries()
    {
        QString error;
        const TsCount tr = countTs(kSource + QStringLiteral("/resources/translations/attnscope_tr.ts"), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(tr.messages > 40);
        QVERIFY2(tr.unfinished.isEmpty(), qPrintable(QStringLiteral("unfinished: ") + tr.unfinished.join(QStringLiteral(" | "))));
    }

    void lreleaseReportsNoUnfinished()
    {
        const QString lrelease = qtTool("lrelease");
        QVERIFY2(QFile::exists(lrelease), qPrintable(lrelease));
        QTemporaryDir dir;
        QProcess process;
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(lrelease, {kSource + QStringLiteral("/resources/translations/attnscope_tr.ts"), QStringLiteral("-qm"),
                                 dir.filePath(QStringLiteral("tr.qm"))});
        QVERIFY(process.waitForFinished(30000));
        const QString output = QString::fromUtf8(process.readAll());
        QCOMPARE(process.exitCode(), 0);
        QVERIFY2(output.contains(QLatin1String(" 0 unfinished")), qPrintable(output));
    }

    // Every tr() string in the tree is in the Turkish file, translated: lupdate over the sources into a
    // copy of the file adds nothing unfinished.
    void everySourceStringIsTranslated()
    {
        const QString lupdate = qtTool("lupdate");
        QVERIFY2(QFile::exists(lupdate), qPrintable(lupdate));
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("attnscope_tr.ts"));
        QVERIFY(QFile::copy(kSource + QStringLiteral("/resources/translations/attnscope_tr.ts"), copy));
        QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
        QProcess process;
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.setWorkingDirectory(kSource);
        process.start(lupdate, {QStringLiteral("-locations"), QStringLiteral("none"), QStringLiteral("ui"), QStringLiteral("app"),
                                QStringLiteral("core"), QStringLiteral("-ts"), copy});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 0);
        QString error;
        const TsCount tr = countTs(copy, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(tr.unfinished.isEmpty(),
                 qPrintable(QStringLiteral("not translated yet (run lupdate and translate): ") + tr.unfinished.join(QStringLiteral(" | "))));
    }
};

int main(int argc, char** argv)
{
    // A Turkish user's environment, set before Qt reads the system locale.
    qputenv("LANGUAGE", "tr");
    qputenv("LC_ALL", "tr_TR.UTF-8");
    qputenv("LANG", "tr_TR.UTF-8");
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true); // settings go to a test location, not the user's
    TestTranslations test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_translations.moc"
