// The lesson view as a user drives it: editable tables (checked by QAbstractItemModelTester), keyboard
// stepping, the hover explanation under the mouse, and the pixels of a rendered step.

#include "i18n/languagemanager.h"
#include "lesson/lessoncsv.h"
#include "lesson/lessonhistogramwidget.h"
#include "lesson/lessonmatrixtablemodel.h"
#include "lesson/lessonstepwidget.h"
#include "lesson/lessontokentablemodel.h"
#include "lesson/lessonview.h"
#include "lesson/lessonwindow.h"
#include "render/colormap.h"
#include "ui/support/languagerows.h"
#include "ui/support/shownwindow.h"

#include <QAbstractButton>
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QMenuBar>
#include <QPainter>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QStyleOptionButton>
#include <QStyleOptionComboBox>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTranslator>
#include <cmath>
#include <numeric>

using namespace attnscope;

class TestLessonView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QLocale::setDefault(QLocale::c()); } // the expected texts use '.'
    void tableModelsPassTester();
    void editingAMatrixRecomputesTheSteps();
    void keysStepThroughTheLesson_data();
    void keysStepThroughTheLesson();
    void hoverExplainsTheCell_data();
    void hoverExplainsTheCell();
    void renderedStepHasTheRightColours_data();
    void renderedStepHasTheRightColours();
    void maskedCellIsNotColoured();
    void exportWritesImagesAndCsv();
    void openInLessonReplacesTheLesson();
    void turkishAtRunTime();
    void numbersShowUpTo16Tokens_data();
    void numbersShowUpTo16Tokens();
    void histogramCountsAreTheLessons_data();
    void histogramCountsAreTheLessons();
    void multiHeadUsesTheLessonsTokens();
    void windowFitsTheScreenWithLargeFonts();
    void fitsAt1280InBothLanguages_data();
    void fitsAt1280InBothLanguages();
    void matrixGrowsWithTheWindow();
    void lessonWindowScreenshot();
};

namespace {

// A lesson like "Open in lesson" makes of a real head: n tokens with subword and special labels, d = 8,
// scores with signs and decimals.
LessonModel headLikeLesson(int n)
{
    const QStringList words{QStringLiteral("[CLS]"), QStringLiteral("The"),     QStringLiteral("cat"),
                            QStringLiteral("sat"),   QStringLiteral("on"),      QStringLiteral("the"),
                            QStringLiteral("mat"),   QStringLiteral("because"), QStringLiteral("it"),
                            QStringLiteral("was"),   QStringLiteral("warm"),    QStringLiteral("##ly"),
                            QStringLiteral("kedi"),  QStringLiteral("mindere"), QStringLiteral("oturdu"),
                            QStringLiteral("[SEP]")};
    HeadTensor t(n, 1, 8);
    for (size_t i = 0; i < t.values.size(); ++i)
        t.values[i] = float(std::sin(double(i) * 1.7) * 2.3); // fixed, varied, both signs
    return LessonModel::fromHead(t, t, t, 0, 0, n, words.mid(0, n), 1.0 / std::sqrt(8.0), false);
}

} // namespace

void TestLessonView::tableModelsPassTester()
{
    LessonView view;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
    testers.push_back(std::make_unique<QAbstractItemModelTester>(
        view.tokenModel(), QAbstractItemModelTester::FailureReportingMode::QtTest));
    for (int i = 0; i < kLessonInputCount; ++i)
        testers.push_back(std::make_unique<QAbstractItemModelTester>(
            view.matrixModel(LessonInput(i)), QAbstractItemModelTester::FailureReportingMode::QtTest));
    LessonMatrixTableModel* q = view.matrixModel(LessonInput::Q);
    QCOMPARE(q->rowCount(), 3);
    QCOMPARE(q->columnCount(), 4);
    QCOMPARE(q->headerData(0, Qt::Vertical).toString(), QStringLiteral("kedi"));
    QCOMPARE(q->data(q->index(1, 3)).toString(), QStringLiteral("5"));
    QCOMPARE(view.matrixModel(LessonInput::WQ)->rowCount(), 4);
    // Edits and shape changes under the testers.
    QVERIFY(q->setData(q->index(0, 0), 2.5));
    QVERIFY(!q->setData(q->index(0, 0), QStringLiteral("abc")));
    QVERIFY(view.tokenModel()->setData(view.tokenModel()->index(2, 0), QStringLiteral("uyudu")));
    QVERIFY(!view.tokenModel()->setData(view.tokenModel()->index(2, 0), QStringLiteral("  ")));
    LessonModel bigger = view.lesson();
    bigger.setTokenCount(6);
    view.setLesson(bigger);
    QCOMPARE(q->rowCount(), 6);
    QCOMPARE(view.tokenModel()->rowCount(), 6);
}

