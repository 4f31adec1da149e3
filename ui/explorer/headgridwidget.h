#pragma once

#include "explorer/explorerresult.h"
#include "render/colormap.h"
#include "render/headgridlayout.h"
#include "render/heatmapdata.h"

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
    // The heatmap's scale (absolute, per-row max, log) applied to the thumbnails too.
    void setScale(HeatmapScale scale);
    // Colour each thumbnail's frame by its head's label, with a legend under the grid.
    void setColorByLabel(bool on);
    bool colorsByLabel() const { return m_colorByLabel; }
    // The "colour by label" legend as drawn: each label this grid has, and the rectangle of its entry
    // (swatch and name), wrapped onto as many lines as the width needs.
    std::vector<std::pair<HeadLabel, QRectF>> labelLegendEntries() const;
    // Heads drawn with a highlight ring ("find sink / no-op heads"); empty: none.
    void setHighlighted(std::vector<std::pair<int, int>> heads);
    const std::vector<std::pair<int, int>>& highlighted() const { return m_highlighted; }
    // The tooltip of a head's thumbnail: layer, head, label, sink mass and [SEP] mass.
    QString headToolTip(int layer, int head) const;
    // The short badge drawn on a thumbnail: "H3 ←" (head number, then a symbol of its label).
    QString headBadge(int layer, int head) const;
    static QString labelSymbol(HeadLabel label);
    static QColor labelColor(HeadLabel label);
    // The rectangle of a head's thumbnail in widget coordinates (after sorting).
    QRectF thumbnailRectOf(int layer, int head) const;
    // The colour strip's value for a metric on the fixed 0..1 axis (entropy in nats over ln(keys)).
    double stripValue(const HeadStats& stats, HeadMetric metric) const;
    void setSortMetric(std::optional<HeadMetric> metric);
    void setColorMetric(std::optional<HeadMetric> metric);
    void setStats(const std::vector<HeadStats>& stats);             // relabelled stats (thresholds changed)
    const std::vector<HeadStats>& stats() const { return m_stats; } // as shown (current thresholds)
    void select(int layer, int head);
    // The thumbnails belong to a previous run (another model is computing): drawn greyed out.
    void setStale(bool stale);
    // Colour every head by an effect (the ablation scan's KL per head, [layers][heads] layer-major) over
    // 0 .. max of the values, with `caption` in the legend ("ablation KL, nats (zero)"); empty values: none.
    // Kept until cleared or until a result of another shape arrives.
    void setEffect(std::vector<double> values, const QString& caption);
    const std::vector<double>& effect() const { return m_effect; }
    const QString& effectCaption() const { return m_effectCaption; }
    // The effect's colour for a value on the 0 .. max axis (what the legend shows).
    static QColor effectColor(double fraction);
    bool isStale() const { return m_stale; }
    std::pair<int, int> selected() const { return {m_layer, m_head}; }
    const HeadGridLayout& layoutForTests() const { return m_layout; }
    QSize sizeHint() const override { return {420, 360}; }

Q_SIGNALS:
    void headActivated(int layer, int head);
    // select() marked a head: the window's open head, however it was opened (a click, the keyboard, the
    // statistics table, a first start's strongest head, --head).
    void headSelected(int layer, int head);
    // Right-click on a head (it is selected first): the window offers its actions there.
    void headContextMenuRequested(int layer, int head, const QPoint& globalPosition);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void moveEvent(QMoveEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    void rebuildImages();
    void relayout();
    // The visible part's left edge in widget coordinates (scrolled sideways: past 0), margin included.
    double visibleLeft() const;

    std::shared_ptr<const ExplorerResult> m_result;
    std::vector<HeadStats> m_stats;
    std::vector<QImage> m_images;
    ColorMapKind m_colorMap = ColorMapKind::Viridis;
    std::optional<HeadMetric> m_sortMetric, m_colorMetric;
    HeatmapScale m_scale = HeatmapScale::Absolute;
    bool m_colorByLabel = false;
    std::vector<std::pair<int, int>> m_highlighted;
    double legendHeight() const;
    double legendLineHeight() const;
    // The metric legend's width on the first legend line (the label entries follow it there).
    double metricLegendWidth() const;
    HeadGridLayout m_layout;
    int m_layer = 0, m_head = 0;
    bool m_stale = false;
    std::vector<double> m_effect;
    QString m_effectCaption;
};

} // namespace attnscope
