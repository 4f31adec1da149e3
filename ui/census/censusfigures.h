#pragma once

// The census's figures, painted from plain data onto any QPainter (screen, PNG, SVG):
//  - the layer × head grid coloured by one metric (the explorer's HeadGridPainter with one cell per head);
//  - Clark et al.'s layer curves: the share of attention to [CLS], [SEP] and punctuation by layer, of the
//    attention weights or of the contributions (Kobayashi et al. 2020).

#include "census/censusaccumulator.h"
#include "render/headgriddata.h"

#include <QRectF>
#include <QString>
#include <QStringList>
#include <functional>
#include <vector>

class QPainter;

namespace attnscope {

// One 1×1 thumbnail per head holding the head's census mean of `metric` (shares only: 0..1).
HeadGridData censusHeadGrid(const CensusAccumulator& sums, CensusMetric metric, const QString& title);

struct LayerCurves
{
    QString title;
    QStringList series;                      // "[CLS]", "[SEP]", "punctuation"
    std::vector<std::vector<double>> values; // [series][layer]: mean over inputs of the layer mean
    double yMax = 1;                         // top of the axis: a round number at or above every value
    QString axisLabel = QStringLiteral("mean share of attention");
};

enum class LayerCurveMeasure { Weights, Contributions };
LayerCurves clarkLayerCurves(const CensusAccumulator& sums, const QString& title,
                             LayerCurveMeasure measure = LayerCurveMeasure::Weights);

// Plot area and data-to-pixel mapping of the curves, plain and testable.
class LayerCurvesGeometry
{
public:
    LayerCurvesGeometry(QRectF plot, int layers, double yMax);
    QPointF point(int layer, double value) const;
    QRectF plot() const { return m_plot; }

private:
    QRectF m_plot;
    int m_layers;
    double m_yMax;
};

void paintLayerCurves(QPainter& painter, const QRectF& area, const LayerCurves& curves);

// Writes a figure of `size` pixels as PNG or SVG (by the path's suffix) through a temporary file renamed
// over the target. False with *error "<file>: <problem>".
bool writeFigure(const QString& path, QSize size, const QString& title,
                 const std::function<void(QPainter&, const QRectF&)>& paint, QString* error);

} // namespace attnscope