void TestLessonView::editingAMatrixRecomputesTheSteps()
{
    LessonView view;
    QSignalSpy changed(&view, &LessonView::lessonChanged);
    LessonMatrixTableModel* k = view.matrixModel(LessonInput::K);
    // k_kedi = [1,0,1,0] -> [2,0,1,0]: kedi's score with itself becomes 3·2 + 3·1 = 9.
    QVERIFY(k->setData(k->index(0, 0), QStringLiteral("2")));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(view.lesson().step(LessonStepKind::Scores).value(0, 0), 9.0);
    QCOMPARE(view.stepWidget()->step().value(0, 0), 9.0);
    // The minus sign U+2212 is accepted as typed from the explanations.
    QVERIFY(k->setData(k->index(0, 1), QStringLiteral("\u22121")));
    QCOMPARE(view.lesson().input(LessonInput::K)(0, 1), -1.0);
}

void TestLessonView::keysStepThroughTheLesson_data()
{
    QTest::addColumn<QList<int>>("keys");
    QTest::addColumn<int>("expected");
    QTest::newRow("right") << QList<int>{Qt::Key_Right} << 1;
    QTest::newRow("page down twice") << QList<int>{Qt::Key_PageDown, Qt::Key_PageDown} << 2;
    QTest::newRow("right then left") << QList<int>{Qt::Key_Right, Qt::Key_Right, Qt::Key_Left} << 1;
    QTest::newRow("page up at start stays") << QList<int>{Qt::Key_PageUp} << 0;
    QTest::newRow("past the end stays on 5") << QList<int>(7, Qt::Key_Right) << 4;
}

