#include "lesson/lessonview.h"

#include "io/outputfile.h"
#include "lesson/dkexperiment.h"
#include "lesson/kvcachepanel.h"
#include "lesson/lessoncsv.h"
#include "lesson/lessonhistogramwidget.h"
#include "lesson/lessonmatrixtablemodel.h"
#include "lesson/lessonnumbers.h"
#include "lesson/lessonropedialswidget.h"
#include "lesson/lessonstepwidget.h"
#include "lesson/lessontokentablemodel.h"
#include "lesson/multiheadlesson.h"

#include <QApplication>
#include <QBuffer>
#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>
#include <stdexcept>

namespace attnscope {

namespace {

constexpr double kNormalPointSize = 12.0;
constexpr double kLargePointSize = 20.0;
constexpr int kDkExperimentQueries = 200;

// The user chose the file in a dialog that asked before replacing it: overwriting is allowed, the rest of
// the output policy holds (io/outputfile.h: atomic, never over a device, FIFO or folder).
bool writeFile(const QString& path, const QByteArray& bytes, QString* error)
{
    return writeOutputFile(path, bytes, true, error);
}

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

QStringList dimensionLabels(int count, int first = 0)
{
    QStringList labels;
    for (int i = 0; i < count; ++i)
        labels << QStringLiteral("d%1").arg(first + i + 1);
    return labels;
}

QString stepFileStem(int step)
{
    static const char* const names[] = {"scores", "scaling", "mask", "softmax", "output"};
    return QStringLiteral("step%1-%2").arg(step + 1).arg(QLatin1String(names[step]));
}

} // namespace

LessonView::LessonView(QWidget* parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    m_tokenModel = new LessonTokenTableModel(&m_lesson, this);
    connect(m_tokenModel, &LessonTokenTableModel::lessonEdited, this, &LessonView::lessonEdited);
    for (int i = 0; i < kLessonInputCount; ++i) {
        m_matrixModels[size_t(i)] = new LessonMatrixTableModel(&m_lesson, LessonInput(i), this);
        connect(m_matrixModels[size_t(i)], &LessonMatrixTableModel::lessonEdited, this,
                &LessonView::lessonEdited);
    }

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_modelNote = new QLabel(this);
    m_modelNote->setObjectName(QStringLiteral("lessonModelNote"));
    m_modelNote->setWordWrap(true);
    m_modelNote->setVisible(false);
    layout->addWidget(m_modelNote);
    buildUi();
    m_stepWidget->setFocus();
}

void LessonView::setModelNote(const QString& text)
{
    m_modelNote->setText(text);
    m_modelNote->setVisible(!text.isEmpty());
}

void LessonView::buildUi()
{
    m_multiHeadWidgets.clear();
    m_root = new QSplitter(Qt::Horizontal, this);
    m_root->addWidget(buildInputPanel());
    m_root->addWidget(buildStepPanel());
    m_root->addWidget(buildExperimentPanel());
    m_root->setStretchFactor(0, 2);
    m_root->setStretchFactor(1, 5);
    m_root->setStretchFactor(2, 3);
    layout()->addWidget(m_root);
    syncControls();
    applyFonts();
    lessonEdited();
    if (isVisible()) shareTheWidth();
}

void LessonView::shareTheWidth()
{
    // Half the width for the step, so that 16 tokens keep their numbers at 1280 px, whatever the
    // panels' size hints; QSplitter keeps the minimums.
    const int width = m_root->width();
    m_root->setSizes({width * 18 / 100, width * 52 / 100, width * 30 / 100});
}

void LessonView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (!m_widthShared) {
        m_widthShared = true;
        shareTheWidth();
    }
}

void LessonView::changeEvent(QEvent* event)
{
    // A new language: the widgets are built again from tr() (after the event has reached every widget,
    // so none is deleted while Qt walks them), keeping the lesson, the step and the experiment settings.
    if (event->type() == QEvent::LanguageChange && m_root && !m_rebuildPending) {
        m_rebuildPending = true;
        QMetaObject::invokeMethod(this, &LessonView::rebuildForLanguage, Qt::QueuedConnection);
    }
    QWidget::changeEvent(event);
}

