#include "lesson/lessonexperimentspanel.h"

#include "lesson/dkexperiment.h"
#include "lesson/kvcachepanel.h"
#include "lesson/lessonhistogramwidget.h"
#include "lesson/lessonnumbers.h"
#include "lesson/lessonropedialswidget.h"
#include "lesson/lessonstepwidget.h"
#include "lesson/lessonview.h"
#include "lesson/multiheadlesson.h"

#include <QAbstractButton>
#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <stdexcept>

// The panel's texts are LessonView::tr: they keep the translation context (attnscope::LessonView) that the
// .ts files hold them under, from when the lesson view built this panel itself.

namespace attnscope {

namespace {

constexpr int kDkExperimentQueries = 200;

// A matrix shown with the step painter but computed outside the five steps (experiments).
LessonStep displayStep(const QString& title, const QString& formula, const Eigen::MatrixXd& matrix,
                       const QStringList& rowLabels, const QStringList& colLabels, bool probabilities)
{
    LessonStep s;
    s.title = title;
    s.formula = formula;
    s.matrix = matrix;
    s.rowLabels = rowLabels;
    s.colLabels = colLabels;
    s.probabilities = probabilities;
    return s;
}

} // namespace

LessonExperimentsPanel::LessonExperimentsPanel(const LessonModel* lesson, QWidget* parent)
    : QWidget(parent), m_lesson(lesson)
{
    auto* tabs = new QTabWidget;
    m_tabs = tabs;
    tabs->addTab(buildScalingTab(), LessonView::tr("Scaling"));
    tabs->addTab(buildCausalTab(), LessonView::tr("Causal mask"));
    tabs->addTab(buildPositionsTab(), LessonView::tr("Positions"));
    tabs->addTab(buildMultiHeadTab(), LessonView::tr("Multi-head"));
    m_kvCachePanel = new KvCachePanel;
    tabs->addTab(m_kvCachePanel, LessonView::tr("KV cache"));
    // Five tab names need more than the panel's 30% of a 1280 px window (474 px in Turkish, 413 in
    // English, against 379): a tab bar would hide some behind scroll arrows. The experiments are chosen
    // with buttons in rows of three instead, every one always in sight; the tab widget keeps the pages.
    tabs->tabBar()->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* chooser = new QGridLayout;
    chooser->setSpacing(2);
    auto* group = new QButtonGroup(this);
    constexpr int kPerRow = 3;
    for (int i = 0; i < tabs->count(); ++i) {
        auto* button = new QToolButton;
        button->setText(tabs->tabText(i));
        button->setCheckable(true);
        button->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        group->addButton(button, i);
        chooser->addWidget(button, i / kPerRow, i % kPerRow);
    }
    group->button(tabs->currentIndex())->setChecked(true);
    connect(group, &QButtonGroup::idClicked, tabs, &QTabWidget::setCurrentIndex);
    connect(tabs, &QTabWidget::currentChanged, group, [group](int index) {
        if (QAbstractButton* button = group->button(index)) button->setChecked(true);
    });
    layout->addLayout(chooser);
    layout->addWidget(tabs, 1);
}

QWidget* LessonExperimentsPanel::buildScalingTab()
{
    auto* tab = new QWidget;
    auto* layout = new QVBoxLayout(tab);
    m_scaling = new QCheckBox(LessonView::tr("Divide the scores by √d_k"));
    layout->addWidget(m_scaling);
    auto* intro = new QLabel(
        LessonView::tr("Random queries and keys with unit-variance components: their dot products grow "
                       "with d_k. Without the scaling the softmax collapses onto one token."));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* row = new QHBoxLayout;
    m_dkSlider = new QSlider(Qt::Horizontal);
    m_dkSlider->setRange(4, 512);
    m_dkSlider->setValue(64);
    m_dkLabel = new QLabel;
    row->addWidget(new QLabel(LessonView::tr("d_k:")));
    row->addWidget(m_dkSlider, 1);
    row->addWidget(m_dkLabel);
    layout->addLayout(row);
    m_histogram = new LessonHistogramWidget;
    layout->addWidget(m_histogram, 1);
    m_dkResult = new QLabel;
    m_dkResult->setWordWrap(true);
    layout->addWidget(m_dkResult);
    connect(m_scaling, &QCheckBox::toggled, this, [this](bool on) {
        if (m_syncing) return;
        LessonOptions o = m_lesson->options();
        o.scaling = on;
        Q_EMIT optionsChosen(o);
    });
    connect(m_dkSlider, &QSlider::valueChanged, this, [this] { updateDkExperiment(); });
    return tab;
}

QWidget* LessonExperimentsPanel::buildCausalTab()
{
    auto* tab = new QWidget;
    auto* layout = new QVBoxLayout(tab);
    m_causal = new QCheckBox(LessonView::tr("Causal mask"));
    layout->addWidget(m_causal);
    auto* note = new QLabel(
        LessonView::tr("A token sees only itself and the tokens before it. The mask puts −∞ above the "
                       "diagonal; e^−∞ = 0, so each row's weights are shared out again among the "
                       "tokens it may see and still sum to 1."));
    note->setWordWrap(true);
    layout->addWidget(note);
    m_unmaskedSoftmax = new LessonStepWidget;
    m_maskedSoftmax = new LessonStepWidget;
    layout->addWidget(m_unmaskedSoftmax, 1);
    layout->addWidget(m_maskedSoftmax, 1);
    connect(m_causal, &QCheckBox::toggled, this, [this](bool on) {
        if (m_syncing) return;
        LessonOptions o = m_lesson->options();
        o.causal = on;
        Q_EMIT optionsChosen(o);
    });
    return tab;
}

QWidget* LessonExperimentsPanel::buildPositionsTab()
{
    auto* tab = new QWidget;
    auto* layout = new QVBoxLayout(tab);
    auto* form = new QFormLayout;
    m_positions = new QComboBox;
    m_positions->addItem(LessonView::tr("No positions"));
    m_positions->addItem(LessonView::tr("RoPE (rotary positions)"));
    form->addRow(LessonView::tr("Positions:"), m_positions);
    m_theta = new QDoubleSpinBox;
    m_theta->setRange(2, 1e6);
    m_theta->setDecimals(0);
    m_theta->setValue(10000);
    form->addRow(LessonView::tr("RoPE base θ:"), m_theta);
    layout->addLayout(form);
    m_permute = new QPushButton(LessonView::tr("Shuffle the tokens"));
    layout->addWidget(m_permute);
    auto* pair = new QHBoxLayout;
    m_originalOutput = new LessonStepWidget;
    m_permutedOutput = new LessonStepWidget;
    // Side by side in a third of the window: small minimums keep the window within 1280 px.
    m_originalOutput->setMinimumSize(120, 100);
    m_permutedOutput->setMinimumSize(120, 100);
    pair->addWidget(m_originalOutput);
    pair->addWidget(m_permutedOutput);
    layout->addLayout(pair, 1);
    m_permutationVerdict = new QLabel;
    m_permutationVerdict->setWordWrap(true);
    layout->addWidget(m_permutationVerdict);
    m_dials = new LessonRopeDialsWidget;
    layout->addWidget(m_dials, 1);
    auto apply = [this] {
        if (m_syncing) return;
        LessonOptions o = m_lesson->options();
        o.positions = m_positions->currentIndex() == 1 ? LessonPositions::Rope : LessonPositions::None;
        o.ropeTheta = m_theta->value();
        Q_EMIT optionsChosen(o);
    };
    connect(m_positions, &QComboBox::currentIndexChanged, this, apply);
    connect(m_theta, &QDoubleSpinBox::valueChanged, this, apply);
    connect(m_permute, &QPushButton::clicked, this, [this] {
        // Next cyclic shift: (1, 2, ..., 0), then (2, ..., 1), ...; never the identity.
        const int n = m_lesson->tokenCount();
        const int shift = m_permutation.empty() ? 1 : (m_permutation[0] % n) + 1;
        m_permutation.assign(size_t(n), 0);
        for (int i = 0; i < n; ++i)
            m_permutation[size_t(i)] = (i + (shift % n == 0 ? 1 : shift)) % n;
        updatePositions();
    });
    return tab;
}

QWidget* LessonExperimentsPanel::buildMultiHeadTab()
{
    auto* tab = new QWidget;
    auto* layout = new QVBoxLayout(tab);
    auto* form = new QFormLayout;
    m_heads = new QComboBox;
    for (int h : {1, 2, 4})
        m_heads->addItem(QString::number(h), h);
    m_heads->setCurrentIndex(1);
    form->addRow(LessonView::tr("Heads h:"), m_heads);
    layout->addLayout(form);
    m_multiHeadNote = new QLabel;
    m_multiHeadNote->setWordWrap(true);
    layout->addWidget(m_multiHeadNote);
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    m_multiHeadArea = new QWidget;
    new QGridLayout(m_multiHeadArea);
    scroll->setWidget(m_multiHeadArea);
    layout->addWidget(scroll, 1);
    connect(m_heads, &QComboBox::currentIndexChanged, this, [this] { updateMultiHead(); });
    return tab;
}

void LessonExperimentsPanel::updateDkExperiment()
{
    const int dk = m_dkSlider->value();
    const bool scaled = m_lesson->options().scaling;
    m_dkLabel->setText(QLocale().toString(dk));
    // As many keys per query as the lesson has tokens, so the experiment speaks about this lesson's rows.
    const int keys = m_lesson->tokenCount();
    const DkExperimentResult r = runDkExperiment(dk, scaled, 1, kDkExperimentQueries, keys);
    m_histogram->setHistogram(r.histogram, scaled ? LessonView::tr("Scores q·k / √d_k")
                                                  : LessonView::tr("Scores q·k (not scaled)"));
    const QString verdict =
        r.keys < 2              ? LessonView::tr("with a single key its weight is always 1")
        : r.meanMaxWeight > 0.9 ? LessonView::tr("the softmax has collapsed onto one token")
        : r.meanMaxWeight > 0.6 ? LessonView::tr("the softmax is close to picking one token")
                                : LessonView::tr("the attention stays spread over several tokens");
    m_dkResult->setText(
        LessonView::tr("%1 random queries × %n key(s) each (as many as the lesson's tokens) = %2 scores. "
                       "Spread of the scores: %3. Mean largest weight: %4 — %5.",
                       nullptr, r.keys)
            .arg(QLocale().toString(r.queries), QLocale().toString(r.queries * r.keys),
                 lessonFixed(r.scoreStdDev), lessonFixed(r.meanMaxWeight), verdict));
}

void LessonExperimentsPanel::updateCausalComparison()
{
    LessonOptions o = m_lesson->options();
    LessonModel open = *m_lesson, masked = *m_lesson;
    o.causal = false;
    open.setOptions(o);
    o.causal = true;
    masked.setOptions(o);
    LessonStep a = open.step(LessonStepKind::Softmax);
    a.title = LessonView::tr("Without the mask");
    a.formula.clear();
    LessonStep b = masked.step(LessonStepKind::Softmax);
    b.title = LessonView::tr("With the causal mask");
    b.formula = LessonView::tr("rows renormalised over the visible tokens");
    m_unmaskedSoftmax->setStep(a);
    m_maskedSoftmax->setStep(b);
}

void LessonExperimentsPanel::updatePositions()
{
    const int n = m_lesson->tokenCount();
    if (m_permutation.size() != size_t(n)) return;
    const LessonModel moved = m_lesson->permuted(m_permutation);
    LessonStep original = m_lesson->step(LessonStepKind::Output);
    original.title = LessonView::tr("Output, original order");
    original.formula.clear();
    LessonStep shuffled = moved.step(LessonStepKind::Output);
    shuffled.title = LessonView::tr("Output, tokens shuffled");
    shuffled.formula.clear();
    m_originalOutput->setStep(original);
    m_permutedOutput->setStep(shuffled);
    double difference = 0;
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < moved.output().cols(); ++c)
            difference = std::max(
                difference, std::abs(moved.output()(i, c) - m_lesson->output()(m_permutation[size_t(i)], c)));
    if (difference < 1e-9)
        m_permutationVerdict->setText(
            LessonView::tr("Every token's output row is the same, only in another order: without "
                           "positions, attention does not see word order."));
    else if (m_lesson->options().positions == LessonPositions::Rope)
        m_permutationVerdict->setText(
            LessonView::tr("The rows change (by up to %1): RoPE turns each query and key by its "
                           "position, so the scores depend on the order.")
                .arg(lessonFixed(difference)));
    else
        m_permutationVerdict->setText(
            LessonView::tr("The rows change (by up to %1): the causal mask depends on the order.")
                .arg(lessonFixed(difference)));
    const bool rope = m_lesson->options().positions == LessonPositions::Rope;
    m_dials->setVisible(rope);
    m_theta->setEnabled(rope);
    if (rope && m_lesson->keyDimension() % 2 == 0)
        m_dials->setAngles(lessonRopeAngles(n, m_lesson->keyDimension(), m_lesson->options().ropeTheta),
                           m_lesson->tokens());
}

