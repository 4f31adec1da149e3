#pragma once

#include "lesson/lessonmodel.h"
#include "lesson/lessonsteppainter.h"

#include <QWidget>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QTabWidget;

namespace attnscope {

class KvCachePanel;
class LessonHistogramWidget;
class LessonRopeDialsWidget;
class LessonStepWidget;

// The lesson's right-hand panel: the experiments on the lesson's numbers, chosen with buttons in rows of
// three (scaling and d_k, causal mask, positions and shuffled tokens, multi-head, the KV-cache calculator).
// It reads the lesson (owned by LessonView) and never changes it: an option chosen here is asked for with
// optionsChosen, and LessonView applies it and calls showLesson.
class LessonExperimentsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit LessonExperimentsPanel(const LessonModel* lesson, QWidget* parent = nullptr);

    // The option controls from the lesson's options (without emitting optionsChosen).
    void syncControls();
    // The experiments' matrices and charts in the lesson's fonts; updateMultiHead rebuilds the heads with it.
    void setPaintStyle(const LessonPaintStyle& style);
    // The token order of the "Shuffle the tokens" experiment starts again (the token count changed).
    void clearPermutation();
    // Every experiment recomputed from the lesson (after any change of it).
    void showLesson();
    void updateMultiHead();

    // What the user chose here, kept across a rebuild for a new language: d_k, the number of heads (as an
    // index of its list), the experiment shown and the shuffled token order.
    struct Choices
    {
        int dk = 64;
        int headsIndex = 1;
        int experiment = 0;
        std::vector<int> permutation;
    };
    Choices choices() const;
    void restore(const Choices& choices);

    // The experiments' parts, for tests: the √d_k histogram and its sentence, the multi-head panels.
    LessonHistogramWidget* histogramWidget() const { return m_histogram; }
    QString dkExperimentText() const;
    const std::vector<LessonStepWidget*>& multiHeadWidgets() const { return m_multiHeadWidgets; }
    QTabWidget* experimentTabs() const { return m_tabs; }
    KvCachePanel* kvCachePanel() const { return m_kvCachePanel; }

Q_SIGNALS:
    void optionsChosen(const LessonOptions& options);

private:
    QWidget* buildScalingTab();
    QWidget* buildCausalTab();
    QWidget* buildPositionsTab();
    QWidget* buildMultiHeadTab();
    void updateDkExperiment();
    void updateCausalComparison();
    void updatePositions();

    const LessonModel* m_lesson;
    LessonPaintStyle m_style;
    bool m_syncing = false;
    std::vector<int>
        m_permutation; // the shuffled order: row i of the shuffled lesson is token m_permutation[i]

    QTabWidget* m_tabs = nullptr;
    KvCachePanel* m_kvCachePanel = nullptr;

    QCheckBox* m_scaling = nullptr;
    QSlider* m_dkSlider = nullptr;
    QLabel* m_dkLabel = nullptr;
    QLabel* m_dkResult = nullptr;
    LessonHistogramWidget* m_histogram = nullptr;

    QCheckBox* m_causal = nullptr;
    LessonStepWidget* m_unmaskedSoftmax = nullptr;
    LessonStepWidget* m_maskedSoftmax = nullptr;

    QComboBox* m_positions = nullptr;
    QDoubleSpinBox* m_theta = nullptr;
    QPushButton* m_permute = nullptr;
    LessonStepWidget* m_originalOutput = nullptr;
    LessonStepWidget* m_permutedOutput = nullptr;
    QLabel* m_permutationVerdict = nullptr;
    LessonRopeDialsWidget* m_dials = nullptr;

    QComboBox* m_heads = nullptr;
    QWidget* m_multiHeadArea = nullptr;
    std::vector<LessonStepWidget*> m_multiHeadWidgets;
    QLabel* m_multiHeadNote = nullptr;
};

} // namespace attnscope