void LessonView::rebuildForLanguage()
{
    m_rebuildPending = false;
    const int dk = m_dkSlider->value();
    const int heads = m_heads->currentIndex();
    const int experiment = m_experimentTabs->currentIndex();
    const int input = m_inputTabs->currentIndex();
    const bool hadFocus = m_stepWidget->hasFocus();
    QSplitter* old = m_root;
    old->hide();
    layout()->removeWidget(old);
    old->deleteLater();
    m_lesson.retranslate();
    buildUi();
    m_dkSlider->setValue(dk);
    m_heads->setCurrentIndex(heads);
    m_experimentTabs->setCurrentIndex(experiment);
    m_inputTabs->setCurrentIndex(input);
    if (hadFocus) m_stepWidget->setFocus();
}

LessonView::~LessonView() = default;

QWidget* LessonView::buildInputPanel()
{
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    auto* form = new QFormLayout;
    // The panel is narrow (a fifth of the window): a field that does not fit beside its label goes under
    // it, and the input choice is never elided ("Doğrudan Q, K ve V").
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    m_inputMode = new QComboBox;
    m_inputMode->addItem(tr("Q, K and V directly"));
    m_inputMode->addItem(tr("X with W_Q, W_K and W_V"));
    m_inputMode->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    form->addRow(tr("Input:"), m_inputMode);
    m_tokenCount = new QSpinBox;
    m_tokenCount->setRange(1, LessonModel::kMaxHeadTokens);
    form->addRow(tr("Tokens:"), m_tokenCount);
    layout->addLayout(form);

    m_inputTabs = new QTabWidget;
    auto* tokens = new QTableView;
    tokens->setModel(m_tokenModel);
    tokens->horizontalHeader()->setStretchLastSection(true);
    m_inputTabs->addTab(tokens, tr("Tokens"));
    for (int i = 0; i < kLessonInputCount; ++i) {
        auto* view = new QTableView;
        view->setModel(m_matrixModels[size_t(i)]);
        view->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
        m_matrixViews[size_t(i)] = view;
        m_inputTabs->addTab(view, lessonInputName(LessonInput(i)));
    }
    layout->addWidget(m_inputTabs, 1);
    m_inputError = new QLabel;
    m_inputError->setWordWrap(true);
    m_inputError->setStyleSheet(QStringLiteral("color: #b00020"));
    layout->addWidget(m_inputError);
    auto* hint = new QLabel(tr("Double-click a number to change it; every step is recomputed at once."));
    hint->setWordWrap(true);
    layout->addWidget(hint);

    connect(m_inputMode, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (m_syncing) return;
        try {
            m_lesson.setInputMode(index == 0 ? LessonInputMode::QueryKeyValue : LessonInputMode::Projections);
            m_inputError->clear();
        } catch (const std::invalid_argument& e) {
            m_inputError->setText(QString::fromStdString(e.what()));
        }
        lessonEdited();
    });
    connect(m_tokenCount, &QSpinBox::valueChanged, this, [this](int count) {
        if (m_syncing) return;
        m_lesson.setTokenCount(count);
        m_permutation.clear();
        lessonEdited();
    });
    return panel;
}

