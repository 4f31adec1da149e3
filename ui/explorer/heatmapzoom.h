#pragma once

#include "explorer/explorerresult.h"
#include "render/heatmapdata.h"

#include <QWidget>
#include <memory>

class QLabel;

namespace attnscope {

class HeatmapWidget;

// Beside the overview of a long input (more than kMinimumTokens tokens), a readable window of it: the exact
// kSize × kSize block around the cell under the mouse in the overview, every token labelled. The overview
// pools cells and thins its labels to every k-th at the minimum size; the window is where a student reads
// which token attends to which.
class HeatmapZoomWindow : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kMinimumTokens = 100; // longer inputs get the window
    static constexpr int kSize = 20;           // tokens on each side of the block

    explicit HeatmapZoomWindow(QWidget* parent = nullptr);

    // The head the overview shows; the window shows it when the input is long enough (else it hides).
    void setHead(std::shared_ptr<const ExplorerResult> result, int layer, int head);
    void clear();
    // Centres the block on a matrix cell (row: query, col: key), clamped so that the block is full.
    void centerOn(int row, int col);
    int firstRow() const { return m_row0; }
    int firstCol() const { return m_col0; }
    static bool wanted(int tokens) { return tokens > kMinimumTokens; }
    HeatmapWidget* view() const { return m_view; }
    void setStyle(const HeatmapStyle& style);

    // The exact block [row0, row0 + size) × [col0, col0 + size) of one head as plain data: its values, its
    // labels and special flags, the causal mask shifted to the block's place, the title naming the range.
    static HeatmapData block(const ExplorerResult& result, int layer, int head, int row0, int col0, int size);

protected:
    void changeEvent(QEvent* event) override;

private:
    void refresh();

    std::shared_ptr<const ExplorerResult> m_result;
    int m_layer = 0, m_head = 0, m_row0 = 0, m_col0 = 0;
    QLabel* m_hint = nullptr;
    HeatmapWidget* m_view = nullptr;
};

} // namespace attnscope