void LessonExperimentsPanel::updateMultiHead()
{
    // The lesson's own tokens and numbers, split into h heads.
    const MultiHeadLesson split = MultiHeadLesson::fromLesson(*m_lesson, m_heads->currentData().toInt());
    auto* grid = static_cast<QGridLayout*>(m_multiHeadArea->layout());
    for (LessonStepWidget* w : m_multiHeadWidgets)
        w->deleteLater();
    m_multiHeadWidgets.clear();
    MultiHeadResult r;
    try {
        r = split.compute();
    } catch (const std::invalid_argument& e) {
        m_multiHeadNote->setText(LessonView::tr("This lesson cannot be split into %1 heads: %2")
                                     .arg(split.heads)
                                     .arg(QString::fromStdString(e.what())));
        return;
    }
    m_multiHeadNote->setText(
        LessonView::tr("The lesson's Q and K have d_k = %1 columns, so each of the %2 heads takes %3 of "
                       "them (and %4 of V's): the columns a fused projection gives that head. Each head "
                       "is the same attention, scaled by 1/√%3; their outputs are concatenated. A real "
                       "layer then mixes them with W_O.")
            .arg(split.queries.cols())
            .arg(r.heads)
            .arg(r.headDim)
            .arg(r.valueHeadDim));
    const LessonPaintStyle style = m_style;
    auto add = [&](const LessonStep& step, int row, int col, int span) {
        auto* w = new LessonStepWidget;
        LessonPaintStyle s = style;
        s.fontPointSize = style.fontPointSize * 0.85;
        w->setPaintStyle(s);
        w->setStep(step);
        w->setMinimumSize(220, 170);
        grid->addWidget(w, row, col, 1, span);
        m_multiHeadWidgets.push_back(w);
    };
    for (int h = 0; h < r.heads; ++h)
        add(displayStep(LessonView::tr("Head %1: weights").arg(h + 1),
                        QStringLiteral("softmax(Q_%1·K_%1ᵀ / √%2)").arg(h + 1).arg(r.headDim),
                        r.probabilities[size_t(h)], split.tokens, split.tokens, true),
            h / 2, h % 2, 1);
    add(displayStep(LessonView::tr("Concatenated head outputs"), QStringLiteral("[O_1 | … | O_h]"), r.concat,
                    split.tokens, lessonDimensionLabels(int(r.concat.cols())), false),
        (r.heads + 1) / 2, 0, 2);
}

