// The lesson's data model against hand computation (the worked example), core's attention (the
// reference implementation) and the properties of the math (permutation, relative positions).

#include "attention/attention.h"
#include "attention/rope.h"
#include "attention/workedexample.h"
#include "lesson/dkexperiment.h"
#include "lesson/lessonmodel.h"
#include "lesson/lessonnumbers.h"
#include "lesson/multiheadlesson.h"
#include "support/testdata.h"

#include <QLocale>
#include <QTest>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

// A small evaluator for the lesson's explanation strings: numbers, −∞, e^x, +, ·, /, parentheses and
// the unary minus sign U+2212. It re-does the arithmetic the explanation shows.
class ExpressionParser
{
public:
    explicit ExpressionParser(QString text) : m_text(std::move(text)) {}

    double parse(bool* ok)
    {
        m_ok = true;
        const double v = sum();
        skipSpaces();
        *ok = m_ok && m_pos == m_text.size();
        return v;
    }

private:
    void skipSpaces()
    {
        while (m_pos < m_text.size() && m_text[m_pos] == QLatin1Char(' '))
            ++m_pos;
    }
    bool take(QChar c)
    {
        skipSpaces();
        if (m_pos < m_text.size() && m_text[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }
    double sum()
    {
        double v = product();
        while (take(QLatin1Char('+')))
            v += product();
        return v;
    }
    double product()
    {
        double v = factor();
        for (;;) {
            if (take(QChar(0x00B7)))
                v *= factor();
            else if (take(QLatin1Char('/')))
                v /= factor();
            else
                return v;
        }
    }
    double factor()
    {
        if (take(QChar(0x2212)))
            return -factor();
        if (take(QLatin1Char('('))) {
            const double v = sum();
            if (!take(QLatin1Char(')')))
                m_ok = false;
            return v;
        }
        skipSpaces();
        if (m_pos + 1 < m_text.size() && m_text[m_pos] == QLatin1Char('e') && m_text[m_pos + 1] == QLatin1Char('^')) {
            m_pos += 2;
            return std::exp(factor());
        }
        if (take(QChar(0x221E)))
            return std::numeric_limits<double>::infinity();
        const int start = m_pos;
        while (m_pos < m_text.size() && (m_text[m_pos].isDigit() || m_text[m_pos] == QLatin1Char('.')))
            ++m_pos;
        bool ok = false;
        const double v = m_text.mid(start, m_pos - start).toDouble(&ok);
        if (!ok)
            m_ok = false;
        return v;
    }

    QString m_text;
    int m_pos = 0;
    bool m_ok = true;
};

double evaluate(const QString& text)
{
    bool ok = false;
    const double v = ExpressionParser(text).parse(&ok);
    if (!ok)
        throw std::runtime_error("cannot parse: " + text.toStdString());
    return v;
}

// "lhs = rhs (words)" -> {lhs, rhs}; text without " = " gives {"", text without words}.
std::pair<QString, QString> splitExplanation(const QString& text)
{
    const int eq = text.lastIndexOf(QStringLiteral(" = "));
    QString rhs = eq < 0 ? text : text.mid(eq + 3);
    const int words = rhs.indexOf(QStringLiteral(" ("));
    if (words >= 0)
        rhs.truncate(words);
    return {eq < 0 ? QString() : text.left(eq), rhs};
}

HeadTensor toTensor(const Eigen::MatrixXd& m)
{
    HeadTensor t(int(m.rows()), 1, int(m.cols()));
    for (int r = 0; r < m.rows(); ++r)
        for (int c = 0; c < m.cols(); ++c)
            t.at(r, 0, c) = float(m(r, c));
    return t;
}

} // namespace

class TestLesson : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void workedExampleNumbers_data();
    void workedExampleNumbers();
    void formulas();
    void hoverExplanations_data();
    void hoverExplanations();
    void workedExampleExplanationsVerbatim();
    void noScaleEqualsSoftmaxOfScores();
    void scaledEqualsCoreAttention();
    void causalHasZerosAboveTheDiagonal();
    void dkExperimentCollapses_data();
    void dkExperimentCollapses();
    void dkExperimentIsSeeded();
    void openInLessonReproducesHeadPrefix();
    void openInLessonLaterRangeIsRenormalised();
    void openInLessonRejectsBadRanges();
    void permutationWithoutPositionsPermutesOutput();
    void ropeMatchesCoreAndIsRelative();
    void projectionsMode();
    void tokenCountAndShapes();
    void multiHead();
    void multiHeadSplitsTheLessonsOwnNumbers();
    void numbersFollowTheLocale();
    void usualScaleIsExplainedAsTheRoot();
};