QWidget* LessonView::buildStepPanel()
{
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    auto* bar = new QHBoxLayout;
    m_previous = new QPushButton(tr("◀ Previous"));
    m_next = new QPushButton(tr("Next ▶"));
    m_previous->setToolTip(tr("Previous step (Left, Page Up)"));
    m_next->setToolTip(tr("Next step (Right, Page Down)"));
    m_stepLabel = new QLabel;
    m_stepLabel->setAlignment(Qt::AlignCenter);
    m_stepLabel->setWordWrap(true); // long step titles wrap instead of widening the window
    bar->addWidget(m_previous);
    bar->addWidget(m_stepLabel, 1);
    bar->addWidget(m_next);
    layout->addLayout(bar);

    m_stepWidget = new LessonStepWidget;
    m_stepWidget->setFocusPolicy(Qt::StrongFocus);
    layout->addWidget(m_stepWidget, 1);
    m_hoverLabel = new QLabel;
    m_hoverLabel->setWordWrap(true);
    m_hoverLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_hoverLabel->setMinimumHeight(48);
    m_hoverLabel->setStyleSheet(
        QStringLiteral("QLabel { background: #f4f6fb; border: 1px solid #c8cfe0; padding: 6px; }"));
    layout->addWidget(m_hoverLabel);

    // One "Save" button with a menu: three buttons side by side made the window too wide for a
    // 1280×800 projector with large fonts.
    auto* exports = new QHBoxLayout;
    m_largeFontsBox = new QCheckBox(tr("Large fonts (projector)"));
    // A push button with a menu: its arrow gets room of its own (a tool button draws it over the "…").
    auto* save = new QPushButton(tr("Save…"));
    save->setObjectName(QStringLiteral("saveMenuButton"));
    auto* saveMenu = new QMenu(save);
    saveMenu->addAction(tr("Save step as image…"), this, &LessonView::saveStepImage);
    saveMenu->addAction(tr("Save matrix as CSV…"), this, &LessonView::saveStepCsv);
    saveMenu->addAction(tr("Save all steps…"), this, &LessonView::saveAllSteps);
    save->setMenu(saveMenu);
    exports->addWidget(m_largeFontsBox);
    exports->addStretch(1);
    exports->addWidget(save);
    layout->addLayout(exports);

    connect(m_previous, &QPushButton::clicked, this, &LessonView::previousStep);
    connect(m_next, &QPushButton::clicked, this, &LessonView::nextStep);
    connect(m_stepWidget, &LessonStepWidget::hoverChanged, this, [this](const QString& text) {
        m_hoverLabel->setText(text.isEmpty() ? tr("Point at a cell to see how its number was computed.")
                                             : text);
    });
    connect(m_largeFontsBox, &QCheckBox::toggled, this, &LessonView::setLargeFonts);
    m_hoverLabel->setText(tr("Point at a cell to see how its number was computed."));
    return panel;
}

QWidget* LessonView::buildExperimentPanel()
{
    auto* tabs = new QTabWidget;
    m_experimentTabs = tabs;
    tabs->addTab(buildScalingTab(), tr("Scaling"));
    tabs->addTab(buildCausalTab(), tr("Causal mask"));
    tabs->addTab(buildPositionsTab(), tr("Positions"));
    tabs->addTab(buildMultiHeadTab(), tr("Multi-head"));
    m_kvCachePanel = new KvCachePanel;
    tabs->addTab(m_kvCachePanel, tr("KV cache"));
    // Five tab names need more than the panel's 30% of a 1280 px window (474 px in Turkish, 413 in
    // English, against 379): a tab bar would hide some behind scroll arrows. The experiments are chosen
    // with buttons in rows of three instead, every one always in sight; the tab widget keeps the pages.
    tabs->tabBar()->hide();
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* chooser = new QGridLayout;
    chooser->setSpacing(2);
    auto* group = new QButtonGroup(panel);
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
    return panel;
}

QWidget* LessonView::buildScalingTab()
{
    auto* tab = new QWidget;
    auto* layout = new QVBoxLayout(tab);
    m_scaling = new QCheckBox(tr("Divide the scores by √d_k"));
    layout->addWidget(m_scaling);
    auto* intro =
        new QLabel(tr("Random queries and keys with unit-variance components: their dot products grow "
                      "with d_k. Without the scaling the softmax collapses onto one token."));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* row = new QHBoxLayout;
    m_dkSlider = new QSlider(Qt::Horizontal);
    m_dkSlider->setRange(4, 512);
    m_dkSlider->setValue(64);
    m_dkLabel = new QLabel;
    row->addWidget(new QLabel(tr("d_k:")));
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
        LessonOptions o = m_lesson.options();
        o.scaling = on;
        applyOption(o);
    });
    connect(m_dkSlider, &QSlider::valueChanged, this, [this] { updateDkExperiment(); });
    return tab;
}

QWidget* LessonView::buildCausalTab()
{
    auto* tab = new QWidget;
    auto* layout = new QVBoxLayout(tab);
    m_causal = new QCheckBox(tr("Causal mask"));
    layout->addWidget(m_causal);
    auto* note =
        new QLabel(tr("A token sees only itself and the tokens before it. The mask puts −∞ above the "
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
        LessonOptions o = m_lesson.options();
        o.causal = on;
        applyOption(o);
    });
    return tab;
}

