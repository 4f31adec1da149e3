// Axis ticks from the room an axis has (render/axisticks.h), and the charts that use them: at the smallest
// size the explorer window allows, no two tick labels of a chart overlap and every one stays inside it.

#include "explorer/layerchartwidget.h"
#include "generation/generatetab.h"
#include "generation/serieschart.h"
#include "generation/streamingtab.h"
#include "mainwindow.h"
#include "render/axisticks.h"
#include "settings/appsettings.h"
#include "ui/support/testsettings.h"

#include <QStandardPaths>
#include <QTabWidget>
#include <QtTest>

using namespace attnscope;

namespace {

// Labels 16 px tall need 20 px from tick to tick (the label and a quarter of it as a gap).
constexpr double kLabel = 16;

// The tick labels of a painted chart: no two overlap, each lies inside the chart. Returns a problem or "".
QString overlapOrOutside(const std::vector<QRectF>& labels, const QRectF& widget)
{
    for (size_t i = 0; i < labels.size(); ++i) {
        if (!widget.contains(labels[i]))
            return QStringLiteral("label %1 at x %2..%3, y %4..%5 outside %6×%7")
                .arg(i)
                .arg(labels[i].left())
                .arg(labels[i].right())
                .arg(labels[i].top())
                .arg(labels[i].bottom())
                .arg(widget.width())
                .arg(widget.height());
        for (size_t j = i + 1; j < labels.size(); ++j)
            if (labels[i].intersects(labels[j]))
                return QStringLiteral("labels %1 and %2 overlap (at %3,%4 and %5,%6)")
                    .arg(i)
                    .arg(j)
                    .arg(labels[i].left())
                    .arg(labels[i].top())
                    .arg(labels[j].left())
                    .arg(labels[j].top());
    }
    return {};
}

} // namespace