void TestLesson::workedExampleNumbers_data()
{
    QTest::addColumn<int>("step");
    QTest::addColumn<int>("row");
    QTest::addColumn<QList<double>>("expected");
    // Hand computation, as in the issue: kedi's scores, the scaling by √4 = 2, the softmax, the output.
    QTest::newRow("scores kedi") << 0 << 0 << QList<double>{6, 2, 4};
    QTest::newRow("scaled kedi") << 1 << 0 << QList<double>{3, 1, 2};
    QTest::newRow("masked kedi (no mask)") << 2 << 0 << QList<double>{3, 1, 2};
    QTest::newRow("softmax kedi") << 3 << 0 << QList<double>{0.665, 0.090, 0.245};
    QTest::newRow("output kedi") << 4 << 0 << QList<double>{1.575, 0.425, 1.155, 0.579};
    QTest::newRow("scores oturdu") << 0 << 2 << QList<double>{6, 3, 5};
    QTest::newRow("softmax oturdu") << 3 << 2 << QList<double>{0.547, 0.122, 0.331};
}

void TestLesson::workedExampleNumbers()
{
    QFETCH(int, step);
    QFETCH(int, row);
    QFETCH(QList<double>, expected);
    const LessonModel lesson;
    QCOMPARE(lesson.tokens(), (QStringList{QStringLiteral("kedi"), QStringLiteral("mindere"), QStringLiteral("oturdu")}));
    const LessonStep& s = lesson.step(step);
    QCOMPARE(s.cols(), int(expected.size()));
    for (int c = 0; c < s.cols(); ++c)
        QVERIFY2(std::abs(s.value(row, c) - expected[c]) < 5e-4,
                 qPrintable(QStringLiteral("col %1: %2 vs %3").arg(c).arg(s.value(row, c)).arg(expected[c])));
    // More than half of oturdu's attention goes to its subject.
    QVERIFY(lesson.probabilities()(2, 0) > 0.5);
}

void TestLesson::formulas()
{
    LessonModel lesson;
    QCOMPARE(lesson.step(LessonStepKind::Scores).formula, QStringLiteral("S = Q·Kᵀ"));
    QCOMPARE(lesson.step(LessonStepKind::Scaling).formula, QStringLiteral("S / √d_k = S / 2"));
    QCOMPARE(lesson.step(LessonStepKind::Output).formula, QStringLiteral("O = P·V"));
    QCOMPARE(lesson.step(LessonStepKind::Output).colLabels.size(), 4);
    lesson.setScaling(false);
    QVERIFY(!lesson.step(LessonStepKind::Scaling).formula.contains(QStringLiteral("/ 2")));
}

void TestLesson::hoverExplanations_data()
{
    QTest::addColumn<bool>("scaling");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<bool>("rope");
    QTest::addColumn<bool>("random");
    QTest::addColumn<double>("headScale"); // 0: 1/√d_k
    QTest::newRow("example") << true << false << false << false << 0.0;
    QTest::newRow("example causal") << true << true << false << false << 0.0;
    QTest::newRow("example unscaled") << false << false << false << false << 0.0;
    QTest::newRow("example rope") << true << false << true << false << 0.0;
    QTest::newRow("random causal") << true << true << false << true << 0.0;
    QTest::newRow("random causal, head scale") << true << true << false << true << 0.3;
    QTest::newRow("random rope") << true << false << true << true << 0.0;
}

