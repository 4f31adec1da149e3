// The Statistics tab at 1280×800 (issue 36, point 9: "the statistics columns are cut off at 1280 px"): in
// English and Turkish every column of the built-in encoder's table (the encoder shows the most) is on screen
// at once, without a sideways scroll bar, and every header line is whole in its column.

#include "explorer/statisticscolumns.h"
#include "explorer/statisticstab.h"
#include "i18n/languagemanager.h"
#include "mainwindow.h"
#include "support/languagerows.h"
#include "ui/support/shownwindow.h"

#include <QHeaderView>
#include <QScrollBar>
#include <QStandardPaths>
#include <QStyle>
#include <QStyleOptionHeader>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>

using namespace attnscope;

class TestStatisticsFit : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void titlesStackAWordALine_data()
    {
        QTest::addColumn<QString>("title");
        QTest::addColumn<QString>("shown");
        QTest::newRow("parenthesis") << QStringLiteral("Sink mass (first token)")
                                     << QStringLiteral("Sink\nmass\n(first token)");
        QTest::newRow("two words") << QStringLiteral("Previous token") << QStringLiteral("Previous\ntoken");
        QTest::newRow("parenthesis of two words")
            << QStringLiteral("Entropi (nat, log e)") << QStringLiteral("Entropi\n(nat, log e)");
        QTest::newRow("one word") << QStringLiteral("Self") << QStringLiteral("Self");
    }
    void titlesStackAWordALine()
    {
        QFETCH(QString, title);
        QFETCH(QString, shown);
        QCOMPARE(stackedColumnTitle(title), shown);
    }

    void everyColumnFitsAt1280_data() { addLanguageRows(); }
    void everyColumnFitsAt1280()
    {
        QFETCH(QString, language);
        LanguageManager languages;
        QVERIFY(languages.setLanguage(language));
        MainWindow window;
        QVERIFY(showWithModel(window, QStringLiteral("tiny-bert-en-tr"))); // at 1280 × 800
        const QString text =
            QStringLiteral("The trophy didn't fit into the suitcase because it was too big.");
        window.setTexts(text);
        QVERIFY(waitForShownResult(window, text));
        window.tabs()->setCurrentWidget(window.statisticsTab());
        QTableView* table = window.statisticsTab()->table();
        QTRY_VERIFY(table->isVisible());
        QCoreApplication::processEvents();
        QCOMPARE(window.width(), 1280); // the table did not push the window wider than the screen
        QHeaderView* header = table->horizontalHeader();
        // A column of a selected row's cells has its header drawn bold (QTableView highlights sections).
        QFont bold = header->font();
        bold.setBold(true);
        int total = 0, shown = 0;
        for (int column = 0; column < header->count(); ++column) {
            if (table->isColumnHidden(column)) continue;
            ++shown;
            total += header->sectionSize(column);
            // What the style needs to draw the header whole (its text, margins and frame; QHeaderView's
            // own measure), with the sort arrow in the sorted column.
            QStyleOptionHeader option;
            option.initFrom(header);
            option.section = column;
            option.text = table->model()->headerData(column, Qt::Horizontal).toString();
            option.fontMetrics = QFontMetrics(bold); // highlighted sections are drawn bold
            if (header->sortIndicatorSection() == column) option.sortIndicator = QStyleOptionHeader::SortDown;
            const int needed =
                header->style()->sizeFromContents(QStyle::CT_HeaderSection, &option, QSize(), header).width();
            QVERIFY2(needed <= header->sectionSize(column),
                     qPrintable(QStringLiteral("“%1” needs %2 px in a %3-px column")
                                    .arg(option.text)
                                    .arg(needed)
                                    .arg(header->sectionSize(column))));
        }
        QVERIFY(shown >= 12); // the encoder's columns: layer, head, label and the metrics
        QVERIFY2(total <= table->viewport()->width(),
                 qPrintable(QStringLiteral("%1 px of columns in a %2-px table")
                                .arg(total)
                                .arg(table->viewport()->width())));
        QCOMPARE(table->horizontalScrollBar()->maximum(), 0);
        QVERIFY(languages.setLanguage(QStringLiteral("en")));
    }
};

QTEST_MAIN(TestStatisticsFit)
#include "tst_statistics_fit.moc"
