#pragma once

#include "explorer/analysisrunner.h"
#include "explorer/comparisonpage.h"
#include "render/heatmapdata.h"
#include "render/heatmapgeometry.h"

#include <QVector>
#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTimer;
class QPainter;
class QPaintDevice;
class QHBoxLayout;
class QGridLayout;
class QScrollArea;

namespace attnscope {

class HeatmapWidget;

// Head comparison: 2–4 heads side by side (any layers) with synced hover and zoom; the difference of
// the first two on the diverging map; one head on two sentences with the tokens aligned; or the same head
// of two models on the same text (e.g. the F16 and the Q4_K file of one model: quantization moves sinks).
class ComparisonWidget : public QWidget
{
    Q_OBJECT
public:
    enum class Mode { SideBySide, Difference, TwoSentences, TwoModels };
    // The matrix side (pixels) every pane of the three-pane modes keeps at least, as two heads side by side
    // get at 1280×800; a narrower tab scrolls sideways.
    static constexpr double kFullSizeMatrix = 300;
    Mode mode() const { return m_mode; }
    // The three-pane modes want the window's width (the window hides its head grid for them).
    bool wantsFullWidth() const { return m_mode != Mode::SideBySide; }
    struct ModelChoice
    {
        QString name;
        QString path; // a model folder or .gguf file
    };

    explicit ComparisonWidget(QWidget* parent = nullptr);

    void setEngine(std::shared_ptr<const AttentionEngine> engine);
    void setResult(std::shared_ptr<const ExplorerResult> result);
    void setStyle(const HeatmapStyle& style);
    void setMode(Mode mode);
    void setSecondSentence(const QString& text);
    QString secondSentence() const;
    // The models the "two models" mode offers as the second one (the main window's list).
    void setModelChoices(const QVector<ModelChoice>& choices);
    // Picks the second model by path (opening it; false with the reason in the note when it cannot be).
    bool setSecondModel(const QString& path);
    // The second model as an engine, for callers that have one already (tests).
    void setSecondEngine(std::shared_ptr<const AttentionEngine> engine);
    void setHeads(const std::vector<std::pair<int, int>>& heads);
    std::vector<std::pair<int, int>> heads() const;
    // The heads the user (or setHeads) chose beyond the first pane, which follows the open head.
    std::vector<std::pair<int, int>> pickedHeads() const;
    // The head open in the explorer: the first pane shows it (and follows it), new selectors start from it
    // and the heads after it.
    void setFocusHead(int layer, int head);
    const std::vector<HeatmapWidget*>& panes() const { return m_panes; }
    AnalysisRunner* secondRunner() const { return m_secondRunner; }
    // The panes as shown (each pane's own paint code through QWidget::render), scaled to fit area with
    // their aspect kept, on a white page. Draws a note when no pane is shown.
    void paintPanes(QPainter& painter, const QRectF& area) const;
    // Rows × columns for `count` panes in an area: the shape whose square panes are largest (3 panes in a
    // wide area side by side, in a tall one stacked, 4 in 2 × 2 when that is larger).
    static std::pair<int, int> paneGridShape(int count, QSizeF area);
    // Where paintPanes puts each pane on a page and the cell geometry it paints it with (empty for long
    // inputs, whose panes are drawn as shown on screen).
    using PagePane = ComparisonPagePane;
    std::vector<PagePane> pageLayout(const QPaintDevice* device, const QRectF& area) const;
    // The pane area's viewport (tests: the room the panes share).
    QScrollArea* paneScrollArea() const { return m_paneScroll; }
    // The size of an exported page: `page`, widened until every pane keeps every label (at most to 3× its
    // width), then its height cut to end a margin under the panes' square matrices (no blank band) where
    // that keeps their cells as large and every label; `page` itself when nothing keeps every label (long
    // inputs).
    QSize exportPageSize(QSize page) const;
    static QRectF pageTitleRect(const QPaintDevice* device, const QRectF& area);
    // The difference view's scale: its colour bar runs over ±this (the largest absolute difference).
    float differenceRange() const { return m_differenceRange; }

Q_SIGNALS:
    void modeChanged();

protected:
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void retranslate();
    void rebuildSelectors();
    void rebuildWhenVisible();
    void rebuildPanes();
    void runSecond();
    void showAligned(const ExplorerResult& first, const ExplorerResult& second, int layer, int head,
                     const QString& firstTitle, const QString& secondTitle, const QString& differenceTitle);
    HeatmapWidget* addPane();

    std::shared_ptr<const AttentionEngine> m_engine, m_secondEngine;
    QVector<ModelChoice> m_choices;
    QComboBox* m_modelChoice = nullptr;
    QString m_secondEngineError;
    std::shared_ptr<const ExplorerResult> m_result, m_second;
    HeatmapStyle m_style;
    Mode m_mode = Mode::SideBySide;
    QComboBox* m_modeBox = nullptr;
    QSpinBox* m_count = nullptr;
    std::vector<QComboBox*> m_selectors;
    // Per selector: the user (or setHeads) chose its head; the others follow the open head.
    std::vector<bool> m_picked;
    QHBoxLayout* m_selectorRow = nullptr;
    QLineEdit* m_sentence = nullptr;
    QString m_defaultSentence; // the sentence set for the last Text A (secondsentence.h)
    QLabel* m_note = nullptr;
    QLabel* m_headsLabel = nullptr;
    QLabel* m_sentenceLabel = nullptr;
    void placePanes();
    void applyPaneStyles();
    // Every pane's cells at the size of the smallest pane's fit (the one with the colour bar has less room).
    void equalizeCellSizes();
    // Each pane at least as wide as its labels need (every token up to 64 labelled); the pane area
    // scrolls sideways when the tab is narrower than that.
    void updatePaneMinimumWidths();
    QScrollArea* m_paneScroll = nullptr;
    QWidget* m_paneHost = nullptr;
    QGridLayout* m_paneGrid = nullptr;
    float m_differenceRange = 0;
    std::vector<HeatmapWidget*> m_panes;
    AnalysisRunner* m_secondRunner = nullptr;
    QTimer* m_debounce = nullptr;
    bool m_keepSelection = true;
    std::pair<int, int> m_focusHead{0, 0};
    bool m_dirty = false; // panes are rebuilt when the tab is shown, not for every result in the background
};

} // namespace attnscope
