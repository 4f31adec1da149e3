#pragma once

// A line chart of a few series over token/step indices, with vertical marks: the running perplexity of
// the KV-cache policies (log y) and the sink share per generation step (0..1). Plain data and geometry,
// painted by SeriesChartPainter; tested without a window.

#include "generation/generationtrace.h"
#include "generation/streamingevaluation.h"

#include <QColor>
#include <QRectF>
#include <QString>
#include <QWidget>
#include <vector>

class QPainter;

namespace attnscope {

struct SeriesCurve
{
    QString name;
    QColor color;
    std::vector<double> values; // values[i] is drawn at x = i + firstX
    int firstX = 0;
};

struct ChartMark
{
    double x = 0;
    QString label;
    QColor color;
};

struct SeriesChartData
{
    QString title;
    QString xLabel;
    std::vector<SeriesCurve> curves;
    std::vector<ChartMark> marks;
    bool logY = false;
    double yMin = 0, yMax = 1; // axis range (logY: both > 0)
    int xCount = 0;            // x runs over 0 .. xCount − 1

    bool isEmpty() const { return curves.empty() || xCount <= 0; }
};

// Maps chart coordinates into a plot rectangle (log10 on y when logY).
class SeriesChartGeometry
{
public:
    SeriesChartGeometry(QRectF plot, const SeriesChartData& data);
    double xFor(double x) const;
    double yFor(double value) const;
    // The nearest x index under a pixel column.
    int indexAt(double pixelX) const;

private:
    QRectF m_plot;
    int m_xCount;
    bool m_log;
    double m_yMin, m_yMax;
};

// The running perplexity of every evaluation (one curve each, named by policy), log y from the smallest to
// the largest value shown, and a mark at the first fullCacheFrom ("eviction begins").
SeriesChartData streamChartData(const std::vector<StreamEvaluation>& evaluations);
// The sink share per step: the mean over heads and the chosen head, on a fixed 0..1 axis.
SeriesChartData sinkShareChartData(const SinkShareSeries& series, int layer, int head, int steps);
// "window (k = 0)", "4 sinks + 252", "recompute 256", "full".
QString policyLabel(const CachePolicy& policy);

class SeriesChartPainter
{
public:
    explicit SeriesChartPainter(const SeriesChartData& data) : m_data(data) {}
    void paint(QPainter& painter, const QRectF& area, int highlightedX = -1) const;
    // Where paint() puts the plot inside area.
    static QRectF plotRect(const QRectF& area);
    // Where the last paint() put the y axis's tick labels (they never overlap: render/axisticks.h).
    const std::vector<QRectF>& yTickLabels() const { return m_yTickLabels; }
    // Where it put the x axis's tick labels (the first, middle and last step, kept inside area).
    const std::vector<QRectF>& xTickLabels() const { return m_xTickLabels; }

private:
    const SeriesChartData& m_data;
    mutable std::vector<QRectF> m_yTickLabels, m_xTickLabels;
};

class SeriesChartWidget : public QWidget
{
    Q_OBJECT
public:
    explicit SeriesChartWidget(QWidget* parent = nullptr);
    void setData(SeriesChartData data);
    const SeriesChartData& data() const { return m_data; }
    // A vertical line at the step shown (-1: none).
    void setHighlightedX(int x);
    int highlightedX() const { return m_highlighted; }
    // The y axis's tick labels as last painted, in widget coordinates.
    const std::vector<QRectF>& yTickLabelRects() const { return m_yTickLabels; }
    const std::vector<QRectF>& xTickLabelRects() const { return m_xTickLabels; }
    QSize sizeHint() const override { return {420, 220}; }
    QSize minimumSizeHint() const override { return {200, 120}; }

Q_SIGNALS:
    void xClicked(int x);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    SeriesChartData m_data;
    int m_highlighted = -1;
    std::vector<QRectF> m_yTickLabels, m_xTickLabels;
};

} // namespace attnscope
