#include "census/censusfigures.h"

#include "io/outputfile.h"
#include "render/axisticks.h"
#include "render/colormap.h"
#include "render/numberformat.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QImage>
#include <QPainter>
#include <QPainterPath>
#include <QSvgGenerator>
#include <algorithm>

namespace attnscope {

HeadGridData censusHeadGrid(const CensusAccumulator& sums, CensusMetric metric, const QString& title)
{
    HeadGridData grid;
    grid.layers = sums.layers();
    grid.heads = sums.heads();
    grid.title = title;
    for (int l = 0; l < sums.layers(); ++l)
        for (int h = 0; h < sums.heads(); ++h) {
            HeatmapData cell;
            cell.rows = cell.cols = 1;
            cell.values = {float(sums.head(l, h, metric).mean)};
            cell.rowLabels = cell.colLabels = QStringList{QString()};
            grid.thumbnails.push_back(std::move(cell));
        }
    return grid;
}

LayerCurves clarkLayerCurves(const CensusAccumulator& sums, const QString& title, LayerCurveMeasure measure)
{
    const bool contributions = measure == LayerCurveMeasure::Contributions;
    LayerCurves curves;
    curves.title = title;
    // In the window's language (the CLI loads no translation, so its figures stay English).
    curves.axisLabel =
        contributions ? QCoreApplication::translate("attnscope::LayerCurves", "mean share of contribution")
                      : QCoreApplication::translate("attnscope::LayerCurves", "mean share of attention");
    curves.series = {QStringLiteral("[CLS]"), QStringLiteral("[SEP]"),
                     QCoreApplication::translate("attnscope::LayerCurves", "punctuation")};
    double top = 0;
    for (CensusMetric weight : {CensusMetric::Cls, CensusMetric::Sep, CensusMetric::Punctuation}) {
        const CensusMetric metric = !contributions                ? weight
                                    : weight == CensusMetric::Cls ? CensusMetric::ClsContribution
                                    : weight == CensusMetric::Sep ? CensusMetric::SepContribution
                                                                  : CensusMetric::PunctuationContribution;
        std::vector<double> line;
        for (int l = 0; l < sums.layers(); ++l) {
            line.push_back(sums.layer(l, metric).mean);
            top = std::max(top, line.back());
        }
        curves.values.push_back(std::move(line));
    }
    for (double round : {0.1, 0.2, 0.25, 0.5, 1.0})
        if (top <= round) {
            curves.yMax = round;
            break;
        }
    return curves;
}

LayerCurvesGeometry::LayerCurvesGeometry(QRectF plot, int layers, double yMax)
    : m_plot(plot), m_layers(std::max(1, layers)), m_yMax(yMax > 0 ? yMax : 1)
{}

QPointF LayerCurvesGeometry::point(int layer, double value) const
{
    const double x =
        m_layers == 1 ? m_plot.center().x() : m_plot.left() + m_plot.width() * layer / double(m_layers - 1);
    const double y = m_plot.bottom() - m_plot.height() * std::clamp(value / m_yMax, 0.0, 1.0);
    return {x, y};
}

void paintLayerCurves(QPainter& painter, const QRectF& area, const LayerCurves& curves)
{
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double line = metrics.height();
    const int layers = curves.values.empty() ? 0 : int(curves.values.front().size());
    const QRectF plot(area.left() + metrics.horizontalAdvance(QStringLiteral("0.25")) + 3 * line,
                      area.top() + 3.2 * line, 0, 0);
    const QRectF plotRect(plot.topLeft(), QPointF(area.right() - line, area.bottom() - 2.6 * line));
    const LayerCurvesGeometry geometry(plotRect, layers, curves.yMax);
    painter.setRenderHint(QPainter::Antialiasing);
    QFont bold = painter.font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(Qt::black);
    painter.drawText(QRectF(area.left(), area.top(), area.width(), 1.5 * line),
                     Qt::AlignLeft | Qt::AlignVCenter, curves.title);
    painter.setFont(QFont(painter.font().family(), painter.font().pointSize()));
    // Axes, ticks at fifths of yMax, fewer where their labels would touch (render/axisticks.h).
    painter.setPen(QPen(Qt::black, 1));
    painter.drawLine(plotRect.bottomLeft(), plotRect.topLeft());
    painter.drawLine(plotRect.bottomLeft(), plotRect.bottomRight());
    for (double value : linearAxisTicks(0.0, curves.yMax, plotRect.height(), line, 6)) {
        const QPointF p = geometry.point(0, value);
        painter.setPen(QPen(QColor(220, 220, 220), 0.5));
        painter.drawLine(QPointF(plotRect.left(), p.y()), QPointF(plotRect.right(), p.y()));
        painter.setPen(Qt::black);
        painter.drawText(QRectF(area.left() + 1.6 * line, p.y() - line / 2,
                                plotRect.left() - area.left() - 2 * line, line),
                         Qt::AlignRight | Qt::AlignVCenter, formatShort(value)); // the locale's numbers
    }
    painter.save();
    painter.translate(area.left() + line * 0.6, plotRect.center().y());
    painter.rotate(-90);
    painter.drawText(QRectF(-plotRect.height() / 2, -line / 2, plotRect.height(), line), Qt::AlignCenter,
                     curves.axisLabel);
    painter.restore();
    for (int l = 0; l < layers; ++l) {
        const QPointF p = geometry.point(l, 0);
        painter.drawText(QRectF(p.x() - 2 * line, plotRect.bottom() + 0.2 * line, 4 * line, line),
                         Qt::AlignCenter, QString::number(l));
    }
    painter.drawText(QRectF(plotRect.left(), plotRect.bottom() + 1.3 * line, plotRect.width(), line),
                     Qt::AlignCenter, QCoreApplication::translate("attnscope::LayerCurves", "layer"));
    // Series in colours spread over viridis, each with its legend entry on the second line.
    double legendX = plotRect.left();
    for (size_t s = 0; s < curves.values.size(); ++s) {
        const QColor color = QColor::fromRgb(colorMapColor(
            ColorMapKind::Viridis, 0.1 + 0.7 * s / double(std::max<size_t>(1, curves.values.size() - 1))));
        QPainterPath path;
        for (int l = 0; l < layers; ++l) {
            const QPointF p = geometry.point(l, curves.values[s][size_t(l)]);
            if (l == 0)
                path.moveTo(p);
            else
                path.lineTo(p);
        }
        painter.setPen(QPen(color, 2));
        painter.setBrush(Qt::NoBrush);
        painter.drawPath(path);
        painter.setBrush(color);
        for (int l = 0; l < layers; ++l)
            painter.drawEllipse(geometry.point(l, curves.values[s][size_t(l)]), 3, 3);
        const QString label = s < size_t(curves.series.size()) ? curves.series.at(qsizetype(s)) : QString();
        painter.fillRect(QRectF(legendX, area.top() + 1.7 * line, line, 0.8 * line), color);
        painter.setPen(Qt::black);
        painter.drawText(QRectF(legendX + 1.3 * line, area.top() + 1.5 * line, 12 * line, 1.2 * line),
                         Qt::AlignLeft | Qt::AlignVCenter, label);
        legendX += 2 * line + metrics.horizontalAdvance(label);
    }
}

bool writeFigure(const QString& path, QSize size, const QString& title,
                 const std::function<void(QPainter&, const QRectF&)>& paint, QString* error)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    const QRectF page(0, 0, size.width(), size.height());
    const QRectF inner = page.adjusted(8, 8, -8, -8);
    if (QFileInfo(path).suffix().toLower() == QLatin1String("svg")) {
        QSvgGenerator generator;
        generator.setOutputDevice(&buffer);
        generator.setSize(size);
        generator.setViewBox(page);
        generator.setTitle(title);
        QPainter painter(&generator);
        painter.fillRect(page, Qt::white);
        paint(painter, inner);
    } else {
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        {
            QPainter painter(&image);
            painter.setRenderHint(QPainter::TextAntialiasing);
            paint(painter, inner);
        }
        if (!image.save(&buffer, "PNG")) {
            *error = QStringLiteral("%1: cannot encode the PNG").arg(path);
            return false;
        }
    }
    // Written whole or not at all, every write checked (io/outputfile.h); a census rewrites its figures.
    return writeOutputFile(path, buffer.data(), true, error);
}

} // namespace attnscope