QWidget* LessonView::buildPositionsTab()
{
    auto* tab = new QWidget;
    auto* layout = new QVBoxLayout(tab);
    auto* form = new QFormLayout;
    m_positions = new QComboBox;
    m_positions->addItem(tr("No positions"));
    m_positions->addItem(tr("RoPE (rotary positions)"));
    form->addRow(tr("Positions:"), m_positions);
    m_theta = new QDoubleSpinBox;
    m_theta->setRange(2, 1e6);
    m_theta->setDecimals(0);
    m_theta->setValue(10000);
    form->addRow(tr("RoPE base θ:"), m_theta);
    layout->addLayout(form);
    m_permute = new QPushButton(tr("Shuffle the tokens"));
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
        LessonOptions o = m_lesson.options();
        o.positions = m_positions->currentIndex() == 1 ? LessonPositions::Rope : LessonPositions::None;
        o.ropeTheta = m_theta->value();
        applyOption(o);
    };
    connect(m_positions, &QComboBox::currentIndexChanged, this, apply);
    connect(m_theta, &QDoubleSpinBox::valueChanged, this, apply);
    connect(m_permute, &QPushButton::clicked, this, [this] {
        // Next cyclic shift: (1, 2, ..., 0), then (2, ..., 1), ...; never the identity.
        const int n = m_lesson.tokenCount();
        const int shift = m_permutation.empty() ? 1 : (m_permutation[0] % n) + 1;
        m_permutation.assign(size_t(n), 0);
        for (int i = 0; i < n; ++i)
            m_permutation[size_t(i)] = (i + (shift % n == 0 ? 1 : shift)) % n;
        updatePositions();
    });
    return tab;
}