void TestLessonView::keysStepThroughTheLesson()
{
    QFETCH(QList<int>, keys);
    QFETCH(int, expected);
    LessonView view;
    view.resize(1200, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy spy(&view, &LessonView::stepChanged);
    // Keys typed while the step itself has the focus reach the view.
    view.stepWidget()->setFocus();
    for (int key : keys)
        QTest::keyClick(view.stepWidget(), Qt::Key(key));
    QCOMPARE(view.currentStep(), expected);
    QCOMPARE(view.stepWidget()->step().kind, LessonStepKind(expected));
    if (expected > 0) QVERIFY(!spy.isEmpty());
}

void TestLessonView::hoverExplainsTheCell_data()
{
    QTest::addColumn<int>("step");
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("col");
    QTest::addColumn<QString>("expected");
    QTest::newRow("scores") << 0 << 0 << 1 << QStringLiteral("kedi → mindere: 3·0 + 1·1 + 3·0 + 1·1 = 2");
    QTest::newRow("scaling") << 1 << 0 << 0 << QStringLiteral("kedi → kedi: 6 / 2 = 3");
    QTest::newRow("softmax") << 3 << 0 << 0 << QStringLiteral("kedi → kedi: e^3 / (e^3 + e^1 + e^2) = 0.665");
    QTest::newRow("output") << 4 << 0 << 0
                            << QStringLiteral("kedi → d1: 0.665·2 + 0.090·0 + 0.245·1 = 1.575");
}

void TestLessonView::hoverExplainsTheCell()
{
    QFETCH(int, step);
    QFETCH(int, row);
    QFETCH(int, col);
    QFETCH(QString, expected);
    LessonView view;
    view.resize(1200, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setCurrentStep(step);
    LessonStepWidget* widget = view.stepWidget();
    const QPointF centre = widget->currentLayout().cellRect(row, col).center();
    QCOMPARE(widget->hoverText(centre), expected);
    // Deliver the move straight to the widget: the event-to-read-out path is what is under test, and a
    // move through the X server (QTest::mouseMove) is sometimes coalesced away under xvfb when the pointer
    // already sits there, which made this row flaky.
    QMouseEvent move(QEvent::MouseMove, centre, widget->mapToGlobal(centre), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QCoreApplication::sendEvent(widget, &move);
    QTRY_COMPARE(view.hoverReadout(), expected);
    QVERIFY(widget->hoverText(QPointF(1, 1)).isEmpty());
}

void TestLessonView::renderedStepHasTheRightColours_data()
{
    QTest::addColumn<int>("step");
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("col");
    QTest::addColumn<double>("t");
    // Softmax: the probability itself (0.665 for kedi → kedi). Scores: the cell's place between the
    // matrix's min and max (scores 2..12: q_mindere·k_mindere = 1 + 5 = 6, so (6 − 2) / 10 ... computed
    // below).
    QTest::newRow("softmax kedi kedi")
        << 3 << 0 << 0 << std::exp(3.0) / (std::exp(3.0) + std::exp(1.0) + std::exp(2.0));
    QTest::newRow("softmax oturdu mindere")
        << 3 << 2 << 1 << std::exp(1.5) / (std::exp(3.0) + std::exp(1.5) + std::exp(2.5));
    // Scores of the example: [[6,2,4],[2,6,2],[6,3,5]]: min 2, max 6.
    QTest::newRow("scores kedi oturdu") << 0 << 0 << 2 << (4.0 - 2.0) / (6.0 - 2.0);
    QTest::newRow("scores mindere kedi") << 0 << 1 << 0 << 0.0;
}

void TestLessonView::renderedStepHasTheRightColours()
{
    QFETCH(int, step);
    QFETCH(int, row);
    QFETCH(int, col);
    QFETCH(double, t);
    const LessonModel lesson;
    const LessonStep& s = lesson.step(step);
    const LessonPaintStyle style;
    const QImage image = renderLessonStepImage(s, style, QSize(900, 600));
    QImage probe(QSize(900, 600), QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&probe);
    const LessonStepLayout layout =
        LessonStepPainter(s, style).layout(QRectF(12, 12, 900 - 24, 600 - 24), painter);
    const QRectF cell = layout.cellRect(row, col);
    QVERIFY(cell.width() > 20 && cell.height() > 20);
    // Just inside the corner: away from the grid line and the number.
    const QPoint inside = (cell.topLeft() + QPointF(4, 4)).toPoint();
    QCOMPARE(QColor(image.pixel(inside)), QColor(colorMapColor(ColorMapKind::Viridis, t)));
}

void TestLessonView::maskedCellIsNotColoured()
{
    LessonModel lesson;
    lesson.setCausal(true);
    const LessonStep& s = lesson.step(LessonStepKind::Mask);
    QVERIFY(!LessonStepPainter::colorParameter(s, 0, 2).has_value());
    QCOMPARE(LessonStepPainter::cellText(s, 0, 2), QStringLiteral("\u2212\u221E"));
    const QImage image = renderLessonStepImage(s, LessonPaintStyle{}, QSize(900, 600));
    QImage probe(QSize(900, 600), QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&probe);
    const QRectF cell =
        LessonStepPainter(s, LessonPaintStyle{}).layout(QRectF(12, 12, 876, 576), painter).cellRect(0, 2);
    // Hatched grey: no pixel of the cell's corner area is coloured.
    for (int dx = 3; dx < 10; ++dx)
        for (int dy = 3; dy < 10; ++dy) {
            const QColor c(image.pixel((cell.topLeft() + QPointF(dx, dy)).toPoint()));
            QVERIFY(std::abs(c.red() - c.green()) < 3 && std::abs(c.green() - c.blue()) < 3);
        }
    // The softmax step shows the same cells hatched, with their weight 0.
    const LessonStep& p = lesson.step(LessonStepKind::Softmax);
    QVERIFY(p.isMasked(0, 2) && !p.isMasked(2, 0));
    QVERIFY(!LessonStepPainter::colorParameter(p, 0, 2).has_value());
    QCOMPARE(LessonStepPainter::cellText(p, 0, 2), QStringLiteral("0.000"));
    QVERIFY(LessonStepPainter::colorParameter(p, 2, 0).has_value());
}

void TestLessonView::exportWritesImagesAndCsv()
{
    LessonView view;
    QTemporaryDir dir;
    QStringList written;
    QString error;
    QVERIFY2(view.exportAll(dir.path(), &written, &error), qPrintable(error));
    QCOMPARE(written.size(), 5 * 2 + 3); // five steps as PNG and CSV, then Q, K and V
    const QImage png(dir.filePath(QStringLiteral("step4-softmax.png")));
    QCOMPARE(png.size(), QSize(1000, 640));
    QFile csv(dir.filePath(QStringLiteral("step4-softmax.csv")));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csv.readAll().split('\n');
    QCOMPARE(lines.at(0), QByteArray(",kedi,mindere,oturdu"));
    const QList<QByteArray> kedi = lines.at(1).split(',');
    QCOMPARE(kedi.at(0), QByteArray("kedi"));
    for (int c = 0; c < 3; ++c) // full precision: the numbers round-trip exactly
        QCOMPARE(kedi.at(c + 1).toDouble(), view.lesson().probabilities()(0, c));
    QVERIFY(!view.exportStepCsv(dir.filePath(QStringLiteral("missing/x.csv")), 0, &error));
    QVERIFY(error.contains(QStringLiteral("x.csv")));
}

void TestLessonView::openInLessonReplacesTheLesson()
{
    LessonView view;
    view.setCurrentStep(3);
    Eigen::MatrixXd q = Eigen::MatrixXd::Identity(4, 2), k = q, v = q;
    const LessonModel head = LessonModel::fromMatrices(
        q, k, v, {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")}, 0.5,
        true);
    view.setLesson(head);
    QCOMPARE(view.matrixModel(LessonInput::Q)->rowCount(), 4);
    QCOMPARE(view.stepWidget()->step().rowLabels.at(3), QStringLiteral("d"));
    QCOMPARE(view.stepWidget()->step().value(0, 1), 0.0); // causal: a does not see b

    // From a head tensor: 17 tokens is more than a lesson shows; the view says so and keeps its lesson.
    HeadTensor t(20, 1, 2);
    for (size_t i = 0; i < t.values.size(); ++i)
        t.values[i] = float(i % 7) * 0.25f;
    QString error;
    QVERIFY(!view.openHead(t, t, t, 0, 0, 17, {}, 0.5, true, &error));
    QVERIFY(error.contains(QStringLiteral("16")));
    QCOMPARE(view.lesson().tokenCount(), 4);
    QVERIFY2(view.openHead(t, t, t, 0, 0, 16, {}, 0.5, true, &error), qPrintable(error));
    QCOMPARE(view.lesson().tokenCount(), 16);
    QCOMPARE(view.matrixModel(LessonInput::K)->rowCount(), 16);
}

// Installing the Turkish translation turns the lesson Turkish at once (steps, read-out, menus), keeping the
// lesson and the step; removing it brings English back.
void TestLessonView::turkishAtRunTime()
{
    LessonWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    LessonModel lesson;
    lesson.setCausal(true);
    window.view()->setLesson(lesson);
    window.view()->setCurrentStep(2);
    QTranslator turkish;
    QVERIFY(turkish.load(QStringLiteral(":/i18n/attnscope_tr.qm")));
    QCoreApplication::installTranslator(&turkish);
    QTRY_COMPARE(window.menuBar()->actions().first()->text(), QStringLiteral("&Dosya"));
    QTRY_COMPARE(window.view()->stepWidget()->step().title, QStringLiteral("3. Maske"));
    QCOMPARE(window.view()->currentStep(), 2);
    QVERIFY(window.view()->lesson().options().causal);
    QCOMPARE(window.view()->hoverReadout(),
             QStringLiteral("Sayısının nasıl hesaplandığını görmek için bir hücrenin üzerine gelin."));
    QCOMPARE(window.view()->lesson().step(LessonStepKind::Mask).explanation(1, 1),
             QStringLiteral("3 (görünür)"));
    // Numbers follow the default locale, which LanguageManager sets with the language: a translator
    // alone leaves the '.'; the Turkish locale writes a decimal comma.
    QCOMPARE(window.view()->lesson().step(LessonStepKind::Softmax).explanation(0, 0),
             QStringLiteral("e^3 / (e^3) = 1.000"));
    QLocale::setDefault(QLocale(QLocale::Turkish, QLocale::Turkey));
    LessonModel turkishNumbers;
    QCOMPARE(turkishNumbers.step(LessonStepKind::Softmax).explanation(0, 0),
             QStringLiteral("e^3 / (e^3 + e^1 + e^2) = 0,665"));
    QCOMPARE(LessonStepPainter::cellText(turkishNumbers.step(LessonStepKind::Output), 0, 0),
             QStringLiteral("1,575"));
    QLocale::setDefault(QLocale::c());
    QCoreApplication::removeTranslator(&turkish);
    QTRY_COMPARE(window.menuBar()->actions().first()->text(), QStringLiteral("&File"));
    QTRY_COMPARE(window.view()->stepWidget()->step().title, QStringLiteral("3. Mask"));
}

void TestLessonView::numbersShowUpTo16Tokens_data()
{
    QTest::addColumn<int>("tokens");
    QTest::addColumn<bool>("large");
    for (int n : {3, 12, 16})
        for (bool large : {false, true})
            QTest::addRow("%d tokens%s", n, large ? " large fonts" : "") << n << large;
}

// In the lesson window at 1280×800 every cell of every step keeps its number (the font shrinks to fit),
// and no column or row label is cut: horizontal labels fit their column, vertical ones their strip.
void TestLessonView::numbersShowUpTo16Tokens()
{
    QFETCH(int, tokens);
    QFETCH(bool, large);
    LessonWindow window;
    window.resize(1280, 800);
    window.view()->setLargeFonts(large);
    window.view()->setLesson(tokens == 3 ? LessonModel() : headLikeLesson(tokens));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    LessonStepWidget* widget = window.view()->stepWidget();
    for (int step = 0; step < kLessonStepCount; ++step) {
        window.view()->setCurrentStep(step);
        QCoreApplication::processEvents();
        const LessonStep& s = widget->step();
        const LessonStepLayout layout = widget->currentLayout();
        QVERIFY2(layout.showNumbers, qPrintable(QStringLiteral("step %1: cells %2×%3 px")
                                                    .arg(step + 1)
                                                    .arg(layout.cellWidth)
                                                    .arg(layout.cellHeight)));
        QVERIFY(layout.cellPointSize >= LessonStepLayout::kMinCellPointSize);
        QFont cellFont = widget->font();
        cellFont.setPointSizeF(layout.cellPointSize);
        const QFontMetricsF cellMetrics(cellFont, widget);
        for (int r = 0; r < s.rows(); ++r)
            for (int c = 0; c < s.cols(); ++c)
                QVERIFY(cellMetrics.horizontalAdvance(
                            LessonStepPainter::cellText(s, r, c, layout.decimals)) <= layout.cellWidth - 2);
        QFont labelFont = widget->font();
        labelFont.setPointSizeF(layout.labelPointSize);
        const QFontMetricsF labelMetrics(labelFont, widget);
        QVERIFY(labelMetrics.height() <= layout.cellHeight); // row labels do not run into each other
        if (layout.verticalColumnLabels) QVERIFY(labelMetrics.height() <= layout.cellWidth);
        for (const QString& label : s.colLabels)
            QVERIFY2(labelMetrics.horizontalAdvance(label) <=
                         (layout.verticalColumnLabels ? layout.colLabelHeight : layout.cellWidth - 2),
                     qPrintable(label));
        for (const QString& label : s.rowLabels)
            QVERIFY2(labelMetrics.horizontalAdvance(label) <= layout.rowLabelWidth, qPrintable(label));
    }
    // And the pixels: the softmax cell of the last row, last column holds more than its fill colour.
    window.view()->setCurrentStep(int(LessonStepKind::Softmax));
    QCoreApplication::processEvents();
    const QImage image = widget->grab().toImage();
    const QRect cell =
        widget->currentLayout().cellRect(tokens - 1, tokens - 1).toRect().adjusted(2, 2, -2, -2);
    const QColor fill(image.pixel(cell.topLeft()));
    int other = 0;
    for (int y = cell.top(); y <= cell.bottom(); ++y)
        for (int x = cell.left(); x <= cell.right(); ++x)
            other += QColor(image.pixel(x, y)) != fill;
    QVERIFY2(other > 8, "no number drawn in the cell");
}

void TestLessonView::histogramCountsAreTheLessons_data()
{
    QTest::addColumn<int>("tokens");
    QTest::newRow("worked example") << 3;
    QTest::newRow("16 tokens") << 16;
}

// The √d_k experiment draws as many keys per query as the lesson has tokens, says so, and its bars count
// every score once.
void TestLessonView::histogramCountsAreTheLessons()
{
    QFETCH(int, tokens);
    LanguageManager english; // English plural forms ("1 key", "3 keys"), as the application loads them
    QVERIFY(english.setLanguage(QStringLiteral("en")));
    LessonView view;
    view.setLesson(tokens == 3 ? LessonModel() : headLikeLesson(tokens));
    const ScoreHistogram& h = view.histogramWidget()->histogram();
    const int total = std::accumulate(h.counts.begin(), h.counts.end(), 0);
    QCOMPARE(total, 200 * tokens);
    const QString text = view.dkExperimentText();
    QVERIFY2(text.contains(QStringLiteral("200 random queries × %1 keys each").arg(tokens)),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("= %1 scores").arg(QLocale().toString(200 * tokens))),
             qPrintable(text));
    QVERIFY(!text.contains(QStringLiteral("10 keys")));
}

// The Multi-head tab splits the lesson's own Q, K and V: its panels carry the lesson's tokens, and each
// head's weights are an ordinary softmax over that head's columns (checked here by hand).
void TestLessonView::multiHeadUsesTheLessonsTokens()
{
    LessonView view;
    const QStringList tokens{QStringLiteral("[CLS]"), QStringLiteral("The"), QStringLiteral("cat")};
    Eigen::MatrixXd q(3, 4), k(3, 4), v(3, 4);
    q << 1, 0, 2, 1, 0, 1, 1, 0, 2, 1, 0, 1;
    k << 1, 1, 0, 2, 0, 2, 1, 0, 1, 0, 1, 1;
    v << 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12;
    view.setLesson(LessonModel::fromMatrices(q, k, v, tokens, std::nullopt, false));
    const auto& panels = view.multiHeadWidgets();
    QCOMPARE(int(panels.size()), 2 + 1); // two heads (the default), then the concatenated outputs
    for (LessonStepWidget* panel : panels)
        QCOMPARE(panel->step().rowLabels, tokens);
    QCOMPARE(panels[0]->step().colLabels, tokens);
    // Head 2 uses columns 2 and 3: [CLS]'s scores with the three keys, scaled by 1/√2.
    const double s0 = (2 * 0 + 1 * 2) / std::sqrt(2.0), s1 = (2 * 1 + 1 * 0) / std::sqrt(2.0),
                 s2 = (2 * 1 + 1 * 1) / std::sqrt(2.0);
    const double sum = std::exp(s0) + std::exp(s1) + std::exp(s2);
    QVERIFY(std::abs(panels[1]->step().value(0, 2) - std::exp(s2) / sum) < 1e-12);
}

// With large fonts the lesson window still fits a 1280×800 screen, and it opens no larger than the screen.
void TestLessonView::windowFitsTheScreenWithLargeFonts()
{
    LessonWindow window;
    window.view()->setLargeFonts(true);
    window.view()->setLesson(headLikeLesson(16));
    for (int tab = 0; tab < window.view()->experimentTabs()->count(); ++tab)
        window.view()->experimentTabs()->setCurrentIndex(tab);
    QCoreApplication::processEvents();
    const QSize minimum = window.minimumSizeHint();
    QVERIFY2(minimum.width() <= 1280 && minimum.height() <= 800,
             qPrintable(QStringLiteral("minimum %1×%2").arg(minimum.width()).arg(minimum.height())));
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.size(), QSize(1280, 800));
    LessonWindow fresh;
    const QSize screen = fresh.screen()->availableGeometry().size();
    QVERIFY(fresh.width() <= screen.width() && fresh.height() <= screen.height());
}

void TestLessonView::fitsAt1280InBothLanguages_data()
{
    addLanguageRows();
}

// The lesson window at 1280×800 in English and Turkish: no combo box item is elided (measured as the style
// elides a combo's text, in its edit field), every tab of every tab bar is inside the bar with no scroll
// arrows, and the "Save…" button's menu arrow has room of its own beside the text.
void TestLessonView::fitsAt1280InBothLanguages()
{
    SET_ROW_LANGUAGE(languages);
    LessonWindow window;
    QVERIFY(showExposed(window, QSize(1280, 800)));
    QCoreApplication::processEvents();
    QCOMPARE(window.size(), QSize(1280, 800));
    const auto combos = window.findChildren<QComboBox*>();
    QVERIFY(!combos.isEmpty());
    for (QComboBox* combo : combos) {
        if (!combo->isVisible()) continue;
        QStyleOptionComboBox option;
        option.initFrom(combo);
        option.editable = combo->isEditable();
        option.frame = combo->hasFrame();
        const QRect field =
            combo->style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, combo);
        for (int i = 0; i < combo->count(); ++i) {
            const QString text = combo->itemText(i);
            QVERIFY2(combo->fontMetrics().elidedText(text, Qt::ElideRight, field.width()) == text,
                     qPrintable(QStringLiteral("\"%1\" in a %2 px field").arg(text).arg(field.width())));
        }
    }
    const auto bars = window.findChildren<QTabBar*>();
    QVERIFY(!bars.isEmpty());
    for (QTabBar* bar : bars) {
        if (!bar->isVisible()) continue;
        for (int i = 0; i < bar->count(); ++i) {
            const QRect tab = bar->tabRect(i);
            QVERIFY2(tab.left() >= 0 && tab.right() < bar->width(),
                     qPrintable(QStringLiteral("tab \"%1\" at %2..%3 in a %4 px bar")
                                    .arg(bar->tabText(i))
                                    .arg(tab.left())
                                    .arg(tab.right())
                                    .arg(bar->width())));
        }
        for (QToolButton* arrow : bar->findChildren<QToolButton*>())
            QVERIFY2(!arrow->isVisible(), qPrintable(bar->tabText(0)));
    }
    // Buttons (the experiment choice among them) are at least as wide as their text needs.
    for (QAbstractButton* button : window.findChildren<QAbstractButton*>())
        if (button->isVisible() && !button->text().isEmpty())
            QVERIFY2(button->width() >= button->sizeHint().width(),
                     qPrintable(QStringLiteral("\"%1\" %2 px wide, needs %3")
                                    .arg(button->text())
                                    .arg(button->width())
                                    .arg(button->sizeHint().width())));
    auto* save = window.findChild<QPushButton*>(QStringLiteral("saveMenuButton"));
    QVERIFY(save && save->menu() && save->isVisible());
    QStyleOptionButton option;
    option.initFrom(save);
    option.text = save->text();
    option.features = QStyleOptionButton::HasMenu;
    const QRect contents = save->style()->subElementRect(QStyle::SE_PushButtonContents, &option, save);
    const int arrow = save->style()->pixelMetric(QStyle::PM_MenuButtonIndicator, &option, save);
    QVERIFY2(save->fontMetrics().horizontalAdvance(save->text()) <= contents.width() - arrow,
             qPrintable(QStringLiteral("%1 px of text, %2 px less a %3 px arrow")
                            .arg(save->fontMetrics().horizontalAdvance(save->text()))
                            .arg(contents.width())
                            .arg(arrow)));
}

// A small lesson's matrix uses the room it has: at 1920×1080 the worked example's cells are larger than
// at 1280×800 (in proportion to the step's room, within a fifth), with every number shown.
void TestLessonView::matrixGrowsWithTheWindow()
{
    QSizeF block[2], room[2];
    int i = 0;
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
        LessonWindow window;
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCoreApplication::processEvents();
        LessonStepWidget* widget = window.view()->stepWidget();
        const LessonStepLayout layout = widget->currentLayout();
        QVERIFY(layout.showNumbers);
        block[i] = layout.cells.size();
        room[i] = widget->size();
        ++i;
    }
    const double grown = block[1].width() / block[0].width();
    const double roomier = std::min(room[1].width() / room[0].width(), room[1].height() / room[0].height());
    QVERIFY2(grown > 1.15 && grown > 0.8 * roomier,
             qPrintable(QStringLiteral("cells %1 px wide at 1280, %2 px at 1920; the step's room grew %3×")
                            .arg(block[0].width())
                            .arg(block[1].width())
                            .arg(roomier)));
}