// Every cell's explanation, parsed back and re-evaluated, gives the number it claims, and that number is
// the cell's value. The explanation shows factors rounded to 3 decimals, so the re-evaluation can differ
// from the exact value by the rounding of its terms.
void TestLesson::hoverExplanations()
{
    QFETCH(bool, scaling);
    QFETCH(bool, causal);
    QFETCH(bool, rope);
    QFETCH(bool, random);
    QFETCH(double, headScale);
    LessonModel lesson;
    if (random) {
        std::mt19937 rng(7);
        std::uniform_real_distribution<double> uniform(-2, 2);
        Eigen::MatrixXd q(5, 4), k(5, 4), v(5, 3);
        for (Eigen::MatrixXd* m : {&q, &k, &v})
            for (int i = 0; i < m->size(); ++i)
                m->data()[i] = uniform(rng);
        lesson = LessonModel::fromMatrices(q, k, v, {}, headScale > 0 ? std::optional<double>(headScale) : std::nullopt,
                                           causal);
    }
    LessonOptions o = lesson.options();
    o.scaling = scaling;
    o.causal = causal;
    o.positions = rope ? LessonPositions::Rope : LessonPositions::None;
    o.ropeTheta = 100;
    lesson.setOptions(o);
    int checked = 0;
    for (int s = 0; s < kLessonStepCount; ++s) {
        const LessonStep& step = lesson.step(s);
        QCOMPARE(int(step.explanations.size()), step.rows() * step.cols());
        for (int r = 0; r < step.rows(); ++r)
            for (int c = 0; c < step.cols(); ++c) {
                const QString text = step.explanation(r, c);
                const auto [lhs, rhs] = splitExplanation(text);
                const double shown = evaluate(rhs);
                const double value = step.value(r, c);
                const QString where = QStringLiteral("step %1 (%2,%3): %4").arg(s + 1).arg(r).arg(c).arg(text);
                if (std::isinf(value))
                    QVERIFY2(std::isinf(shown) && shown < 0, qPrintable(where));
                else
                    QVERIFY2(std::abs(shown - value) <= 5e-4 + 1e-12, qPrintable(where));
                if (!lhs.isEmpty()) {
                    const double recomputed = evaluate(lhs);
                    const double tolerance = step.kind == LessonStepKind::Softmax ? 2e-3 : 2e-2;
                    QVERIFY2(std::abs(recomputed - shown) <= tolerance,
                             qPrintable(where + QStringLiteral(" re-evaluates to %1").arg(recomputed)));
                }
                ++checked;
            }
    }
    QVERIFY(checked > 0);
}

void TestLesson::workedExampleExplanationsVerbatim()
{
    const LessonModel lesson;
    // q_kedi · k_mindere = 3·0 + 1·1 + 3·0 + 1·1 = 2.
    QCOMPARE(lesson.step(LessonStepKind::Scores).explanation(0, 1), QStringLiteral("3·0 + 1·1 + 3·0 + 1·1 = 2"));
    QCOMPARE(lesson.step(LessonStepKind::Scores).explanation(1, 2), QStringLiteral("1·1 + 1·1 + 1·0 + 5·0 = 2"));
    QCOMPARE(lesson.step(LessonStepKind::Scaling).explanation(0, 0), QStringLiteral("6 / 2 = 3"));
    QCOMPARE(lesson.step(LessonStepKind::Softmax).explanation(0, 0),
             QStringLiteral("e^3 / (e^3 + e^1 + e^2) = 0.665"));
    QCOMPARE(lesson.step(LessonStepKind::Output).explanation(0, 0),
             QStringLiteral("0.665·2 + 0.090·0 + 0.245·1 = 1.575"));
}

void TestLesson::noScaleEqualsSoftmaxOfScores()
{
    LessonModel lesson;
    lesson.setScaling(false);
    const WorkedExample example;
    AttentionOptions options;
    options.scale = 1.0f;
    const FullAttentionResult reference = attentionFull(example.q(), example.k(), example.v(), options);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            QVERIFY(std::abs(lesson.probabilities()(i, j) - reference.probability(0, i, j)) < 1e-6);
    // And directly: softmax of the raw scores [6, 2, 4].
    const double denominator = std::exp(6.0) + std::exp(2.0) + std::exp(4.0);
    QVERIFY(std::abs(lesson.probabilities()(0, 0) - std::exp(6.0) / denominator) < 1e-12);
    QCOMPARE(lesson.step(LessonStepKind::Scaling).matrix, lesson.step(LessonStepKind::Scores).matrix);
}

void TestLesson::scaledEqualsCoreAttention()
{
    const LessonModel lesson;
    const WorkedExample example;
    const FullAttentionResult reference = attentionFull(example.q(), example.k(), example.v(), AttentionOptions{});
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j)
            QVERIFY(std::abs(lesson.probabilities()(i, j) - reference.probability(0, i, j)) < 1e-6);
        for (int c = 0; c < 4; ++c)
            QVERIFY(std::abs(lesson.output()(i, c) - reference.output.at(i, 0, c)) < 1e-5);
    }
}

