// The Turkish UI: the translations are embedded, a Turkish locale picks them, menus and actions switch
// language at run time, numbers follow the locale, and no Turkish entry is left unfinished.

#include "explorer/headheatmap.h"
#include "explorer/headstatsmodel.h"
#include "export/batchexportdialog.h"
#include "generation/streamingtab.h"
#include "i18n/languagemanager.h"
#include "lesson/lessonlauncher.h"
#include "mainwindow.h"
#include "mainwindowfeatures.h"
#include "mainwindowhost.h"
#include "presenter/presentermode.h"
#include "ui/support/languagerows.h"
#include "ui/support/shownwindow.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QLibraryInfo>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QPointer>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QXmlStreamReader>
#include <QtTest>
#include <functional>

using namespace attnscope;

namespace {

const QString kSource = QStringLiteral(ATTNSCOPE_SOURCE_DIR);

struct TsCount
{
    int messages = 0;
    QStringList unfinished;
};

// Calls visit with the reader at each start element of a Qt Linguist file, in order; *error names the file
// and the problem where it cannot be opened or is not well-formed XML.
void forEachTsElement(const QString& path, QString* error,
                      const std::function<void(QXmlStreamReader&)>& visit)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = path + QStringLiteral(": cannot open");
        return;
    }
    QXmlStreamReader xml(&file);
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) visit(xml);
    }
    if (xml.hasError()) *error = path + QStringLiteral(": ") + xml.errorString();
}

// Reads a Qt Linguist file; an entry is unfinished when marked so or when its translation is empty.
TsCount countTs(const QString& path, QString* error)
{
    TsCount count;
    QString source;
    forEachTsElement(path, error, [&](QXmlStreamReader& xml) {
        if (xml.name() == QLatin1String("source")) {
            source = xml.readElementText();
        } else if (xml.name() == QLatin1String("translation")) {
            const QString type = xml.attributes().value(QLatin1String("type")).toString();
            if (type == QLatin1String("vanished") || type == QLatin1String("obsolete")) return;
            ++count.messages;
            const QString text = xml.readElementText(QXmlStreamReader::IncludeChildElements);
            if (type == QLatin1String("unfinished") || text.trimmed().isEmpty()) count.unfinished << source;
        }
    });
    return count;
}

// One row of docs/glossary-tr.md: an English term, the Turkish words that may translate it, the words that
// must not.
struct GlossaryTerm
{
    QString english;
    QStringList turkish;
    QStringList avoided;
};

QList<GlossaryTerm> readGlossary(const QString& path, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
        *error = path + QStringLiteral(": cannot open");
        return {};
    }
    QList<GlossaryTerm> terms;
    const QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'));
    auto words = [](const QString& cell) {
        QStringList out;
        for (const QString& w : cell.split(QLatin1Char(','), Qt::SkipEmptyParts))
            if (!w.trimmed().isEmpty()) out << w.trimmed();
        return out;
    };
    for (const QString& line : lines) {
        const QStringList cells = line.split(QLatin1Char('|'));
        // "| english | türkçe | not used |" -> ["", english, türkçe, not used, ""]
        if (cells.size() != 5 || cells[1].trimmed().isEmpty() || cells[1].contains(QLatin1String("---")) ||
            cells[1].trimmed() == QLatin1String("English"))
            continue;
        terms.append({cells[1].trimmed(), words(cells[2]), words(cells[3])});
    }
    return terms;
}

// Lower case the Turkish way (I -> ı, İ -> i), without menu mnemonics.
QString folded(QString text)
{
    text.remove(QLatin1Char('&'));
    return QLocale(QLocale::Turkish).toLower(text);
}

// Every Turkish message (source, translation) of a .ts file, plural forms joined.
QList<std::pair<QString, QString>> readMessages(const QString& path, QString* error)
{
    QList<std::pair<QString, QString>> messages;
    QString source;
    forEachTsElement(path, error, [&](QXmlStreamReader& xml) {
        if (xml.name() == QLatin1String("source"))
            source = xml.readElementText();
        else if (xml.name() == QLatin1String("translation"))
            messages.append({source, xml.readElementText(QXmlStreamReader::IncludeChildElements)});
    });
    return messages;
}