// Under xvfb: ATTNSCOPE_LESSON_SCREENSHOT=/path/shot.png writes what the window looks like.
void TestLessonView::lessonWindowScreenshot()
{
    LessonWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.view()->setCurrentStep(3);
    const QByteArray path = qgetenv("ATTNSCOPE_LESSON_SCREENSHOT");
    if (path.isEmpty()) return;
    if (qEnvironmentVariableIsSet("ATTNSCOPE_LESSON_LARGE")) window.view()->setLargeFonts(true);
    LessonStepWidget* step = window.view()->stepWidget();
    QTest::mouseMove(step, QPoint(2, 2));
    QTest::mouseMove(step, step->currentLayout().cellRect(2, 0).center().toPoint());
    QTest::qWait(200);
    const QString base = QString::fromLocal8Bit(path);
    QVERIFY(window.grab().save(base));
    // One more picture per experiment tab: base-tab1.png, ...
    for (QTabWidget* tabs : window.findChildren<QTabWidget*>()) {
        if (tabs->tabText(0) != QStringLiteral("Scaling")) continue;
        for (int t = 1; t < tabs->count(); ++t) {
            tabs->setCurrentIndex(t);
            QTest::qWait(100);
            QString name = base;
            name.replace(QStringLiteral(".png"), QStringLiteral("-tab%1.png").arg(t));
            QVERIFY(window.grab().save(name));
        }
        // Positions with RoPE (dials) and the projection inputs.
        tabs->setCurrentIndex(2);
        LessonModel rope;
        rope.setInputMode(LessonInputMode::Projections);
        rope.setPositions(LessonPositions::Rope, 10.0);
        window.view()->setLesson(rope);
        QTest::qWait(100);
        QString name = base;
        name.replace(QStringLiteral(".png"), QStringLiteral("-rope.png"));
        QVERIFY(window.grab().save(name));
    }
}

QTEST_MAIN(TestLessonView)
#include "tst_lessonview.moc"