void TestLesson::causalHasZerosAboveTheDiagonal()
{
    LessonModel lesson;
    lesson.setCausal(true);
    const Eigen::MatrixXd& p = lesson.probabilities();
    for (int i = 0; i < 3; ++i) {
        double rowSum = 0;
        for (int j = 0; j < 3; ++j) {
            if (j > i) {
                QCOMPARE(p(i, j), 0.0);
                QVERIFY(lesson.step(LessonStepKind::Mask).isMinusInfinity(i, j));
            } else {
                QVERIFY(p(i, j) > 0);
            }
            rowSum += p(i, j);
        }
        QVERIFY(std::abs(rowSum - 1.0) < 1e-12); // the visible weights are renormalised
    }
    QCOMPARE(p(0, 0), 1.0); // kedi sees only itself
    // mindere sees kedi and itself: scores 2 and 6, halved to 1 and 3.
    QVERIFY(std::abs(p(1, 0) - 1.0 / (1.0 + std::exp(2.0))) < 1e-12);
    const WorkedExample example;
    AttentionOptions options;
    options.causal = true;
    const FullAttentionResult reference = attentionFull(example.q(), example.k(), example.v(), options);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            QVERIFY(std::abs(p(i, j) - reference.probability(0, i, j)) < 1e-6);
}

void TestLesson::dkExperimentCollapses_data()
{
    QTest::addColumn<int>("dk");
    QTest::addColumn<bool>("scaled");
    QTest::addColumn<double>("low");
    QTest::addColumn<double>("high");
    QTest::newRow("512 unscaled collapses") << 512 << false << 0.9 << 1.0;
    QTest::newRow("512 scaled stays spread") << 512 << true << 0.0 << 0.5;
    QTest::newRow("4 scaled stays spread") << 4 << true << 0.0 << 0.5;
    QTest::newRow("64 unscaled collapses") << 64 << false << 0.75 << 1.0;
}

void TestLesson::dkExperimentCollapses()
{
    QFETCH(int, dk);
    QFETCH(bool, scaled);
    QFETCH(double, low);
    QFETCH(double, high);
    const DkExperimentResult r = runDkExperiment(dk, scaled, 42);
    QVERIFY2(r.meanMaxWeight > low && r.meanMaxWeight < high, qPrintable(QString::number(r.meanMaxWeight)));
    // The scores have standard deviation √d_k unscaled and 1 scaled, within sampling error: that error
    // is larger for small d_k, where only 10 random keys of 4 components set the spread.
    const double expected = scaled ? 1.0 : std::sqrt(double(dk));
    QVERIFY2(std::abs(r.scoreStdDev / expected - 1.0) < (dk >= 64 ? 0.15 : 0.3), qPrintable(QString::number(r.scoreStdDev)));
    int total = 0;
    for (int count : r.histogram.counts)
        total += count;
    QCOMPARE(total, r.queries * r.keys);
    QCOMPARE(int(r.scores.size()), r.queries * r.keys);
}

void TestLesson::dkExperimentIsSeeded()
{
    const DkExperimentResult a = runDkExperiment(32, true, 5);
    const DkExperimentResult b = runDkExperiment(32, true, 5);
    const DkExperimentResult c = runDkExperiment(32, true, 6);
    QCOMPARE(a.scores, b.scores);
    QVERIFY(a.scores != c.scores);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, runDkExperiment(0, true));
}