class TestAxisTicks : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { useEmptyTestSettings(); }

    // Hand counts: 16 px labels need 20 px per step.
    void linearTicks_data()
    {
        QTest::addColumn<double>("length");
        QTest::addColumn<int>("most");
        QTest::addColumn<QList<double>>("expected");
        QTest::newRow("quarters in 80 px") << 80.0 << 5 << QList<double>{0, 0.25, 0.5, 0.75, 1};
        QTest::newRow("halves in 79 px") << 79.0 << 5 << QList<double>{0, 0.5, 1};
        QTest::newRow("halves in 40 px") << 40.0 << 5 << QList<double>{0, 0.5, 1};
        QTest::newRow("the ends in 39 px") << 39.0 << 5 << QList<double>{0, 1};
        QTest::newRow("the ends in 20 px") << 20.0 << 5 << QList<double>{0, 1};
        QTest::newRow("the top in 19 px") << 19.0 << 5 << QList<double>{1};
        QTest::newRow("fifths in 100 px") << 100.0 << 6 << QList<double>{0, 0.2, 0.4, 0.6, 0.8, 1};
        QTest::newRow("fifths: the ends in 99 px") << 99.0 << 6 << QList<double>{0, 1};
    }
    void linearTicks()
    {
        QFETCH(double, length);
        QFETCH(int, most);
        QFETCH(QList<double>, expected);
        const std::vector<double> ticks = linearAxisTicks(0, 1, length, kLabel, most);
        QCOMPARE(QList<double>(ticks.begin(), ticks.end()), expected);
    }

    void decadeTicks_data()
    {
        QTest::addColumn<double>("length");
        QTest::addColumn<QList<double>>("expected");
        QTest::newRow("every decade in 80 px") << 80.0 << QList<double>{1, 10, 100, 1000, 10000};
        QTest::newRow("every second in 79 px") << 79.0 << QList<double>{1, 100, 10000};
        QTest::newRow("every fourth in 20 px") << 20.0 << QList<double>{1, 10000};
        QTest::newRow("the top in 19 px") << 19.0 << QList<double>{10000};
    }
    void decadeTicks()
    {
        QFETCH(double, length);
        QFETCH(QList<double>, expected);
        const std::vector<double> ticks = decadeAxisTicks(1, 10000, length, kLabel);
        QCOMPARE(QList<double>(ticks.begin(), ticks.end()), expected);
    }

    // At every length the ticks lie 1.25 labels apart or more, and a shorter axis never gets more of them.
    void ticksNeverTouchAtAnyLength()
    {
        size_t previousLinear = 0, previousDecades = 0;
        for (int length = 0; length <= 400; ++length) {
            const std::vector<double> linear = linearAxisTicks(0, 1, length, kLabel);
            const std::vector<double> decades = decadeAxisTicks(0.1, 1e5, length, kLabel);
            for (size_t i = 1; i < linear.size(); ++i)
                QVERIFY2((linear[i] - linear[i - 1]) * length >= 1.25 * kLabel - 1e-9,
                         qPrintable(QString::number(length)));
            for (size_t i = 1; i < decades.size(); ++i)
                QVERIFY2(std::log10(decades[i] / decades[i - 1]) / 6 * length >= 1.25 * kLabel - 1e-9,
                         qPrintable(QString::number(length)));
            QVERIFY(linear.size() >= previousLinear && decades.size() >= previousDecades);
            QVERIFY(length == 0 || (!linear.empty() && !decades.empty()));
            previousLinear = linear.size();
            previousDecades = decades.size();
        }
        QCOMPARE(previousLinear, size_t(5));
        QCOMPARE(previousDecades, size_t(7));
    }

    // The x axis's step labels (first, middle, last) stay inside the chart, apart, in any locale: the
    // Streaming chart's last label at 2,000 tokens was cut to "1,99" at the plot's right edge.
    void stepLabelsStayInside_data()
    {
        QTest::addColumn<int>("steps");
        QTest::addColumn<QString>("locale");
        for (int steps : {1, 2, 3, 128, 2000, 100000})
            for (const char* locale : {"en_US", "tr_TR"})
                QTest::addRow("%d steps, %s", steps, locale) << steps << QString::fromLatin1(locale);
    }
    void stepLabelsStayInside()
    {
        QFETCH(int, steps);
        QFETCH(QString, locale);
        const QLocale before;
        QLocale::setDefault(QLocale(locale));
        SeriesChartData data;
        data.title = QStringLiteral("perplexity");
        data.xLabel = QStringLiteral("token");
        data.xCount = steps;
        data.curves.push_back({QStringLiteral("full"), Qt::blue, std::vector<double>(size_t(steps), 0.5), 0});
        for (const QSize size : {QSize(200, 120), QSize(420, 220)}) {
            SeriesChartWidget chart;
            chart.setData(data);
            chart.resize(size);
            chart.grab(); // paints it
            const std::vector<QRectF>& labels = chart.xTickLabelRects();
            QCOMPARE(int(labels.size()), std::min(steps, 3));
            const QString problem = overlapOrOutside(labels, QRectF(chart.rect()));
            QLocale::setDefault(before);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
            QLocale::setDefault(QLocale(locale));
        }
        QLocale::setDefault(before);
    }

    // The smallest explorer window: the Generate tab's sink chart, the Streaming chart and the Statistics
    // tab's per-layer chart each keep their tick labels apart and inside; then at 1280×800 too.
    void chartsAtTheWindowsSmallestSize_data()
    {
        QTest::addColumn<bool>("smallest");
        QTest::newRow("smallest") << true;
        QTest::newRow("1280x800") << false;
    }
    void chartsAtTheWindowsSmallestSize()
    {
        QFETCH(bool, smallest);
        MainWindow window;
        window.resize(smallest ? QSize(1, 1) : QSize(1280, 800)); // clamped to the window's minimum size
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.runner()->waitForIdle(60000));
        QVERIFY(window.selectEngine(window.findModel(QStringLiteral("tiny-llama-en-tr"))));
        QVERIFY(window.runner()->waitForIdle(60000));
        if (smallest) { // the model's views are in: shrink to the least the window's layout allows now
            window.resize(1, 1);
            QCoreApplication::processEvents();
            QVERIFY(window.width() < 1280 && window.height() < 800);
            qInfo("the smallest window: %d×%d", window.width(), window.height());
        }
        const struct
        {
            QWidget* page;
            QWidget* chart;
            std::function<std::vector<QRectF>()> labels;
        } charts[] = {
            {window.generateTab(), window.generateTab()->sinkChart(),
             [&] { return window.generateTab()->sinkChart()->yTickLabelRects(); }},
            {window.streamingTab(), window.streamingTab()->chart(),
             [&] { return window.streamingTab()->chart()->yTickLabelRects(); }},
            {window.tabs()->widget(3), window.layerChart(),
             [&] { return window.layerChart()->yTickLabelRects(); }},
        };
        for (const auto& c : charts) {
            window.tabs()->setCurrentWidget(c.page);
            QCoreApplication::processEvents();
            QVERIFY(c.chart->isVisible());
            c.chart->grab(); // paints it at its size in the window
            const std::vector<QRectF> labels = c.labels();
            const QString name = QString::fromLatin1(c.chart->metaObject()->className());
            qInfo("%s %d×%d: %d tick labels", qPrintable(name), c.chart->width(), c.chart->height(),
                  int(labels.size()));
            QVERIFY2(!labels.empty(), qPrintable(name));
            const QString problem = overlapOrOutside(labels, QRectF(c.chart->rect()));
            QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("%1 %2×%3: %4")
                                                       .arg(name)
                                                       .arg(c.chart->width())
                                                       .arg(c.chart->height())
                                                       .arg(problem)));
        }
    }
};

QTEST_MAIN(TestAxisTicks)
#include "tst_axisticks.moc"
