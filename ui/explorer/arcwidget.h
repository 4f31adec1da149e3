#pragma once

#include "explorer/arclayout.h"
#include "explorer/explorerresult.h"
#include "render/axislabels.h"

#include <QWidget>

class QPainter;
class QSpinBox;
#include <memory>
#include <optional>

namespace attnscope {

// The arc view of the selected heads (ArcLayout). Inputs longer than kMaxTokens show a window of kMaxTokens
// consecutive tokens: the legend line says which ("tokens 65–128 of 193") and a spin box beside it moves
// the window (its last position ends on the final token, [SEP] or EOS).
class ArcWidget : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kMaxTokens = 64;
    static constexpr double kLabelWidth = 110; // token label column on each side

    explicit ArcWidget(QWidget* parent = nullptr);
    void setResult(std::shared_ptr<const ExplorerResult> result);
    void setHeads(std::vector<std::pair<int, int>> heads); // (layer, head), each drawn in its own colour
    const std::vector<std::pair<int, int>>& heads() const { return m_heads; }
    // The window on a long input: its first token (0-based, clamped so that the window is full) and how
    // many tokens it shows (all of them up to kMaxTokens).
    void setWindowStart(int first);
    int windowStart() const { return m_first; }
    int shownTokens() const;
    int totalTokens() const;
    // The legend's note on a long input ("tokens 65–128 of 193"); empty when every token is shown.
    QString windowNote() const;
    QSpinBox* windowBox() const { return m_windowBox; }
    // The screen's paint code onto any painter (export): the same view laid out in area, without hover.
    void paintView(QPainter& painter, const QRectF& area) const;
    // Where the arcs and token columns go inside area (the legend line is above): ArcLayout's area.
    static QRectF arcArea(const QRectF& area);
    // The layout paintView draws in area (none without a result).
    std::optional<ArcLayout> pageLayout(const QRectF& area) const;
    // Which token labels are drawn, at what size, for a layout on a device in a font: every one while they
    // fit, the font shrinking to its minimum first, then every k-th with the special tokens kept.
    AxisLabelPlan labelPlan(const ArcLayout& layout, const QPaintDevice* device, const QFont& font) const;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    std::vector<std::vector<float>> fetchMatrices() const;
    // reserveRight: pixels at the legend line's right end kept free (the window box on screen).
    void paintWith(QPainter& painter, const QRectF& area, const ArcLayout* layout,
                   const std::optional<ArcLayout::TokenHit>& hover, double reserveRight = 0) const;
    void updateWindowBox();
    void retranslate();

    std::shared_ptr<const ExplorerResult> m_result;
    std::vector<std::pair<int, int>> m_heads;
    std::vector<std::vector<float>> m_matrices;
    std::optional<ArcLayout> m_layout;
    std::optional<ArcLayout::TokenHit> m_hover;
    bool m_dirty = false;            // tiles are fetched when the view is shown
    int m_first = 0;                 // the window's first token
    QSpinBox* m_windowBox = nullptr; // 1-based first token, shown for long inputs only
};

} // namespace attnscope