QWidget* LessonView::buildMultiHeadTab()
{
    auto* tab = new QWidget;
    auto* layout = new QVBoxLayout(tab);
    auto* form = new QFormLayout;
    m_heads = new QComboBox;
    for (int h : {1, 2, 4})
        m_heads->addItem(QString::number(h), h);
    m_heads->setCurrentIndex(1);
    form->addRow(tr("Heads h:"), m_heads);
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

void LessonView::setLesson(const LessonModel& lesson)
{
    m_lesson = lesson;
    m_permutation.clear();
    syncControls();
    lessonEdited();
}

bool LessonView::openHead(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v, int head,
                          int firstToken, int tokenCount, const QStringList& tokens, double scale,
                          bool causal, QString* error)
{
    try {
        setLesson(LessonModel::fromHead(q, k, v, head, firstToken, tokenCount, tokens, scale, causal));
    } catch (const std::invalid_argument& e) {
        *error = tr("Cannot open this head in the lesson: %1").arg(QString::fromStdString(e.what()));
        return false;
    }
    return true;
}

LessonPaintStyle LessonView::paintStyle() const
{
    LessonPaintStyle style;
    style.fontPointSize = m_largeFonts ? kLargePointSize : kNormalPointSize;
    return style;
}

QString LessonView::hoverReadout() const
{
    return m_hoverLabel->text();
}

QString LessonView::dkExperimentText() const
{
    return m_dkResult->text();
}

void LessonView::syncControls()
{
    m_syncing = true;
    const LessonOptions& o = m_lesson.options();
    m_inputMode->setCurrentIndex(m_lesson.inputMode() == LessonInputMode::QueryKeyValue ? 0 : 1);
    m_tokenCount->setValue(m_lesson.tokenCount());
    m_scaling->setChecked(o.scaling);
    m_causal->setChecked(o.causal);
    m_positions->setCurrentIndex(o.positions == LessonPositions::Rope ? 1 : 0);
    m_theta->setValue(o.ropeTheta);
    m_largeFontsBox->setChecked(m_largeFonts);
    m_syncing = false;
}

void LessonView::applyOption(const LessonOptions& options)
{
    try {
        m_lesson.setOptions(options);
        m_inputError->clear();
    } catch (const std::invalid_argument& e) {
        m_inputError->setText(QString::fromStdString(e.what()));
        syncControls();
    }
    lessonEdited();
}

void LessonView::reloadTables()
{
    m_tokenModel->reload();
    for (LessonMatrixTableModel* model : m_matrixModels)
        model->reload();
    const bool projections = m_lesson.inputMode() == LessonInputMode::Projections;
    for (int i = 0; i < kLessonInputCount; ++i) {
        const LessonInput which = LessonInput(i);
        const bool projectionInput = which == LessonInput::X || which == LessonInput::WQ ||
                                     which == LessonInput::WK || which == LessonInput::WV;
        m_inputTabs->setTabVisible(i + 1, projectionInput == projections);
    }
}

void LessonView::lessonEdited()
{
    // Token names and shapes may have changed: the tables' headers follow the lesson.
    if (sender() != nullptr &&
        (qobject_cast<LessonMatrixTableModel*>(sender()) || qobject_cast<LessonTokenTableModel*>(sender()))) {
        for (LessonMatrixTableModel* model : m_matrixModels)
            Q_EMIT model->headerDataChanged(Qt::Vertical, 0, std::max(0, model->rowCount() - 1));
        if (m_permutation.size() != size_t(m_lesson.tokenCount())) m_permutation.clear();
    } else {
        reloadTables();
    }
    if (m_permutation.size() != size_t(m_lesson.tokenCount())) {
        const int n = m_lesson.tokenCount();
        m_permutation.assign(size_t(n), 0);
        for (int i = 0; i < n; ++i)
            m_permutation[size_t(i)] = (i + (n > 1 ? n - 1 : 0)) % n; // the last token first
    }
    updateStep();
    updateDkExperiment();
    updateCausalComparison();
    updatePositions();
    updateMultiHead();
    Q_EMIT lessonChanged();
}

void LessonView::updateStep()
{
    const LessonStep& step = m_lesson.step(m_step);
    m_stepWidget->setStep(step);
    // The read-out belongs to the numbers it explained: after a change it is rebuilt on the next hover.
    m_hoverLabel->setText(tr("Point at a cell to see how its number was computed."));
    m_stepLabel->setText(tr("Step %1 of %2: %3").arg(m_step + 1).arg(kLessonStepCount).arg(step.title));
    m_previous->setEnabled(m_step > 0);
    m_next->setEnabled(m_step < kLessonStepCount - 1);
}

void LessonView::updateDkExperiment()
{
    const int dk = m_dkSlider->value();
    const bool scaled = m_lesson.options().scaling;
    m_dkLabel->setText(QLocale().toString(dk));
    // As many keys per query as the lesson has tokens, so the experiment speaks about this lesson's rows.
    const int keys = m_lesson.tokenCount();
    const DkExperimentResult r = runDkExperiment(dk, scaled, 1, kDkExperimentQueries, keys);
    m_histogram->setHistogram(r.histogram, scaled ? tr("Scores q·k / √d_k") : tr("Scores q·k (not scaled)"));
    const QString verdict = r.keys < 2              ? tr("with a single key its weight is always 1")
                            : r.meanMaxWeight > 0.9 ? tr("the softmax has collapsed onto one token")
                            : r.meanMaxWeight > 0.6 ? tr("the softmax is close to picking one token")
                                                    : tr("the attention stays spread over several tokens");
    m_dkResult->setText(tr("%1 random queries × %n key(s) each (as many as the lesson's tokens) = %2 scores. "
                           "Spread of the scores: %3. Mean largest weight: %4 — %5.",
                           nullptr, r.keys)
                            .arg(QLocale().toString(r.queries), QLocale().toString(r.queries * r.keys),
                                 lessonFixed(r.scoreStdDev), lessonFixed(r.meanMaxWeight), verdict));
}

void LessonView::updateCausalComparison()
{
    LessonOptions o = m_lesson.options();
    LessonModel open = m_lesson, masked = m_lesson;
    o.causal = false;
    open.setOptions(o);
    o.causal = true;
    masked.setOptions(o);
    LessonStep a = open.step(LessonStepKind::Softmax);
    a.title = tr("Without the mask");
    a.formula.clear();
    LessonStep b = masked.step(LessonStepKind::Softmax);
    b.title = tr("With the causal mask");
    b.formula = tr("rows renormalised over the visible tokens");
    m_unmaskedSoftmax->setStep(a);
    m_maskedSoftmax->setStep(b);
}

void LessonView::updatePositions()
{
    const int n = m_lesson.tokenCount();
    if (m_permutation.size() != size_t(n)) return;
    const LessonModel moved = m_lesson.permuted(m_permutation);
    LessonStep original = m_lesson.step(LessonStepKind::Output);
    original.title = tr("Output, original order");
    original.formula.clear();
    LessonStep shuffled = moved.step(LessonStepKind::Output);
    shuffled.title = tr("Output, tokens shuffled");
    shuffled.formula.clear();
    m_originalOutput->setStep(original);
    m_permutedOutput->setStep(shuffled);
    double difference = 0;
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < moved.output().cols(); ++c)
            difference = std::max(
                difference, std::abs(moved.output()(i, c) - m_lesson.output()(m_permutation[size_t(i)], c)));
    if (difference < 1e-9)
        m_permutationVerdict->setText(
            tr("Every token's output row is the same, only in another order: without "
               "positions, attention does not see word order."));
    else if (m_lesson.options().positions == LessonPositions::Rope)
        m_permutationVerdict->setText(
            tr("The rows change (by up to %1): RoPE turns each query and key by its "
               "position, so the scores depend on the order.")
                .arg(lessonFixed(difference)));
    else
        m_permutationVerdict->setText(
            tr("The rows change (by up to %1): the causal mask depends on the order.")
                .arg(lessonFixed(difference)));
    const bool rope = m_lesson.options().positions == LessonPositions::Rope;
    m_dials->setVisible(rope);
    m_theta->setEnabled(rope);
    if (rope && m_lesson.keyDimension() % 2 == 0)
        m_dials->setAngles(lessonRopeAngles(n, m_lesson.keyDimension(), m_lesson.options().ropeTheta),
                           m_lesson.tokens());
}