void LessonExperimentsPanel::syncControls()
{
    m_syncing = true;
    const LessonOptions& o = m_lesson->options();
    m_scaling->setChecked(o.scaling);
    m_causal->setChecked(o.causal);
    m_positions->setCurrentIndex(o.positions == LessonPositions::Rope ? 1 : 0);
    m_theta->setValue(o.ropeTheta);
    m_syncing = false;
}

void LessonExperimentsPanel::setPaintStyle(const LessonPaintStyle& style)
{
    m_style = style;
    for (LessonStepWidget* w : {m_unmaskedSoftmax, m_maskedSoftmax, m_originalOutput, m_permutedOutput})
        w->setPaintStyle(style);
    m_histogram->setFontPointSize(style.fontPointSize * 0.8);
    m_dials->setFontPointSize(style.fontPointSize * 0.8);
}

void LessonExperimentsPanel::clearPermutation()
{
    m_permutation.clear();
}

void LessonExperimentsPanel::showLesson()
{
    if (m_permutation.size() != size_t(m_lesson->tokenCount())) {
        const int n = m_lesson->tokenCount();
        m_permutation.assign(size_t(n), 0);
        for (int i = 0; i < n; ++i)
            m_permutation[size_t(i)] = (i + (n > 1 ? n - 1 : 0)) % n; // the last token first
    }
    updateDkExperiment();
    updateCausalComparison();
    updatePositions();
    updateMultiHead();
}

LessonExperimentsPanel::Choices LessonExperimentsPanel::choices() const
{
    return {m_dkSlider->value(), m_heads->currentIndex(), m_tabs->currentIndex(), m_permutation};
}

void LessonExperimentsPanel::restore(const Choices& choices)
{
    if (choices.permutation.size() == size_t(m_lesson->tokenCount())) {
        m_permutation = choices.permutation;
        updatePositions();
    }
    m_dkSlider->setValue(choices.dk);
    m_heads->setCurrentIndex(choices.headsIndex);
    m_tabs->setCurrentIndex(choices.experiment);
}

QString LessonExperimentsPanel::dkExperimentText() const
{
    return m_dkResult->text();
}

} // namespace attnscope
