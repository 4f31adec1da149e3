#include "explorer/headheatmap.h"

#include "attention/attentionmaps.h"
#include "explorer/headstatsmodel.h"
#include "heatmapwidget.h"

#include <QCoreApplication>

namespace attnscope {

HeatmapData headFrame(const ExplorerResult& result, int layer, int head)
{
    HeatmapData data;
    data.rows = result.run.maps->queries();
    data.cols = result.run.maps->keys();
    data.rowLabels = result.run.labels;
    data.colLabels = result.run.labels;
    data.specialRows = result.run.roles.special;
    data.specialCols = result.run.roles.special;
    data.causal = result.run.roles.causal;
    QString label;
    if (layer < result.analysis.layers && head < result.analysis.heads)
        label = headLabelDisplayName(result.analysis.at(layer, head).label); // translated, like the grid's
    data.title = QCoreApplication::translate("attnscope", "%1 · layer %2 head %3 (%4)")
                     .arg(result.modelName)
                     .arg(layer)
                     .arg(head)
                     .arg(label);
    return data;
}

HeatmapData headHeatmap(const ExplorerResult& result, int layer, int head)
{
    HeatmapData data = headFrame(result, layer, head);
    data.values = result.run.maps->matrix(layer, head);
    return data;
}

HeatmapData headOverview(const ExplorerResult& result, int layer, int head)
{
    const PooledHeadOverview& overview =
        result.analysis.overviews[size_t(layer * result.analysis.heads + head)];
    HeatmapData data;
    data.rows = overview.rows();
    data.cols = overview.cols();
    data.values = overview.values();
    data.causal = result.run.roles.causal;
    for (int r = 0; r <= overview.rows(); ++r)
        data.rowStarts.push_back(overview.firstQuery(r));
    for (int c = 0; c <= overview.cols(); ++c)
        data.colStarts.push_back(overview.firstKey(c));
    // Pooled by max, so the per-row max of a pooled row is its own max.
    return data;
}

void showHead(HeatmapWidget& widget, const std::shared_ptr<const ExplorerResult>& result, int layer, int head)
{
    if (!result || !result->run.maps) return;
    if (result->run.maps->queries() <= kDenseHeatmapLimit) {
        widget.setData(headHeatmap(*result, layer, head));
        return;
    }
    auto fetch = [result, layer, head](int q0, int q1, int k0, int k1) {
        return result->run.maps->tile(layer, head, q0, q1, k0, k1);
    };
    widget.setTiledData(headFrame(*result, layer, head), fetch, headOverview(*result, layer, head));
}

} // namespace attnscope
