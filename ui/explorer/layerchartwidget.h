#pragma once

#include "stats/attentionanalysis.h"

#include <QRectF>
#include <QWidget>

namespace attnscope {

// Per-layer chart of mean sink mass (first token) and mean [SEP] mass: two bars per layer on a fixed
// 0..1 axis (never rescaled, so a 0.9 sink reads as 0.9). Geometry is plain and testable.
class LayerChartGeometry
{
public:
    LayerChartGeometry(QRectF plot, int layers);
    QRectF barRect(int layer, int series, double value) const; // series 0 = sink, 1 = [SEP]
    double yFor(double value) const;

private:
    QRectF m_plot;
    int m_layers;
};

class LayerChartWidget : public QWidget
{
    Q_OBJECT
public:
    explicit LayerChartWidget(QWidget* parent = nullptr);
    void setSummaries(std::vector<LayerSummary> summaries);
    // Decoders have no [SEP]: the chart then shows the sink bars only, not a row of zeros.
    void setShowSep(bool show);
    bool showsSep() const { return m_showSep; }
    QSize sizeHint() const override { return {360, 200}; }
    const std::vector<LayerSummary>& summaries() const { return m_summaries; }
    // The screen's paint code onto any painter (export), laid out in area.
    void paintChart(QPainter& painter, const QRectF& area) const;
    // Where paintChart puts the plot (bars and axis) inside area: below the title and the legend, right of
    // the y-axis numbers, above the layer names, all measured in the default font at 96 dpi.
    static QRectF plotRect(const QRectF& area);
    // The y axis's tick labels as paintChart last put them (they never overlap: render/axisticks.h).
    const std::vector<QRectF>& yTickLabelRects() const { return m_yTickLabels; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<LayerSummary> m_summaries;
    bool m_showSep = true;
    mutable std::vector<QRectF> m_yTickLabels;
};

} // namespace attnscope