// Random Q/K/V with GQA (4 query heads, 2 key/value heads) and RoPE through core's attentionFull, causal.
// The lesson gets Q and K after RoPE (rotateForAttention) for the prefix [0, 12): its softmax is the head's.
void TestLesson::openInLessonReproducesHeadPrefix()
{
    std::mt19937 rng(11);
    const int n = 20, heads = 4, kvHeads = 2, dim = 8;
    const HeadTensor q = randomHeadTensor(n, heads, dim, rng, 1.5f);
    const HeadTensor k = randomHeadTensor(n, kvHeads, dim, rng, 1.5f);
    const HeadTensor v = randomHeadTensor(n, kvHeads, dim, rng);
    AttentionOptions options;
    options.causal = true;
    options.rope.enabled = true;
    options.rope.theta = 10000.0;
    const FullAttentionResult full = attentionFull(q, k, v, options);
    const RotatedQueryKey rotated = rotateForAttention(q, k, options);
    const double scale = options.effectiveScale(dim);
    for (int head = 0; head < heads; ++head) {
        // The longest prefix a lesson takes.
        const int count = LessonModel::kMaxHeadTokens;
        const LessonModel lesson =
            LessonModel::fromHead(rotated.queries, rotated.keys, v, head, 0, count, {}, scale, true);
        QCOMPARE(lesson.tokenCount(), count);
        for (int i = 0; i < count; ++i) {
            for (int j = 0; j < count; ++j)
                QVERIFY2(std::abs(lesson.probabilities()(i, j) - full.probability(head, i, j)) < 1e-5,
                         qPrintable(QStringLiteral("head %1 (%2,%3)").arg(head).arg(i).arg(j)));
            // A prefix row under the causal mask sees only keys in the prefix: the output is the head's too.
            for (int c = 0; c < dim; ++c)
                QVERIFY(std::abs(lesson.output()(i, c) - full.output.at(i, head, c)) < 1e-5);
        }
    }
    // The same data, not causal and all 12 tokens of a 12-token text: again exact.
    HeadTensor q12(12, heads, dim), k12(12, kvHeads, dim), v12(12, kvHeads, dim);
    std::copy_n(rotated.queries.values.begin(), q12.values.size(), q12.values.begin());
    std::copy_n(rotated.keys.values.begin(), k12.values.size(), k12.values.begin());
    std::copy_n(v.values.begin(), v12.values.size(), v12.values.begin());
    AttentionOptions plain;
    const FullAttentionResult full12 = attentionFull(q12, k12, v12, plain);
    const LessonModel lesson = LessonModel::fromHead(q12, k12, v12, 3, 0, 12, {}, scale, false);
    for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j)
            QVERIFY(std::abs(lesson.probabilities()(i, j) - full12.probability(3, i, j)) < 1e-5);
}

// A later range [5, 17) of a causal head: the lesson shows only the keys of the range, so each row is
// the head's attention over those keys, renormalised (documented in LessonModel::fromHead).
void TestLesson::openInLessonLaterRangeIsRenormalised()
{
    std::mt19937 rng(12);
    const int n = 20, heads = 2, kvHeads = 1, dim = 6;
    const HeadTensor q = randomHeadTensor(n, heads, dim, rng);
    const HeadTensor k = randomHeadTensor(n, kvHeads, dim, rng);
    const HeadTensor v = randomHeadTensor(n, kvHeads, dim, rng);
    AttentionOptions options;
    options.causal = true;
    options.rope.enabled = true;
    const FullAttentionResult full = attentionFull(q, k, v, options);
    const RotatedQueryKey rotated = rotateForAttention(q, k, options);
    const int first = 5, count = 12;
    const LessonModel lesson = LessonModel::fromHead(rotated.queries, rotated.keys, v, 1, first, count, {},
                                                     options.effectiveScale(dim), true);
    QCOMPARE(lesson.tokens().first(), QStringLiteral("t5"));
    for (int i = 0; i < count; ++i) {
        double inRange = 0;
        for (int j = 0; j < count; ++j)
            inRange += full.probability(1, first + i, first + j);
        for (int j = 0; j < count; ++j)
            QVERIFY(std::abs(lesson.probabilities()(i, j) - full.probability(1, first + i, first + j) / inRange) < 1e-5);
    }
}

void TestLesson::openInLessonRejectsBadRanges()
{
    std::mt19937 rng(1);
    const HeadTensor q = randomHeadTensor(20, 2, 4, rng), k = randomHeadTensor(20, 2, 4, rng),
                     v = randomHeadTensor(20, 2, 4, rng);
    QVERIFY_THROWS_EXCEPTION(
        std::invalid_argument,
        LessonModel::fromHead(q, k, v, 0, 0, LessonModel::kMaxHeadTokens + 1, {}, 0.5, true));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, LessonModel::fromHead(q, k, v, 2, 0, 4, {}, 0.5, true));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, LessonModel::fromHead(q, k, v, 0, 15, 8, {}, 0.5, true));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             LessonModel::fromHead(q, k, v, 0, 0, 3, {QStringLiteral("a")}, 0.5, true));
}

