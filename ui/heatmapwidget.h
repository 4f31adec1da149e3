#pragma once

#include "render/heatmapdata.h"
#include "render/heatmapgeometry.h"

#include <QWidget>

namespace attnscope {

// Interactive heatmap: hover read-out, wheel zoom about the cursor, drag to pan, double-click to fit.
// It paints through HeatmapPainter from a HeatmapData it owns.
class HeatmapWidget : public QWidget
{
    Q_OBJECT
public:
    explicit HeatmapWidget(QWidget* parent = nullptr);

    void setData(HeatmapData data);
    const HeatmapData& data() const { return m_data; }
    void setStyle(const HeatmapStyle& style);
    const HeatmapStyle& heatmapStyle() const { return m_style; }
    const HeatmapGeometry& geometryForTests() const { return m_geometry; }
    // Read-out for the cell under a widget position ("query → key: 0.6652"), empty outside the cells.
    QString hoverText(QPointF position) const;

public Q_SLOTS:
    void fitToView();

Q_SIGNALS:
    void hoverChanged(const QString& text);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;

private:
    void relayout();

    HeatmapData m_data;
    HeatmapStyle m_style;
    HeatmapGeometry m_geometry;
    bool m_dragging = false;
    QPointF m_lastDrag;
};

} // namespace attnscope
