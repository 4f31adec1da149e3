// AppSettings round trips through a real QSettings file: recent models, colour map, scale, measure, language and
// a main window's geometry and dock layout.

#include "settings/appsettings.h"

#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QTemporaryDir>
#include <QtTest>

using namespace attnscope;

class TestAppSettings : public QObject
{
    Q_OBJECT

    std::unique_ptr<QSettings> iniSettings() const
    {
        return std::make_unique<QSettings>(m_dir.filePath(QStringLiteral("attnscope.ini")), QSettings::IniFormat);
    }
    QTemporaryDir m_dir;

private Q_SLOTS:
    void defaults()
    {
        AppSettings settings(std::make_unique<QSettings>(m_dir.filePath(QStringLiteral("empty.ini")), QSettings::IniFormat));
        QVERIFY(settings.lastModel().isEmpty());
        QVERIFY(settings.recentModels().isEmpty());
        QCOMPARE(settings.colorMap(), ColorMapKind::Viridis);
        QCOMPARE(settings.scale(), HeatmapScale::Absolute); // never rescaled silently
        QCOMPARE(settings.measure(), AttentionMeasure::Weight);
        QVERIFY(settings.language().isEmpty());            // follow the system
    }

    void roundTrip()
    {
        {
            AppSettings settings(iniSettings());
            for (int i = 0; i < 10; ++i)
                settings.addRecentModel(QStringLiteral("model-%1").arg(i));
            settings.setLastModel(QStringLiteral("model-3"));
            settings.setColorMap(ColorMapKind::Cividis);
            settings.setScale(HeatmapScale::Log);
            settings.setMeasure(AttentionMeasure::Contribution);
            settings.setLanguage(QStringLiteral("tr"));
            settings.setPresenterMode(true);
            settings.sync();
        }
        AppSettings settings(iniSettings());
        QCOMPARE(settings.lastModel(), QStringLiteral("model-3"));
        const QStringList recent = settings.recentModels();
        QCOMPARE(recent.size(), AppSettings::kMaxRecentModels);
        QCOMPARE(recent.front(), QStringLiteral("model-3")); // most recent first, no duplicate
        QCOMPARE(recent.count(QStringLiteral("model-3")), 1);
        QCOMPARE(recent.at(1), QStringLiteral("model-9"));
        QCOMPARE(settings.colorMap(), ColorMapKind::Cividis);
        QCOMPARE(settings.scale(), HeatmapScale::Log);
        QCOMPARE(settings.measure(), AttentionMeasure::Contribution);
        settings.settings().setValue(QStringLiteral("view/measure"), QStringLiteral("bogus"));
        QCOMPARE(settings.measure(), AttentionMeasure::Weight); // an unknown value reads as the weights
        settings.setMeasure(AttentionMeasure::Contribution);
        QCOMPARE(settings.language(), QStringLiteral("tr"));
        QVERIFY(settings.presenterMode());
        settings.setLanguage(QString());
        QVERIFY(settings.language().isEmpty());
    }

    void windowLayout()
    {
        auto makeWindow = [] {
            auto* window = new QMainWindow;
            window->setObjectName(QStringLiteral("explorer"));
            window->setCentralWidget(new QLabel(QStringLiteral("centre")));
            auto* dock = new QDockWidget(QStringLiteral("stats"), window);
            dock->setObjectName(QStringLiteral("statsDock"));
            dock->setWidget(new QLabel(QStringLiteral("stats")));
            window->addDockWidget(Qt::LeftDockWidgetArea, dock);
            return window;
        };
        std::unique_ptr<QMainWindow> first(makeWindow());
        first->resize(700, 500);
        first->show();
        QVERIFY(QTest::qWaitForWindowExposed(first.get()));
        first->addDockWidget(Qt::RightDockWidgetArea, first->findChild<QDockWidget*>(QStringLiteral("statsDock")));
        {
            AppSettings settings(iniSettings());
            settings.saveWindow(*first);
        }
        std::unique_ptr<QMainWindow> second(makeWindow());
        AppSettings settings(iniSettings());
        QVERIFY(settings.restoreWindow(*second));
        QCOMPARE(second->dockWidgetArea(second->findChild<QDockWidget*>(QStringLiteral("statsDock"))), Qt::RightDockWidgetArea);
        QCOMPARE(second->size(), first->size());
    }
};

QTEST_MAIN(TestAppSettings)
#include "tst_appsettings.moc"