void TestLesson::permutationWithoutPositionsPermutesOutput()
{
    const LessonModel lesson;
    const std::vector<int> permutation{2, 0, 1};
    const LessonModel moved = lesson.permuted(permutation);
    QCOMPARE(moved.tokens(), (QStringList{QStringLiteral("oturdu"), QStringLiteral("kedi"), QStringLiteral("mindere")}));
    for (int i = 0; i < 3; ++i) {
        for (int c = 0; c < 4; ++c)
            QVERIFY(std::abs(moved.output()(i, c) - lesson.output()(permutation[size_t(i)], c)) < 1e-12);
        for (int j = 0; j < 3; ++j)
            QVERIFY(std::abs(moved.probabilities()(i, j) -
                             lesson.probabilities()(permutation[size_t(i)], permutation[size_t(j)])) < 1e-12);
    }
    // With RoPE the order matters: the permuted output is no longer the permuted original.
    LessonModel rope;
    rope.setPositions(LessonPositions::Rope, 10.0);
    const LessonModel ropeMoved = rope.permuted(permutation);
    double difference = 0;
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < 4; ++c)
            difference = std::max(difference, std::abs(ropeMoved.output()(i, c) - rope.output()(permutation[size_t(i)], c)));
    QVERIFY(difference > 1e-3);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, lesson.permuted({0, 0, 1}));
}

void TestLesson::ropeMatchesCoreAndIsRelative()
{
    LessonModel lesson;
    lesson.setPositions(LessonPositions::Rope, 100.0);
    HeadTensor q = WorkedExample().q();
    RopeConfig rope;
    rope.enabled = true;
    rope.theta = 100.0;
    applyRope(q, rope);
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < 4; ++c)
            QVERIFY(std::abs(lesson.queries()(i, c) - double(q.at(i, 0, c))) < 1e-5);
    const Eigen::MatrixXd angles = lessonRopeAngles(3, 4, 100.0);
    QCOMPARE(angles.cols(), Eigen::Index(2));
    QVERIFY(std::abs(angles(2, 0) - 2.0) < 1e-12);
    QVERIFY(std::abs(angles(1, 1) - 0.1) < 1e-6); // 100^(-2/4)

    // Every token the same vector: the RoPE scores depend only on the distance i − j.
    Eigen::MatrixXd same(6, 4);
    for (int r = 0; r < 6; ++r)
        same.row(r) << 1, 2, -1, 0.5;
    LessonModel relative = LessonModel::fromMatrices(same, same, same, {}, std::nullopt, false);
    relative.setPositions(LessonPositions::Rope, 50.0);
    const Eigen::MatrixXd& s = relative.step(LessonStepKind::Scores).matrix;
    for (int i = 1; i < 6; ++i)
        for (int j = 1; j < 6; ++j)
            QVERIFY(std::abs(s(i, j) - s(i - 1, j - 1)) < 1e-9);
    QVERIFY(std::abs(s(0, 1) - s(0, 0)) > 1e-3);

    Eigen::MatrixXd odd = Eigen::MatrixXd::Ones(2, 3);
    LessonModel oddLesson = LessonModel::fromMatrices(odd, odd, odd, {}, std::nullopt, false);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, oddLesson.setPositions(LessonPositions::Rope, 100.0));
    QCOMPARE(oddLesson.options().positions, LessonPositions::None); // the failed change is undone
}

void TestLesson::projectionsMode()
{
    LessonModel lesson;
    lesson.setInputMode(LessonInputMode::Projections);
    const Eigen::MatrixXd& x = lesson.input(LessonInput::X);
    QVERIFY((lesson.queries() - x * lesson.input(LessonInput::WQ)).norm() < 1e-12);
    QVERIFY((lesson.keys() - x * lesson.input(LessonInput::WK)).norm() < 1e-12);
    QVERIFY((lesson.values() - x * lesson.input(LessonInput::WV)).norm() < 1e-12);
    lesson.setInputValue(LessonInput::X, 0, 0, 5.0);
    QCOMPARE(lesson.queries()(0, 0), (lesson.input(LessonInput::X) * lesson.input(LessonInput::WQ))(0, 0));
    // Core attention on the projected Q, K, V agrees.
    const FullAttentionResult reference =
        attentionFull(toTensor(lesson.queries()), toTensor(lesson.keys()), toTensor(lesson.values()), AttentionOptions{});
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            QVERIFY(std::abs(lesson.probabilities()(i, j) - reference.probability(0, i, j)) < 1e-5);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, lesson.setInput(LessonInput::WQ, Eigen::MatrixXd::Ones(3, 4)));
}

