// Axis labels are never clipped (issue 36, point 9): in the explorer at 1280×800 and 1920×1080, from 20 to
// 300 tokens, every query and key label the heatmap draws (and the zoom window beside a long input's
// overview) lies inside its widget, is written out in full, and covers no other label. The boxes are the
// painter's own placement (HeatmapPainter::placedLabels), the data paint() draws from.

#include "explorer/analysisrunner.h"
#include "explorer/comparisonwidget.h"
#include "explorer/heatmapwidget.h"
#include "explorer/heatmapzoom.h"
#include "mainwindow.h"
#include "render/heatmappainter.h"
#include "ui/support/shownwindow.h"

#include <QTabWidget>
#include <QtTest>

using namespace attnscope;

namespace {

// Two boxes overlap by more than a hair (their common part wider and taller than 0.5 px): neighbours the
// plan spaces exactly a line apart touch, and their edges may differ in the last bits.
bool overlaps(const QRectF& a, const QRectF& b)
{
    const QRectF common = a.intersected(b);
    return common.width() > 0.5 && common.height() > 0.5;
}

// A key label's box in the frame of every key label (turned by -60°, the turn undone): all of them share the
// turn, so two overlap exactly when their boxes in that frame do.
QRectF inKeyFrame(const HeatmapPainter::PlacedLabel& label)
{
    QTransform turn;
    turn.rotate(-60);
    const QPointF anchor = turn.inverted().map(QPointF(label.transform.dx(), label.transform.dy()));
    return label.box.translated(anchor);
}

// Every problem with the labels a heatmap widget draws: one outside the widget, shortened, or on another.
QStringList labelProblems(const HeatmapWidget& widget)
{
    const HeatmapPainter painter(widget.data(), widget.heatmapStyle());
    // HeatmapWidget paints into its rectangle less 8 px on each side (HeatmapWidget::paintEvent).
    const auto placed = painter.placedLabels(
        widget.geometryForTests(), QRectF(widget.rect()).adjusted(8, 8, -8, -8), widget.font(), &widget);
    QStringList problems;
    const QRectF inside = QRectF(widget.rect()).adjusted(-0.5, -0.5, 0.5, 0.5);
    auto name = [&](const HeatmapPainter::PlacedLabel& label) {
        return QStringLiteral("%1 label %2 \"%3\"")
            .arg(label.row ? QStringLiteral("query") : QStringLiteral("key"))
            .arg(label.index)
            .arg(label.text);
    };
    for (const auto& label : placed) {
        const QRectF bounds = label.outline().boundingRect();
        if (!inside.contains(bounds))
            problems << QStringLiteral("%1 at %2,%3 %4×%5 outside the %6×%7 widget")
                            .arg(name(label))
                            .arg(bounds.x())
                            .arg(bounds.y())
                            .arg(bounds.width())
                            .arg(bounds.height())
                            .arg(widget.width())
                            .arg(widget.height());
        const QStringList& texts = label.row ? widget.data().rowLabels : widget.data().colLabels;
        if (label.text != texts.at(label.index)) problems << name(label) + QStringLiteral(" shortened");
    }
    for (size_t i = 0; i < placed.size(); ++i)
        for (size_t j = i + 1; j < placed.size(); ++j) {
            const auto &a = placed[i], &b = placed[j];
            bool covers = false;
            if (a.row && b.row)
                covers = overlaps(a.box, b.box);
            else if (!a.row && !b.row)
                covers = overlaps(inKeyFrame(a), inKeyFrame(b));
            else
                covers = a.outline().boundingRect().intersects(b.outline().boundingRect()) &&
                         !a.outline().intersected(b.outline()).boundingRect().isEmpty();
            if (covers) problems << name(a) + QStringLiteral(" covers ") + name(b);
        }
    return problems;
}

} // namespace

class TestAxisLabelsFit : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void labelsStayInsideAndApart_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("tokens");
        for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)})
            for (int tokens : {20, 40, 70, 128, 300})
                QTest::addRow("%dx%d, %d tokens", size.width(), size.height(), tokens) << size << tokens;
    }
    void labelsStayInsideAndApart()
    {
        QFETCH(QSize, size);
        QFETCH(int, tokens);
        MainWindow window;
        QVERIFY(showWithModel(window, QStringLiteral("Synthetic encoder")));
        window.resize(size);
        QTRY_COMPARE(window.size(), size);
        // Words of varied length (the synthetic encoder makes one token a word, plus [CLS] and [SEP]).
        const QStringList stems{QStringLiteral("a"),       QStringLiteral("cat"), QStringLiteral("suitcase"),
                                QStringLiteral("because"), QStringLiteral("it"),  QStringLiteral("trophy")};
        QStringList words;
        for (int i = 0; i < tokens - 2; ++i)
            words << stems.at(i % stems.size()) + QString::number(i);
        const QString text = words.join(QLatin1Char(' '));
        window.setTexts(text);
        QVERIFY(waitForShownResult(window, text));
        QCOMPARE(int(window.currentResult()->run.tokens.size()), tokens);
        QTRY_COMPARE(window.heatmap()->data().rows, tokens);
        QCoreApplication::processEvents();
        QStringList problems = labelProblems(*window.heatmap());
        auto* zoom = window.findChild<HeatmapZoomWindow*>();
        if (zoom && zoom->isVisible()) problems << labelProblems(*zoom->view());
        QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 8).join(QLatin1Char('\n'))));
    }

    // The comparison's three-pane modes lay their colour bars under the cells; their key labels reach right
    // of the cells into no bar's room. At 1280×800 none leaves its pane.
    void comparisonPaneLabelsStayInside_data()
    {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("tokens");
        for (int tokens : {12, 20, 40})
            for (int mode : {int(ComparisonWidget::Mode::SideBySide), int(ComparisonWidget::Mode::Difference),
                             int(ComparisonWidget::Mode::TwoSentences)})
                QTest::addRow("mode %d, %d tokens", mode, tokens) << mode << tokens;
    }
    void comparisonPaneLabelsStayInside()
    {
        QFETCH(int, mode);
        QFETCH(int, tokens);
        MainWindow window;
        QVERIFY(showWithModel(window, QStringLiteral("Synthetic encoder")));
        QStringList words;
        for (int i = 0; i < tokens - 2; ++i)
            words << QStringLiteral("suitcase%1").arg(i);
        const QString text = words.join(QLatin1Char(' '));
        window.setTexts(text);
        QVERIFY(waitForShownResult(window, text));
        ComparisonWidget* comparison = window.comparison();
        window.tabs()->setCurrentWidget(comparison);
        comparison->setMode(ComparisonWidget::Mode(mode));
        QVERIFY(comparison->secondRunner()->waitForIdle(60000));
        QTRY_VERIFY(!comparison->panes().empty() && comparison->panes().front()->isVisible());
        QCoreApplication::processEvents();
        QStringList problems;
        for (HeatmapWidget* pane : comparison->panes())
            problems << labelProblems(*pane);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 8).join(QLatin1Char('\n'))));
    }
};

QTEST_MAIN(TestAxisLabelsFit)
#include "tst_axis_labels_fit.moc"
