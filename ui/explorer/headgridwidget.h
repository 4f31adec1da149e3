#pragma once

#include "explorer/explorerresult.h"
#include "explorer/headgridlayout.h"
#include "render/colormap.h"

#include <QImage>
#include <QWidget>

#include <memory>
#include <optional>

namespace attnscope {

// The layer × head grid: one thumbnail per head from the analysis' pooled overview (never n×n).
// Sort (within each layer, descending) and colour (a bar under each thumbnail) by any metric; click or
// Enter opens a head; arrow keys move between heads and layers.
class HeadGridWidget : public QWidget
{
    Q_OBJECT
public:
    explicit HeadGridWidget(QWidget* parent = nullptr);

    void setResult(std::shared_ptr<const ExplorerResult> result);
    void setColorMap(ColorMapKind kind);
    void setSortMetric(std::optional<HeadMetric> metric);
    void setColorMetric(std::optional<HeadMetric> metric);
    void setStats(const std::vector<HeadStats>& stats); // relabelled stats (thresholds changed)
    void select(int layer, int head);
    std::pair<int, int> selected() const { return {m_layer, m_head}; }
    const HeadGridLayout& layoutForTests() const { return m_layout; }
    QSize sizeHint() const override { return {420, 360}; }

Q_SIGNALS:
    void headActivated(int layer, int head);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void rebuildImages();
    void relayout();

    std::shared_ptr<const ExplorerResult> m_result;
    std::vector<HeadStats> m_stats;
    std::vector<QImage> m_images;
    ColorMapKind m_colorMap = ColorMapKind::Viridis;
    std::optional<HeadMetric> m_sortMetric, m_colorMetric;
    HeadGridLayout m_layout;
    int m_layer = 0, m_head = 0;
};

} // namespace attnscope
