// The explorer's Lesson menu and the worked example: Lesson ▸ Worked example opens the seed's numbers,
// "Open in lesson" works on the "Worked example" model too, and Text A says why it cannot be typed in
// while that model is chosen. The expected numbers are computed here by hand from the seed's Q, K and V.

#include "ui/support/shownwindow.h"
#include "explorer/syntheticengine.h"
#include "explorer/workedexampleengine.h"
#include "lesson/lessonlauncher.h"
#include "lesson/lessonview.h"
#include "lesson/lessonwindow.h"
#include "mainwindow.h"

#include <QAction>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QtTest>
#include <cmath>

using namespace attnscope;

namespace {

// The seed, as the issue gives it.
const double kQ[3][4] = {{3, 1, 3, 1}, {1, 1, 1, 5}, {3, 2, 3, 1}};
const double kK[3][4] = {{1, 0, 1, 0}, {0, 1, 0, 1}, {1, 1, 0, 0}};
const double kV[3][4] = {{2, 0, 1, 0}, {0, 2, 0, 1}, {1, 1, 2, 2}};

// Row i of softmax(Q·Kᵀ / √4), by hand.
std::array<double, 3> weights(int i)
{
    std::array<double, 3> w{};
    double sum = 0;
    for (int j = 0; j < 3; ++j) {
        double dot = 0;
        for (int c = 0; c < 4; ++c)
            dot += kQ[i][c] * kK[j][c];
        w[size_t(j)] = std::exp(dot / 2.0);
        sum += w[size_t(j)];
    }
    for (double& x : w)
        x /= sum;
    return w;
}

// Checks a lesson against the seed and the rounded figures.
void checkSeed(const LessonModel& lesson)
{
    QCOMPARE(lesson.tokens(),
             (QStringList{QStringLiteral("kedi"), QStringLiteral("mindere"), QStringLiteral("oturdu")}));
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < 4; ++c) {
            QCOMPARE(lesson.queries()(i, c), kQ[i][c]);
            QCOMPARE(lesson.keys()(i, c), kK[i][c]);
            QCOMPARE(lesson.values()(i, c), kV[i][c]);
        }
    const LessonStep& scores = lesson.step(LessonStepKind::Scores);
    const LessonStep& scaled = lesson.step(LessonStepKind::Scaling);
    const double kediScores[3] = {6, 2, 4}, kediScaled[3] = {3, 1, 2};
    for (int j = 0; j < 3; ++j) {
        QCOMPARE(scores.value(0, j), kediScores[j]);
        QCOMPARE(scaled.value(0, j), kediScaled[j]);
    }
    for (int i = 0; i < 3; ++i) {
        const auto w = weights(i);
        for (int j = 0; j < 3; ++j)
            QVERIFY(std::abs(lesson.probabilities()(i, j) - w[size_t(j)]) < 1e-12);
    }
    const double kediWeights[3] = {0.665, 0.090, 0.245};
    for (int j = 0; j < 3; ++j)
        QVERIFY(std::abs(lesson.probabilities()(0, j) - kediWeights[j]) < 5e-4);
    const double kediOutput[4] = {1.575, 0.425, 1.155, 0.579};
    for (int c = 0; c < 4; ++c)
        QVERIFY(std::abs(lesson.output()(0, c) - kediOutput[c]) < 5e-4);
    QVERIFY(std::abs(lesson.probabilities()(2, 0) - 0.547) < 5e-4); // "oturdu" → "kedi"
    // The usual 1/√d_k, explained as such.
    QCOMPARE(scaled.explanation(0, 0), QStringLiteral("6 / 2 = 3"));
}

int findEngine(const MainWindow& window, bool workedExample)
{
    const auto engines = window.engines();
    for (int i = 0; i < int(engines.size()); ++i) {
        const AttentionEngine* engine = engines[size_t(i)].get();
        if (workedExample ? dynamic_cast<const WorkedExampleEngine*>(engine) != nullptr
                          : dynamic_cast<const SyntheticEngine*>(engine) != nullptr)
            return i;
    }
    return -1;
}


} // namespace

class TestLessonMenu : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }

    void workedExampleEntryOpensTheSeed()
    {
        MainWindow window;
        QMenu* menu = window.lessonMenu();
        QVERIFY(menu);
        QVERIFY(window.menuBar()->actions().contains(menu->menuAction()));
        QAction* entry = window.lessonLauncher()->workedExampleAction();
        QVERIFY(menu->actions().contains(entry));
        QCOMPARE(entry->text(), QStringLiteral("Worked example (kedi mindere oturdu)"));
        QVERIFY(menu->actions().contains(window.openInLessonAction()));
        QVERIFY(entry->isEnabled()); // whatever the model on screen

        entry->trigger();
        const QList<LessonWindow*> lessons = window.findChildren<LessonWindow*>();
        QCOMPARE(lessons.size(), 1);
        QVERIFY(lessons.first()->isVisible());
        checkSeed(lessons.first()->view()->lesson());
    }

    void openInLessonWorksOnTheWorkedExampleModel()
    {
        MainWindow window;
        QVERIFY(window.selectEngine(findEngine(window, true)));
        QVERIFY(waitForShownResult(window));
        QVERIFY(window.openInLessonAction()->isEnabled());
        window.openInLessonAction()->trigger();
        const QList<LessonWindow*> lessons = window.findChildren<LessonWindow*>();
        QCOMPARE(lessons.size(), 1);
        checkSeed(lessons.first()->view()->lesson());
        QCOMPARE(lessons.first()->windowTitle(), QStringLiteral("Lesson — layer 0, head 0"));
    }

    // With the worked example Text A is fixed and says why, beneath and as a tooltip; typing changes
    // nothing. Another model makes it editable again and the note goes away.
    void fixedTextSaysWhy()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.selectEngine(findEngine(window, true)));
        QPlainTextEdit* text = window.textAEdit();
        QVERIFY(text->isReadOnly());
        QVERIFY(window.fixedTextNote()->isVisible());
        QVERIFY(window.fixedTextNote()->text().contains(QStringLiteral("worked example")));
        QCOMPARE(text->toolTip(), window.fixedTextNote()->text());
        text->setFocus();
        QTest::keyClicks(text, QStringLiteral(" extra"));
        QCOMPARE(text->toPlainText(), QStringLiteral("kedi mindere oturdu"));

        QVERIFY(window.selectEngine(findEngine(window, false)));
        QVERIFY(!text->isReadOnly());
        QVERIFY(!window.fixedTextNote()->isVisible());
        QVERIFY(text->toolTip().isEmpty());
        text->selectAll();
        QTest::keyClicks(text, QStringLiteral("a cat"));
        QCOMPARE(text->toPlainText(), QStringLiteral("a cat"));
    }

    // The synthetic demos have no Q, K and V: the action is disabled and the launcher says why.
    void demoHasNoLesson()
    {
        MainWindow window;
        QVERIFY(window.selectEngine(findEngine(window, false)));
        window.setTexts(QStringLiteral("a short demo"));
        QVERIFY(waitForShownResult(window));
        QVERIFY(!window.openInLessonAction()->isEnabled());
        QString message;
        QVERIFY(!window.lessonLauncher()->openHead(window.currentResult().get(), 0, 0, &message));
        QVERIFY(message.contains(QStringLiteral("synthetic demo")));
    }
};

QTEST_MAIN(TestLessonMenu)
#include "tst_lessonmenu.moc"
