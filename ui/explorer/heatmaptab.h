#pragma once

#include "render/heatmapdata.h"

#include <QMargins>
#include <QWidget>
#include <optional>

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;

namespace attnscope {

class HeatmapWidget;
class HeatmapZoomWindow;
class Retranslation;

// The Heatmap tab: one head's attention (HeatmapWidget) under its controls (colour map, scale, discount of
// special tokens, words instead of pieces, fit, open in lesson) and above the hover read-out. The window
// chooses which head it shows and how presenter mode restyles it.
class HeatmapTab : public QWidget
{
    Q_OBJECT
public:
    // openInLesson: the window's action (its shortcut works anywhere in the window), shown as a button here.
    HeatmapTab(QAction* openInLesson, QWidget* parent = nullptr);

    HeatmapWidget* heatmap() const { return m_heatmap; }
    HeatmapZoomWindow* zoomWindow() const { return m_zoom; } // beside a long input's overview
    QLabel* readout() const { return m_readout; }
    QComboBox* colorMapBox() const { return m_colorMapBox; }
    QComboBox* scaleBox() const { return m_scaleBox; }
    QCheckBox* discountBox() const { return m_discount; }
    // The colour map and scale chosen, at the explorer's font size.
    HeatmapStyle chosenStyle() const;
    bool wordLevel() const;
    // The Words view is built from a head's dense matrix, kept only up to kDenseHeatmapLimit tokens: for a
    // longer input the box says so instead of a toggle that does nothing.
    void setTokenCount(int tokens);
    // Presenter mode: the controls row and the read-out line give their height to the heatmap.
    void setControlsVisible(bool visible);

Q_SIGNALS:
    void styleChosen();      // colour map or scale
    void wordLevelToggled(); // the head is to be shown again

private:
    void updateWordLevelControl();

    Retranslation* m_retranslation;
    QComboBox* m_colorMapBox = nullptr;
    QComboBox* m_scaleBox = nullptr;
    QCheckBox* m_discount = nullptr;
    QCheckBox* m_wordLevel = nullptr;
    HeatmapWidget* m_heatmap = nullptr;
    QLabel* m_readout = nullptr;
    QWidget* m_controls = nullptr;
    HeatmapZoomWindow* m_zoom = nullptr;
    std::optional<QMargins> m_savedMargins; // the layout's own, while presenter mode has none
    int m_tokens = 0;
};

} // namespace attnscope