void LessonView::updateMultiHead()
{
    // The lesson's own tokens and numbers, split into h heads.
    const MultiHeadLesson split = MultiHeadLesson::fromLesson(m_lesson, m_heads->currentData().toInt());
    auto* grid = static_cast<QGridLayout*>(m_multiHeadArea->layout());
    for (LessonStepWidget* w : m_multiHeadWidgets)
        w->deleteLater();
    m_multiHeadWidgets.clear();
    MultiHeadResult r;
    try {
        r = split.compute();
    } catch (const std::invalid_argument& e) {
        m_multiHeadNote->setText(tr("This lesson cannot be split into %1 heads: %2")
                                     .arg(split.heads)
                                     .arg(QString::fromStdString(e.what())));
        return;
    }
    m_multiHeadNote->setText(
        tr("The lesson's Q and K have d_k = %1 columns, so each of the %2 heads takes %3 of "
           "them (and %4 of V's): the columns a fused projection gives that head. Each head "
           "is the same attention, scaled by 1/√%3; their outputs are concatenated. A real "
           "layer then mixes them with W_O.")
            .arg(split.queries.cols())
            .arg(r.heads)
            .arg(r.headDim)
            .arg(r.valueHeadDim));
    const LessonPaintStyle style = paintStyle();
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
        add(displayStep(tr("Head %1: weights").arg(h + 1),
                        QStringLiteral("softmax(Q_%1·K_%1ᵀ / √%2)").arg(h + 1).arg(r.headDim),
                        r.probabilities[size_t(h)], split.tokens, split.tokens, true),
            h / 2, h % 2, 1);
    add(displayStep(tr("Concatenated head outputs"), QStringLiteral("[O_1 | … | O_h]"), r.concat,
                    split.tokens, dimensionLabels(int(r.concat.cols())), false),
        (r.heads + 1) / 2, 0, 2);
}

void LessonView::setCurrentStep(int step)
{
    step = std::clamp(step, 0, kLessonStepCount - 1);
    if (step == m_step) return;
    m_step = step;
    updateStep();
    Q_EMIT stepChanged(m_step);
}

void LessonView::nextStep()
{
    setCurrentStep(m_step + 1);
}

void LessonView::previousStep()
{
    setCurrentStep(m_step - 1);
}

void LessonView::setLargeFonts(bool on)
{
    m_largeFonts = on;
    if (m_largeFontsBox->isChecked() != on) m_largeFontsBox->setChecked(on);
    applyFonts();
}

