#pragma once

#include "explorer/arclayout.h"
#include "explorer/explorerresult.h"
#include "render/axislabels.h"

#include <QWidget>

class QPainter;
#include <memory>
#include <optional>

namespace attnscope {

// The arc view of the selected heads (ArcLayout). Long inputs show their first kMaxTokens tokens.
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

private:
    void rebuild();
    std::vector<std::vector<float>> fetchMatrices() const;
    void paintWith(QPainter& painter, const QRectF& area, const ArcLayout* layout,
                   const std::optional<ArcLayout::TokenHit>& hover) const;
    int shownTokens() const;

    std::shared_ptr<const ExplorerResult> m_result;
    std::vector<std::pair<int, int>> m_heads;
    std::vector<std::vector<float>> m_matrices;
    std::optional<ArcLayout> m_layout;
    std::optional<ArcLayout::TokenHit> m_hover;
    bool m_dirty = false; // tiles are fetched when the view is shown
};

} // namespace attnscope