void TestLesson::tokenCountAndShapes()
{
    LessonModel lesson;
    lesson.setTokenCount(5);
    QCOMPARE(lesson.tokenCount(), 5);
    QCOMPARE(lesson.tokens().at(4), QStringLiteral("t4"));
    QCOMPARE(lesson.step(LessonStepKind::Softmax).rows(), 5);
    QCOMPARE(lesson.input(LessonInput::X).rows(), Eigen::Index(5));
    // New tokens have zero vectors: score 0 with everyone.
    QCOMPARE(lesson.step(LessonStepKind::Scores).value(4, 0), 0.0);
    lesson.setTokenCount(2);
    QCOMPARE(lesson.step(LessonStepKind::Output).rows(), 2);
    lesson.setToken(1, QStringLiteral("uyudu"));
    QCOMPARE(lesson.step(LessonStepKind::Scores).colLabels.at(1), QStringLiteral("uyudu"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, lesson.setTokenCount(0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, lesson.setInput(LessonInput::K, Eigen::MatrixXd::Ones(2, 3)));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, lesson.setInputValue(LessonInput::Q, 9, 0, 1.0));
}

void TestLesson::multiHead()
{
    MultiHeadLesson m = MultiHeadLesson::example();
    const MultiHeadResult r = m.compute();
    QCOMPARE(r.heads, 2);
    QCOMPARE(r.headDim, 2);
    QCOMPARE(r.concat.cols(), Eigen::Index(4));
    // Independent check of every head against core's multi-head attention: Q = X·W_Q laid out as
    // [tokens, heads, dim] is exactly the fused projection's layout.
    const Eigen::MatrixXd q = m.x * m.wq, k = m.x * m.wk, v = m.x * m.wv;
    HeadTensor qt(3, 2, 2), kt(3, 2, 2), vt(3, 2, 2);
    for (int t = 0; t < 3; ++t)
        for (int c = 0; c < 4; ++c) {
            qt.values[size_t(t * 4 + c)] = float(q(t, c));
            kt.values[size_t(t * 4 + c)] = float(k(t, c));
            vt.values[size_t(t * 4 + c)] = float(v(t, c));
        }
    const FullAttentionResult reference = attentionFull(qt, kt, vt, AttentionOptions{});
    for (int h = 0; h < 2; ++h)
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j)
                QVERIFY(std::abs(r.probabilities[size_t(h)](i, j) - reference.probability(h, i, j)) < 1e-5);
            for (int c = 0; c < 2; ++c)
                QVERIFY(std::abs(r.concat(i, h * 2 + c) - reference.output.at(i, h, c)) < 1e-5);
        }
    QVERIFY((r.output - r.concat * m.wo).norm() < 1e-12);
    m.heads = 3;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, m.compute());
    m.heads = 1;
    const MultiHeadResult one = m.compute();
    const LessonModel single = LessonModel::fromMatrices(q, k, v, m.tokens, std::nullopt, false);
    QVERIFY((one.concat - single.output()).norm() < 1e-12);
}

