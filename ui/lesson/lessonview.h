#pragma once

#include "lesson/lessonexperimentspanel.h"
#include "lesson/lessonmodel.h"
#include "lesson/lessonsteppainter.h"

#include <QImage>
#include <QWidget>
#include <array>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTabWidget;
class QTableView;

namespace attnscope {

class KvCachePanel;
class LessonHistogramWidget;
class LessonMatrixTableModel;
class LessonRopeDialsWidget;
class LessonStepWidget;
class LessonTokenTableModel;

// Lesson mode: scaled dot-product attention step by step with real numbers, for the classroom.
// Left: the editable inputs (token names, Q/K/V or X with W_Q/W_K/W_V). Centre: the current step with
// its formula and numbers; hovering a cell explains it; Previous/Next, Left/Right and PageUp/PageDown
// step through the five steps. Right: the experiments (scaling and d_k, causal mask, positions,
// multi-head). The main window hosts it as a widget, or LessonWindow shows it on its own.
class LessonView : public QWidget
{
    Q_OBJECT
public:
    explicit LessonView(QWidget* parent = nullptr);
    ~LessonView() override;

    // "Open in lesson": replaces what the view shows (e.g. LessonModel::fromHead of a selected head).
    void setLesson(const LessonModel& lesson);
    // "Open in lesson" from the explorer: head `head` of a layer's Q, K (after RoPE) and V for tokens
    // [firstToken, firstToken + tokenCount), at most 16 (see LessonModel::fromHead). Returns false and
    // sets *error (a sentence for the user) when the range or the shapes do not fit; the view is unchanged.
    bool openHead(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v, int head, int firstToken,
                  int tokenCount, const QStringList& tokens, double scale, bool causal, QString* error);
    const LessonModel& lesson() const { return m_lesson; }

    int currentStep() const { return m_step; } // 0..4, LessonStepKind
    bool largeFonts() const { return m_largeFonts; }
    LessonPaintStyle paintStyle() const;

    LessonStepWidget* stepWidget() const { return m_stepWidget; }
    LessonMatrixTableModel* matrixModel(LessonInput which) const { return m_matrixModels[size_t(which)]; }
    LessonTokenTableModel* tokenModel() const { return m_tokenModel; }
    QString hoverReadout() const;
    // The experiments' parts, for tests: the √d_k histogram and its sentence, the multi-head panels.
    LessonHistogramWidget* histogramWidget() const { return m_experiments->histogramWidget(); }
    QString dkExperimentText() const { return m_experiments->dkExperimentText(); }
    const std::vector<LessonStepWidget*>& multiHeadWidgets() const
    {
        return m_experiments->multiHeadWidgets();
    }
    QTabWidget* experimentTabs() const { return m_experiments->experimentTabs(); }
    // The KV-cache calculator's tab: LessonLauncher gives it the explorer's model (setLoadedModel).
    KvCachePanel* kvCachePanel() const { return m_experiments->kvCachePanel(); }
    // A line above the lesson about the model it came from (LessonLauncher: "too small to have sinks");
    // hidden when empty.
    void setModelNote(const QString& text);
    QLabel* modelNote() const { return m_modelNote; }

    // Exports, written whole or not at all (io/outputfile.h). They return false and set *error on failure.
    QImage renderStep(int step, QSize size) const;
    bool exportStepImage(const QString& path, int step, QString* error) const;
    bool exportStepCsv(const QString& path, int step, QString* error) const;
    // Every step as stepN-name.png and .csv, and the inputs as CSV, into a directory.
    bool exportAll(const QString& directory, QStringList* written, QString* error) const;

public Q_SLOTS:
    void setCurrentStep(int step);
    void nextStep();
    void previousStep();
    void setLargeFonts(bool on);
    void saveStepImage(); // asks for a file
    void saveStepCsv();   // asks for a file
    void saveAllSteps();  // asks for a directory

Q_SIGNALS:
    void stepChanged(int step);
    void lessonChanged();

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void buildUi();
    void shareTheWidth();
    void rebuildForLanguage();
    QWidget* buildInputPanel();
    QWidget* buildStepPanel();
    void lessonEdited(); // after any change of the lesson: recompute what is shown
    void reloadTables();
    void syncControls();
    void updateStep();
    void applyOption(const LessonOptions& options);
    void applyFonts();

    LessonModel m_lesson;
    int m_step = 0;
    bool m_largeFonts = false;
    bool m_syncing = false;
    bool m_rebuildPending = false;
    bool m_widthShared = false;

    QSplitter* m_root = nullptr;
    LessonExperimentsPanel* m_experiments = nullptr;
    LessonTokenTableModel* m_tokenModel = nullptr;
    std::array<LessonMatrixTableModel*, kLessonInputCount> m_matrixModels{};
    std::array<QTableView*, kLessonInputCount> m_matrixViews{};
    QTabWidget* m_inputTabs = nullptr;
    QComboBox* m_inputMode = nullptr;
    QSpinBox* m_tokenCount = nullptr;
    QLabel* m_inputError = nullptr;
    QLabel* m_modelNote = nullptr;

    LessonStepWidget* m_stepWidget = nullptr;
    QLabel* m_stepLabel = nullptr;
    QLabel* m_hoverLabel = nullptr;
    QPushButton* m_previous = nullptr;
    QPushButton* m_next = nullptr;
    QCheckBox* m_largeFontsBox = nullptr;
};

} // namespace attnscope
