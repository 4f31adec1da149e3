#pragma once

#include "render/heatmapdata.h"
#include "render/heatmapgeometry.h"

#include <QWidget>
#include <functional>
#include <optional>

namespace attnscope {

// Interactive heatmap: hover read-out, wheel zoom about the cursor, drag to pan, double-click to fit.
// It paints through HeatmapPainter. Two sources:
//  - dense: a HeatmapData holding every value (short inputs, the worked example, differences);
//  - tiled: a frame (labels, flags, no values), a pooled overview shown while zoomed out, and a tile
//    fetcher; once the visible range is at most exactTileLimit() rows and columns, the exact rows are
//    fetched from the AttentionMaps, so n×n is never held.
class HeatmapWidget : public QWidget
{
    Q_OBJECT
public:
    using TileFetcher = std::function<std::vector<float>(int q0, int q1, int k0, int k1)>;

    explicit HeatmapWidget(QWidget* parent = nullptr);

    void setData(HeatmapData data);
    void setTiledData(HeatmapData frame, TileFetcher fetch, HeatmapData overview);
    // No matrix: the widget shows `reason` instead (a failed run says why on the view itself).
    void clear(const QString& reason);
    QString placeholder() const { return m_placeholder; }
    // Non-empty: the matrix shown belongs to a previous run; it is greyed out under this text.
    void setStale(const QString& text);
    QString staleText() const { return m_stale; }
    const HeatmapData& data() const { return m_data; }
    bool isTiled() const { return bool(m_fetch); }
    void setStyle(const HeatmapStyle& style);
    const HeatmapStyle& heatmapStyle() const { return m_style; }
    // exBERT's option: renormalise rows without the special key columns; the title says so.
    void setDiscountSpecial(bool discount);
    bool discountSpecial() const { return m_discount; }
    const HeatmapGeometry& geometryForTests() const { return m_geometry; }
    // The exact block the last paint used in tiled mode (empty when it showed the overview).
    const HeatmapData& exactBlockForTests() const { return m_block; }
    static int exactTileLimit() { return 384; }

    // Exact value of a matrix cell as shown (discounted when that is on).
    float valueAt(int row, int col) const;
    QString cellText(int row, int col) const; // "query → key: 0.6652"
    // Read-out for the cell under a widget position, empty outside the cells.
    QString hoverText(QPointF position) const;
    void zoomAt(QPointF position, double factor);

public Q_SLOTS:
    void fitToView();
    // Synced views (comparison): same zoom and position; a crosshair on another pane's hovered cell.
    void setView(QPointF origin, double cellWidth, double cellHeight);
    void setHoverCell(int row, int col);

Q_SIGNALS:
    void hoverChanged(const QString& text);
    void hoveredCellChanged(int row, int col); // -1, -1 outside
    void viewChanged(QPointF origin, double cellWidth, double cellHeight);

protected:
    bool event(QEvent* event) override; // tooltips: the cell's query, key and value
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    void relayout();
    void applyDiscount();
    void updateExactBlock();
    std::vector<float> shownRow(int row) const; // one full row, discounted when on (tiled mode)
    void emitView();

    HeatmapData m_original; // dense source, or the tiled frame
    HeatmapData m_data;     // what is painted: m_original, discounted when on
    HeatmapData m_overview;
    HeatmapData m_block; // tiled mode: exact full rows [firstRow, firstRow + rows)
    TileFetcher m_fetch;
    HeatmapStyle m_style;
    HeatmapGeometry m_geometry;
    bool m_discount = false;
    bool m_dragging = false;
    QPointF m_lastDrag;
    int m_hoverRow = -1, m_hoverCol = -1;
    QString m_placeholder, m_stale;
};

} // namespace attnscope
