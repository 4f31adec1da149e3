#pragma once

// The Corpus window's three pictures, each a widget painting from a CensusAccumulator snapshot:
// the layer × head grid coloured by one metric, Clark's layer curves, and the heads' 2-D map
// (census/headmap.h). Clicking a head in the grid or the map emits headClicked.

#include "census/censusaccumulator.h"
#include "census/censusfigures.h"
#include "census/headmap.h"
#include "render/headgriddata.h"

#include <QWidget>
#include <optional>
#include <vector>

namespace attnscope {

class CensusGridView : public QWidget
{
    Q_OBJECT
public:
    explicit CensusGridView(QWidget* parent = nullptr);
    void setData(const CensusAccumulator& sums, CensusMetric metric, const QString& title);
    void setSelected(int layer, int head);
    // The head under a point of the widget, or {-1, -1}.
    std::pair<int, int> headAt(QPointF point) const;
    QSize sizeHint() const override { return {480, 360}; }

Q_SIGNALS:
    void headClicked(int layer, int head);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QRectF target() const { return QRectF(rect()).adjusted(6, 6, -6, -6); }
    HeadGridData m_grid;
    int m_layer = -1, m_head = -1;
};

class LayerCurvesView : public QWidget
{
    Q_OBJECT
public:
    explicit LayerCurvesView(QWidget* parent = nullptr);
    void setData(const CensusAccumulator& sums, const QString& title,
                 LayerCurveMeasure measure = LayerCurveMeasure::Weights);
    QSize sizeHint() const override { return {480, 300}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    CensusAccumulator m_sums;
    QString m_title;
    LayerCurveMeasure m_measure = LayerCurveMeasure::Weights;
};

// Heads as points on their first two principal components, labelled "L1H3" where the label fits without
// covering another (census/pointlabels.h; the tooltip names every point), coloured by layer with a key.
class HeadMapView : public QWidget
{
    Q_OBJECT
public:
    explicit HeadMapView(QWidget* parent = nullptr);
    void setPoints(std::vector<HeadMapPoint> points);
    void setSelected(int layer, int head);
    // Widget position of a point (same mapping as the paint).
    QPointF position(const HeadMapPoint& point) const;
    const std::vector<HeadMapPoint>& points() const { return m_points; }
    // Where each point's label is drawn (same order as points()), or nothing where it is left out.
    std::vector<std::optional<QRectF>> labelBoxes() const;
    static QString headLabel(const HeadMapPoint& point);
    QSize sizeHint() const override { return {360, 300}; }

Q_SIGNALS:
    void headClicked(int layer, int head);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    static QColor layerColor(int layer, int layers);
    double keyHeight() const; // the layer colour key's row at the bottom
    const HeadMapPoint* pointAt(QPointF where) const;
    std::vector<HeadMapPoint> m_points;
    int m_layer = -1, m_head = -1;
};

} // namespace attnscope