void LessonView::applyFonts()
{
    const LessonPaintStyle style = paintStyle();
    for (LessonStepWidget* w :
         {m_stepWidget, m_unmaskedSoftmax, m_maskedSoftmax, m_originalOutput, m_permutedOutput})
        w->setPaintStyle(style);
    m_histogram->setFontPointSize(style.fontPointSize * 0.8);
    m_dials->setFontPointSize(style.fontPointSize * 0.8);
    QFont big = m_hoverLabel->font();
    big.setPointSizeF(m_largeFonts ? 18 : 12);
    m_hoverLabel->setFont(big);
    QFont whole = font();
    whole.setPointSizeF(m_largeFonts ? 15 : QApplication::font().pointSizeF());
    setFont(whole);
    updateMultiHead();
}

void LessonView::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Right:
    case Qt::Key_PageDown:
        nextStep();
        event->accept();
        return;
    case Qt::Key_Left:
    case Qt::Key_PageUp:
        previousStep();
        event->accept();
        return;
    default:
        QWidget::keyPressEvent(event);
    }
}

QImage LessonView::renderStep(int step, QSize size) const
{
    return renderLessonStepImage(m_lesson.step(step), paintStyle(), size);
}

bool LessonView::exportStepImage(const QString& path, int step, QString* error) const
{
    const QSize size = m_largeFonts ? QSize(1600, 1000) : QSize(1000, 640);
    const QImage image = renderStep(step, size);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    if (!buffer.open(QIODevice::WriteOnly) || !image.save(&buffer, "PNG")) {
        *error = tr("%1: cannot write the image (%2)").arg(path, tr("PNG encoding failed"));
        return false;
    }
    return writeFile(path, bytes, error);
}

bool LessonView::exportStepCsv(const QString& path, int step, QString* error) const
{
    return writeFile(path, lessonStepCsv(m_lesson.step(step)), error);
}

bool LessonView::exportAll(const QString& directory, QStringList* written, QString* error) const
{
    QDir dir(directory);
    if (!dir.mkpath(QStringLiteral("."))) {
        *error = tr("%1: cannot create the folder").arg(directory);
        return false;
    }
    for (int s = 0; s < kLessonStepCount; ++s) {
        const QString png = dir.absoluteFilePath(stepFileStem(s) + QStringLiteral(".png"));
        const QString csv = dir.absoluteFilePath(stepFileStem(s) + QStringLiteral(".csv"));
        if (!exportStepImage(png, s, error) || !exportStepCsv(csv, s, error)) return false;
        *written << png << csv;
    }
    const bool projections = m_lesson.inputMode() == LessonInputMode::Projections;
    for (int i = 0; i < kLessonInputCount; ++i) {
        const LessonInput which = LessonInput(i);
        const bool projectionInput = which == LessonInput::X || which == LessonInput::WQ ||
                                     which == LessonInput::WK || which == LessonInput::WV;
        if (projectionInput != projections) continue;
        const Eigen::MatrixXd& m = m_lesson.input(which);
        const bool tokenRows = which == LessonInput::Q || which == LessonInput::K ||
                               which == LessonInput::V || which == LessonInput::X;
        const QString path = dir.absoluteFilePath(QStringLiteral("input-%1.csv").arg(lessonInputName(which)));
        if (!writeFile(path,
                       lessonMatrixCsv(m, tokenRows ? m_lesson.tokens() : dimensionLabels(int(m.rows())),
                                       dimensionLabels(int(m.cols()))),
                       error))
            return false;
        *written << path;
    }
    return true;
}

void LessonView::saveStepImage()
{
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save step as image"),
                                     stepFileStem(m_step) + QStringLiteral(".png"), tr("PNG images (*.png)"));
    QString error;
    if (!path.isEmpty() && !exportStepImage(path, m_step, &error))
        QMessageBox::warning(this, tr("Save step as image"), error);
}

void LessonView::saveStepCsv()
{
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save matrix as CSV"),
                                     stepFileStem(m_step) + QStringLiteral(".csv"), tr("CSV files (*.csv)"));
    QString error;
    if (!path.isEmpty() && !exportStepCsv(path, m_step, &error))
        QMessageBox::warning(this, tr("Save matrix as CSV"), error);
}

void LessonView::saveAllSteps()
{
    const QString directory = QFileDialog::getExistingDirectory(this, tr("Save all steps into a folder"));
    if (directory.isEmpty()) return;
    QStringList written;
    QString error;
    if (!exportAll(directory, &written, &error)) QMessageBox::warning(this, tr("Save all steps"), error);
}

} // namespace attnscope