// The plural messages (tr() with %n) of a .ts file: their context and source.
QList<std::pair<QString, QString>> readPluralSources(const QString& path, QString* error)
{
    QList<std::pair<QString, QString>> plurals;
    QString context;
    bool numerus = false;
    bool inContext = false;
    forEachTsElement(path, error, [&](QXmlStreamReader& xml) {
        if (xml.name() == QLatin1String("context")) {
            inContext = true;
        } else if (xml.name() == QLatin1String("name") && inContext) {
            context = xml.readElementText();
            inContext = false;
        } else if (xml.name() == QLatin1String("message")) {
            numerus = xml.attributes().value(QLatin1String("numerus")) == QLatin1String("yes");
        } else if (xml.name() == QLatin1String("source") && numerus) {
            plurals.append({context, xml.readElementText()});
        }
    });
    return plurals;
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
        QCOMPARE(dialog.windowTitle(), QStringLiteral("Tüm kafaları dışa aktar"));

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
        QCOMPARE(
            menuTitles(host.window()),
            (QStringList{QStringLiteral("&Dosya"), QStringLiteral("Ö&rnekler"), QStringLiteral("&Görünüm"),
                         QStringLiteral("D&ers"), QStringLiteral("&Dışa aktar"), QStringLiteral("&Dil")}));
        QCOMPARE(host.window()->lessonLauncher()->workedExampleAction()->text(),
                 QStringLiteral("Çözümlü örnek (kedi mindere oturdu)"));
        QCOMPARE(host.window()->tabs()->tabText(0), QStringLiteral("Isı haritası"));
        QCOMPARE(host.window()->streamingTab()->fileEdit()->text(),
                 QStringLiteral("yerleşik: stream-en.txt"));
        QVERIFY(host.window()->features()->presenter()->toggleAction()->text() ==
                QStringLiteral("&Sunum kipi"));

        QPointer<MainWindow> old = host.window();
        QVERIFY(manager.setLanguage(QStringLiteral("en")));
        QVERIFY(host.window() != old.data());
        QCOMPARE(
            menuTitles(host.window()),
            (QStringList{QStringLiteral("&File"), QStringLiteral("E&xamples"), QStringLiteral("&View"),
                         QStringLiteral("Less&on"), QStringLiteral("E&xport"), QStringLiteral("&Language")}));
        QCOMPARE(host.window()->streamingTab()->fileEdit()->text(),
                 QStringLiteral("built-in: stream-en.txt"));
        QTRY_VERIFY(old.isNull()); // the Turkish window is gone
        QVERIFY(manager.setLanguage(QStringLiteral("tr")));
        QCOMPARE(host.window()->tabs()->tabText(3), QStringLiteral("İstatistikler"));
    }

    // The explorer's tabs name different things with different words, in both languages: no word of one
    // tab (four letters or more, Turkish suffixes allowed) begins a word of another ("Akış" for Streaming
    // and "Bilgi akışı" for Flow both read "flow"). And at 1280×800 every tab is in sight, no scroll arrows.
    void tabNamesReadDistinct_data() { addLanguageRows(); }
    void tabNamesReadDistinct()
    {
        SET_ROW_LANGUAGE(manager);
        MainWindow window;
        QVERIFY(showExposed(window, QSize(1280, 800)));
        QTabWidget* tabs = window.tabs();
        static const QRegularExpression separators(QStringLiteral("[^\\w]+"),
                                                   QRegularExpression::UseUnicodePropertiesOption);
        QList<QStringList> words;
        for (int i = 0; i < tabs->count(); ++i)
            words << folded(tabs->tabText(i)).split(separators, Qt::SkipEmptyParts);
        for (int a = 0; a < tabs->count(); ++a)
            for (int b = 0; b < tabs->count(); ++b)
                for (const QString& word : words[a])
                    for (const QString& other : words[b])
                        QVERIFY2(
                            a == b || word.size() < 4 || !other.startsWith(word),
                            qPrintable(
                                QStringLiteral("“%1” and “%2”").arg(tabs->tabText(a), tabs->tabText(b))));
        QTabBar* bar = tabs->tabBar();
        for (int i = 0; i < bar->count(); ++i)
            QVERIFY2(bar->tabRect(i).right() < bar->width(), qPrintable(bar->tabText(i)));
        for (QToolButton* arrow : bar->findChildren<QToolButton*>())
            QVERIFY(!arrow->isVisible());
    }

    // Counts read as words in both languages: "1 token", "21 tokens", "21 token" (Turkish nouns stay
    // singular after a number), never "token(s)". The two messages the model picker shows by hand, then every
    // plural message of the tree (each %n string of attnscope_tr.ts, at 1 and 21) in both languages.
    void pluralsReadAsWords()
    {
        LanguageManager manager;
        auto text = [](const char* context, const char* source, int n) {
            return QCoreApplication::translate(context, source, nullptr, n);
        };
        QVERIFY(manager.setLanguage(QStringLiteral("en")));
        QCOMPARE(text("attnscope::StatusReadouts", "%n token(s)", 1), QStringLiteral("1 token"));
        QCOMPARE(text("attnscope::StatusReadouts", "%n token(s)", 21), QStringLiteral("21 tokens"));
        QCOMPARE(text("attnscope::MainWindow", "%n model(s) added from %1", 1).arg(QStringLiteral("/tmp/m")),
                 QStringLiteral("1 model added from /tmp/m"));
        QCOMPARE(text("attnscope::MainWindow", "%n model(s) added from %1", 21).arg(QStringLiteral("/tmp/m")),
                 QStringLiteral("21 models added from /tmp/m"));
        QVERIFY(manager.setLanguage(QStringLiteral("tr")));
        QCOMPARE(text("attnscope::StatusReadouts", "%n token(s)", 1), QStringLiteral("1 token"));
        QCOMPARE(text("attnscope::StatusReadouts", "%n token(s)", 21), QStringLiteral("21 token"));
        QCOMPARE(text("attnscope::MainWindow", "%n model(s) added from %1", 21).arg(QStringLiteral("/tmp/m")),
                 QStringLiteral("/tmp/m klasöründen 21 model eklendi"));

        QString error;
        const auto plurals =
            readPluralSources(kSource + QStringLiteral("/resources/translations/attnscope_tr.ts"), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(plurals.size() >= 10);
        for (const QString& language : {QStringLiteral("en"), QStringLiteral("tr")}) {
            QVERIFY(manager.setLanguage(language));
            for (const auto& [context, source] : plurals)
                for (int n : {1, 21}) {
                    const QString shown = QCoreApplication::translate(
                        context.toUtf8().constData(), source.toUtf8().constData(), nullptr, n);
                    QVERIFY2(!shown.contains(QStringLiteral("(s)")) && shown.contains(QString::number(n)),
                             qPrintable(QStringLiteral("%1, n = %2: %3").arg(language).arg(n).arg(shown)));
                }
        }
    }

    // The field's words (docs/glossary-tr.md): a message whose English source says "head" says "kafa"
    // (never "başlık"), "token" says "token" (never "belirteç"), and so on for every row of the glossary.
    void turkishUsesTheGlossary()
    {
        QString error;
        const QList<GlossaryTerm> glossary =
            readGlossary(kSource + QStringLiteral("/docs/glossary-tr.md"), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(glossary.size() >= 3);
        const QStringList required{QStringLiteral("head"), QStringLiteral("layer"), QStringLiteral("token")};
        for (const QString& term : required)
            QVERIFY2(std::any_of(glossary.begin(), glossary.end(),
                                 [&](const GlossaryTerm& g) { return g.english == term; }),
                     qPrintable(term));
        const auto messages =
            readMessages(kSource + QStringLiteral("/resources/translations/attnscope_tr.ts"), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        // Special tokens written in brackets ([MASK], [SEP]) are names, not the English words.
        static const QRegularExpression bracketed(QStringLiteral("\\[[A-Z]+\\]"));
        QStringList wrong;
        int checked = 0;
        for (const auto& [source, translation] : messages) {
            const QString english = QString(source).remove(bracketed).remove(QLatin1Char('&'));
            const QString turkish = folded(translation);
            for (const GlossaryTerm& term : glossary) {
                const QRegularExpression word(
                    QStringLiteral("\\b%1s?\\b").arg(QRegularExpression::escape(term.english)),
                    QRegularExpression::CaseInsensitiveOption);
                if (!english.contains(word)) continue;
                ++checked;
                const bool uses = std::any_of(term.turkish.begin(), term.turkish.end(),
                                              [&](const QString& w) { return turkish.contains(folded(w)); });
                const bool avoids =
                    std::none_of(term.avoided.begin(), term.avoided.end(),
                                 [&](const QString& w) { return turkish.contains(folded(w)); });
                if (!uses || !avoids)
                    wrong << QStringLiteral("%1: “%2” → “%3”").arg(term.english, source, translation);
            }
        }
        QVERIFY(checked > 50);
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QStringLiteral("\n"))));
    }

    // Labels shown in the window come translated: the heatmap's title names the head's label in Turkish.
    void heatmapTitleLabelIsTranslated()
    {
        LanguageManager manager;
        QVERIFY(manager.setLanguage(QStringLiteral("tr")));
        MainWindowHost host(&manager);
        MainWindow* window = host.window();
        int synthetic = window->findModel(QStringLiteral("Yapay kodlayıcı"));
        QVERIFY(synthetic >= 0);
        QVERIFY(window->selectEngine(synthetic));
        window->setTexts(QStringLiteral("Kupa bavula sığmadı çünkü çok büyüktü."));
        QTRY_VERIFY_WITH_TIMEOUT(window->runner()->waitForIdle(50) && window->currentResult() &&
                                     window->currentResult()->job == window->runner()->currentJob(),
                                 20000);
        const ExplorerResult& result = *window->currentResult();
        for (int layer = 0; layer < result.analysis.layers; ++layer)
            for (int head = 0; head < result.analysis.heads; ++head) {
                const HeadLabel label = result.analysis.at(layer, head).label;
                const QString title = headFrame(result, layer, head).title;
                QVERIFY2(title.endsWith(QStringLiteral("(%1)").arg(headLabelDisplayName(label))),
                         qPrintable(title));
                QVERIFY2(!title.endsWith(QStringLiteral("(%1)").arg(headLabelName(label))),
                         qPrintable(title));
                QVERIFY2(title.contains(QStringLiteral("katman %1 kafa %2").arg(layer).arg(head)),
                         qPrintable(title));
            }
        QCOMPARE(headLabelDisplayName(HeadLabel::Mixed), QStringLiteral("karışık"));
    }

    void noUnfinishedTurkishEntries()
    {
        QString error;
        const TsCount tr =
            countTs(kSource + QStringLiteral("/resources/translations/attnscope_tr.ts"), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(tr.messages > 40);
        QVERIFY2(tr.unfinished.isEmpty(),
                 qPrintable(QStringLiteral("unfinished: ") + tr.unfinished.join(QStringLiteral(" | "))));
    }

    void lreleaseReportsNoUnfinished()
    {
        const QString lrelease = qtTool("lrelease");
        QVERIFY2(QFile::exists(lrelease), qPrintable(lrelease));
        QTemporaryDir dir;
        QProcess process;
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(lrelease, {kSource + QStringLiteral("/resources/translations/attnscope_tr.ts"),
                                 QStringLiteral("-qm"), dir.filePath(QStringLiteral("tr.qm"))});
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
        process.start(lupdate, {QStringLiteral("-locations"), QStringLiteral("none"), QStringLiteral("ui"),
                                QStringLiteral("app"), QStringLiteral("core"), QStringLiteral("-ts"), copy});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 0);
        QString error;
        const TsCount tr = countTs(copy, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(tr.unfinished.isEmpty(),
                 qPrintable(QStringLiteral("not translated yet (run lupdate and translate): ") +
                            tr.unfinished.join(QStringLiteral(" | "))));
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
