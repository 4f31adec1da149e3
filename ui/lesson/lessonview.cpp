#include "lesson/lessonview.h"

#include "io/outputfile.h"
#include "lesson/lessoncsv.h"
#include "lesson/lessonexperimentspanel.h"
#include "lesson/lessonmatrixtablemodel.h"
#include "lesson/lessonstepwidget.h"
#include "lesson/lessontokentablemodel.h"

#include <QApplication>
#include <QBuffer>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <functional>
#include <stdexcept>

namespace attnscope {

namespace {

constexpr double kNormalPointSize = 12.0;
constexpr double kLargePointSize = 20.0;

// The user chose the file in a dialog that asked before replacing it: overwriting is allowed, the rest of
// the output policy holds (io/outputfile.h: atomic, never over a device, FIFO or folder).
bool writeFile(const QString& path, const QByteArray& bytes, QString* error)
{
    return writeOutputFile(path, bytes, true, error);
}

QString stepFileStem(int step)
{
    static const char* const names[] = {"scores", "scaling", "mask", "softmax", "output"};
    return QStringLiteral("step%1-%2").arg(step + 1).arg(QLatin1String(names[step]));
}

// Save step as image / as CSV: asks where (caption, suggested file name, filter), writes there with `write`;
// a failure is said in a message box with the same caption.
void saveStepFile(QWidget* parent, const QString& caption, const QString& fileName, const QString& filter,
                  const std::function<bool(const QString& path, QString* error)>& write)
{
    const QString path = QFileDialog::getSaveFileName(parent, caption, fileName, filter);
    QString error;
    if (!path.isEmpty() && !write(path, &error)) QMessageBox::warning(parent, caption, error);
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
    m_root = new QSplitter(Qt::Horizontal, this);
    m_root->addWidget(buildInputPanel());
    m_root->addWidget(buildStepPanel());
    m_experiments = new LessonExperimentsPanel(&m_lesson);
    connect(m_experiments, &LessonExperimentsPanel::optionsChosen, this, &LessonView::applyOption);
    m_root->addWidget(m_experiments);
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
    const LessonExperimentsPanel::Choices experiments = m_experiments->choices();
    const int input = m_inputTabs->currentIndex();
    const bool hadFocus = m_stepWidget->hasFocus();
    QSplitter* old = m_root;
    old->hide();
    layout()->removeWidget(old);
    old->deleteLater();
    m_lesson.retranslate();
    buildUi();
    m_experiments->restore(experiments);
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
        m_experiments->clearPermutation();
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

void LessonView::setLesson(const LessonModel& lesson)
{
    m_lesson = lesson;
    m_experiments->clearPermutation();
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

void LessonView::syncControls()
{
    m_syncing = true;
    m_inputMode->setCurrentIndex(m_lesson.inputMode() == LessonInputMode::QueryKeyValue ? 0 : 1);
    m_tokenCount->setValue(m_lesson.tokenCount());
    m_experiments->syncControls();
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
    } else {
        reloadTables();
    }
    updateStep();
    m_experiments->showLesson();
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
    m_stepWidget->setPaintStyle(style);
    m_experiments->setPaintStyle(style);
    QFont big = m_hoverLabel->font();
    big.setPointSizeF(m_largeFonts ? 18 : 12);
    m_hoverLabel->setFont(big);
    QFont whole = font();
    whole.setPointSizeF(m_largeFonts ? 15 : QApplication::font().pointSizeF());
    setFont(whole);
    m_experiments->updateMultiHead();
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
                       lessonMatrixCsv(m,
                                       tokenRows ? m_lesson.tokens() : lessonDimensionLabels(int(m.rows())),
                                       lessonDimensionLabels(int(m.cols()))),
                       error))
            return false;
        *written << path;
    }
    return true;
}

void LessonView::saveStepImage()
{
    saveStepFile(this, tr("Save step as image"), stepFileStem(m_step) + QStringLiteral(".png"),
                 tr("PNG images (*.png)"), [this](const QString& path, QString* error) {
                     return exportStepImage(path, m_step, error);
                 });
}

void LessonView::saveStepCsv()
{
    saveStepFile(this, tr("Save matrix as CSV"), stepFileStem(m_step) + QStringLiteral(".csv"),
                 tr("CSV files (*.csv)"),
                 [this](const QString& path, QString* error) { return exportStepCsv(path, m_step, error); });
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
