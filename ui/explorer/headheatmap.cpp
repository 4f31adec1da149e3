#include "explorer/headheatmap.h"

#include "attention/attentionmaps.h"
#include "attention/wordlevel.h"
#include "explorer/attentionmeasure.h"
#include "explorer/headstatsmodel.h"
#include "explorer/heatmapwidget.h"
#include "render/heatmappainter.h"

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
    data.discountCols.assign(size_t(data.cols), false);
    for (const std::vector<int>* positions : {&result.run.roles.clsPositions, &result.run.roles.sepPositions})
        for (int p : *positions)
            if (p >= 0 && p < data.cols) data.discountCols[size_t(p)] = true;
    QString label;
    if (layer < result.analysis.layers && head < result.analysis.heads)
        label = headLabelDisplayName(result.analysis.at(layer, head).label); // translated, like the grid's
    // The measure right after the model: the head's label stays last, where the lessons and tests read it.
    data.title = QCoreApplication::translate("attnscope", "%1 · layer %2 head %3 (%4)")
                     .arg(result.modelName + QStringLiteral(" · ") + measureName(result.run.measure))
                     .arg(layer)
                     .arg(head)
                     .arg(label);
    data.colorBarCaption = measureScaleCaption(result.run.measure);
    if (layer < result.run.maps->layers() && head < result.run.maps->heads())
        data.rowTotals = contributionRowTotals(result.run, layer, head);
    if (result.run.totalTokens > 0)
        data.title += result.run.keptFromEnd
                          ? QCoreApplication::translate("attnscope", " · last %1 of %2 tokens")
                                .arg(data.rows)
                                .arg(result.run.totalTokens)
                          : QCoreApplication::translate("attnscope", " · first %1 of %2 tokens")
                                .arg(data.rows)
                                .arg(result.run.totalTokens);
    addSideBar(data, *result.run.maps, layer, head, result.run.roles.sepPositions);
    return data;
}

void addSideBar(HeatmapData& data, const AttentionMaps& maps, int layer, int head,
                const std::vector<int>& sepPositions)
{
    if (data.rows < HeatmapPainter::kSideBarMinimumRows || layer >= maps.layers() || head >= maps.heads())
        return;
    data.sideFirst = maps.tile(layer, head, 0, data.rows, 0, 1);
    data.sideSep.clear();
    for (int sep : sepPositions) {
        if (sep <= 0 || sep >= data.cols) continue;
        const std::vector<float> column = maps.tile(layer, head, 0, data.rows, sep, sep + 1);
        data.sideSep.resize(column.size(), 0.0f);
        for (size_t i = 0; i < column.size(); ++i)
            data.sideSep[i] += column[i];
    }
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

HeatmapData headWordHeatmap(const ExplorerResult& result, int layer, int head)
{
    const HeatmapData tokens = headHeatmap(result, layer, head);
    const WordGroups groups = groupWords(result.run.tokens, result.run.roles.special);
    HeatmapData data;
    data.rows = data.cols = groups.wordCount();
    data.values = mergeAttentionToWords(tokens.values, groups);
    data.rowLabels = data.colLabels = groups.words;
    data.specialRows = data.specialCols = groups.special;
    data.discountCols = groups.special;
    // Pieces of one word see each other under a causal mask, so word cells are not masked as a block.
    data.causal = false;
    data.colorBarCaption = tokens.colorBarCaption; // word rows are means of token rows: still shares
    data.title =
        tokens.title + QCoreApplication::translate("attnscope", " · words (to: sum of pieces, from: mean)");
    return data;
}

void showHead(HeatmapWidget& widget, const std::shared_ptr<const ExplorerResult>& result, int layer, int head,
              bool words)
{
    if (!result || !result->run.maps) return;
    if (result->run.maps->queries() <= kDenseHeatmapLimit) {
        widget.setData(words ? headWordHeatmap(*result, layer, head) : headHeatmap(*result, layer, head));
        return;
    }
    auto fetch = [result, layer, head](int q0, int q1, int k0, int k1) {
        return result->run.maps->tile(layer, head, q0, q1, k0, k1);
    };
    widget.setTiledData(headFrame(*result, layer, head), fetch, headOverview(*result, layer, head));
}

} // namespace attnscope