// The Multi-head tab on any lesson: its own Q, K, V (a 16-token "Open in lesson" head here) split into h
// heads of d/h columns; each head equals core's multi-head attention on the same numbers laid out as
// [tokens, heads, d/h], causal mask included.
void TestLesson::multiHeadSplitsTheLessonsOwnNumbers()
{
    std::mt19937 rng(21);
    const int n = 16, dim = 8;
    const HeadTensor t = randomHeadTensor(n, 1, dim, rng, 1.2f);
    QStringList tokens;
    for (int i = 0; i < n; ++i)
        tokens << QStringLiteral("w%1").arg(i);
    for (bool causal : {false, true}) {
        const LessonModel lesson = LessonModel::fromHead(t, t, t, 0, 0, n, tokens, 0.3, causal);
        for (int heads : {1, 2, 4}) {
            const MultiHeadLesson split = MultiHeadLesson::fromLesson(lesson, heads);
            QCOMPARE(split.tokens, tokens);
            QVERIFY(!split.hasOutputProjection());
            const MultiHeadResult r = split.compute();
            QCOMPARE(r.heads, heads);
            QCOMPARE(r.headDim, dim / heads);
            // The same numbers as core's attention takes them: [tokens, heads, dim / heads].
            HeadTensor q(n, heads, dim / heads), k(n, heads, dim / heads), v(n, heads, dim / heads);
            for (int i = 0; i < n; ++i)
                for (int c = 0; c < dim; ++c) {
                    q.values[size_t(i * dim + c)] = float(lesson.queries()(i, c));
                    k.values[size_t(i * dim + c)] = float(lesson.keys()(i, c));
                    v.values[size_t(i * dim + c)] = float(lesson.values()(i, c));
                }
            AttentionOptions options;
            options.causal = causal;
            const FullAttentionResult reference = attentionFull(q, k, v, options);
            for (int h = 0; h < heads; ++h)
                for (int i = 0; i < n; ++i) {
                    for (int j = 0; j < n; ++j)
                        QVERIFY(std::abs(r.probabilities[size_t(h)](i, j) - reference.probability(h, i, j)) < 1e-5);
                    for (int c = 0; c < dim / heads; ++c)
                        QVERIFY(std::abs(r.concat(i, h * (dim / heads) + c) - reference.output.at(i, h, c)) < 1e-5);
                }
            QVERIFY((r.output - r.concat).norm() == 0.0); // no W_O: the output is the concatenation
        }
        MultiHeadLesson three = MultiHeadLesson::fromLesson(lesson, 3);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, three.compute()); // 3 does not divide 8
    }
}

// The lesson writes the language's decimal mark (QLocale's default), keeps the true minus sign, and never
// writes a negative zero, with any number of decimals.
void TestLesson::numbersFollowTheLocale()
{
    QLocale::setDefault(QLocale(QLocale::Turkish, QLocale::Turkey));
    QCOMPARE(lessonNumber(0.66524), QStringLiteral("0,665"));
    QCOMPARE(lessonNumber(-1.5), QStringLiteral("\u22121,5"));
    QCOMPARE(lessonNumber(1234567.0), QStringLiteral("1234567")); // no grouping: the tables read it back
    QCOMPARE(lessonFixed(0.09), QStringLiteral("0,090"));
    QCOMPARE(lessonFixed(2.345, 1), QStringLiteral("2,3"));
    QCOMPARE(LessonModel().step(LessonStepKind::Softmax).explanation(0, 0),
             QStringLiteral("e^3 / (e^3 + e^1 + e^2) = 0,665"));
    QLocale::setDefault(QLocale::c());
    QCOMPARE(lessonNumber(0.66524), QStringLiteral("0.665"));
    QCOMPARE(lessonFixed(-0.0004), QStringLiteral("0.000"));
    QCOMPARE(lessonFixed(-0.04, 1), QStringLiteral("0.0"));
    QCOMPARE(lessonFixed(-0.04, 2), QStringLiteral("\u22120.04"));
    QCOMPARE(lessonFixed(1.0, 0), QStringLiteral("1"));
}

// A head whose scale is the usual 1/√d_k is explained as "S / √d_k"; any other scale as the head's own.
void TestLesson::usualScaleIsExplainedAsTheRoot()
{
    const WorkedExample example;
    Eigen::MatrixXd q(3, 4), k(3, 4), v(3, 4);
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < 4; ++c) {
            q(i, c) = example.queries[size_t(i)][size_t(c)];
            k(i, c) = example.keys[size_t(i)][size_t(c)];
            v(i, c) = example.values[size_t(i)][size_t(c)];
        }
    const LessonModel usual = LessonModel::fromMatrices(q, k, v, {}, 0.5, false);
    QVERIFY(!usual.options().scaleOverride);
    QCOMPARE(usual.step(LessonStepKind::Scaling).formula, LessonModel().step(LessonStepKind::Scaling).formula);
    QCOMPARE(usual.step(LessonStepKind::Scaling).explanation(0, 0), QStringLiteral("6 / 2 = 3"));
    const LessonModel own = LessonModel::fromMatrices(q, k, v, {}, 0.3, false);
    QCOMPARE(*own.options().scaleOverride, 0.3);
    QVERIFY(own.step(LessonStepKind::Scaling).formula.contains(QStringLiteral("head's scale")));
    QCOMPARE(own.step(LessonStepKind::Scaling).value(0, 0), 6 * 0.3);
}

QTEST_GUILESS_MAIN(TestLesson)
#include "tst_lesson.moc"
