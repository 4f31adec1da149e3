#pragma once

#include "explorer/arclayout.h"
#include "explorer/explorerresult.h"

#include <QWidget>

#include <memory>

namespace attnscope {

// The arc view of the selected heads (ArcLayout). Long inputs show their first kMaxTokens tokens.
class ArcWidget : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kMaxTokens = 64;

    explicit ArcWidget(QWidget* parent = nullptr);
    void setResult(std::shared_ptr<const ExplorerResult> result);
    void setHeads(std::vector<std::pair<int, int>> heads); // (layer, head), each drawn in its own colour
    const std::vector<std::pair<int, int>>& heads() const { return m_heads; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void rebuild();
    int shownTokens() const;

    std::shared_ptr<const ExplorerResult> m_result;
    std::vector<std::pair<int, int>> m_heads;
    std::vector<std::vector<float>> m_matrices;
    std::optional<ArcLayout> m_layout;
    std::optional<ArcLayout::TokenHit> m_hover;
    bool m_dirty = false; // tiles are fetched when the view is shown
};

} // namespace attnscope
