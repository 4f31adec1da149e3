#include "export/attentionexportsource.h"

#include "explorer/attentionmeasure.h"
#include "explorer/explorerresult.h"
#include "explorer/headheatmap.h"
#include "stats/attentionanalysis.h"

#include <QCoreApplication>
#include <algorithm>

namespace attnscope {

AttentionExportSource AttentionExportSource::ofRun(const ExplorerResult& result)
{
    AttentionExportSource source;
    source.maps = result.run.maps;
    source.tokens = result.run.labels;
    source.special = result.run.roles.special;
    source.causal = result.run.roles.causal;
    source.roles = result.run.roles; // the [SEP] positions of the side bar
    source.model = result.modelName;
    source.measure = measureName(result.run.measure);
    source.colorBarCaption = measureScaleCaption(result.run.measure);
    source.text = result.textA;
    source.textB = result.textB.value_or(QString());
    return source;
}

HeatmapData AttentionExportSource::heatmap(int layer, int head) const
{
    HeatmapData data;
    data.rows = maps->queries();
    data.cols = maps->keys();
    data.values = maps->matrix(layer, head);
    data.rowLabels = tokens.mid(0, data.rows);
    data.colLabels = tokens.mid(0, data.cols);
    data.specialRows.assign(special.begin(),
                            special.begin() + std::min<size_t>(special.size(), size_t(data.rows)));
    data.specialCols.assign(special.begin(),
                            special.begin() + std::min<size_t>(special.size(), size_t(data.cols)));
    data.causal = causal;
    // The side bar of long inputs, as the window draws it (the attention as computed, before any discount).
    addSideBar(data, *maps, layer, head, roles ? roles->sepPositions : std::vector<int>{});
    if (discountSpecial) discountSpecialTokens(data, QString()); // the title below says so
    data.title = title(layer, head);
    data.colorBarCaption = colorBarCaption;
    return data;
}

HeadGridData AttentionExportSource::grid(int maxCells) const
{
    HeadGridData grid;
    grid.layers = maps->layers();
    grid.heads = maps->heads();
    grid.thumbnails.reserve(size_t(grid.layers) * size_t(grid.heads));
    const int n = maps->queries(), m = maps->keys();
    const bool pooled = maxCells > 0 && (n > maxCells || m > maxCells);
    if (!pooled) {
        for (int l = 0; l < grid.layers; ++l)
            for (int h = 0; h < grid.heads; ++h)
                grid.thumbnails.push_back(heatmap(l, h));
    } else {
        // Block boundaries: block i covers [starts[i], starts[i+1]).
        auto starts = [maxCells](int count) {
            const int blocks = std::min(count, maxCells);
            std::vector<int> s(size_t(blocks) + 1);
            for (int i = 0; i <= blocks; ++i)
                s[size_t(i)] = int((long long)(i)*count / blocks);
            return s;
        };
        const std::vector<int> rowStarts = starts(n), colStarts = starts(m);
        const int rows = int(rowStarts.size()) - 1, cols = int(colStarts.size()) - 1;
        for (int l = 0; l < grid.layers; ++l) {
            for (int h = 0; h < grid.heads; ++h) {
                HeatmapData t;
                t.rows = rows;
                t.cols = cols;
                t.rowStarts = rowStarts;
                t.colStarts = colStarts;
                t.causal = causal;
                t.values.assign(size_t(rows) * size_t(cols), 0.0f);
                for (int r = 0; r < rows; ++r) {
                    const int q0 = rowStarts[size_t(r)], q1 = rowStarts[size_t(r) + 1];
                    const std::vector<float> band = maps->tile(l, h, q0, q1, 0, m);
                    for (int c = 0; c < cols; ++c) {
                        const int k0 = colStarts[size_t(c)], k1 = colStarts[size_t(c) + 1];
                        double sum = 0;
                        for (int q = 0; q < q1 - q0; ++q)
                            for (int k = k0; k < k1; ++k)
                                sum += band[size_t(q) * size_t(m) + size_t(k)];
                        t.values[size_t(r) * size_t(cols) + size_t(c)] =
                            float(sum / (double(q1 - q0) * double(k1 - k0)));
                    }
                }
                grid.thumbnails.push_back(std::move(t));
            }
        }
    }
    grid.title = title(-1, -1);
    // The grid has no title per head: its colour bar names the measure itself ("attention weight α", or
    // "contribution ‖αf(x)‖ · share of the row's ‖αf(x)‖, not a probability").
    grid.colorBarCaption = measure.isEmpty() || colorBarCaption.isEmpty()
                               ? (measure.isEmpty() ? colorBarCaption : measure)
                               : measure + QStringLiteral(" · ") + colorBarCaption;
    if (headEffect.size() == size_t(grid.layers) * size_t(grid.heads)) {
        grid.effect = headEffect;
        grid.effectCaption = headEffectCaption;
    }
    if (headLabels.size() == size_t(grid.layers) * size_t(grid.heads)) {
        grid.labels = headLabels;
    } else if (roles) {
        if (const std::optional<AttentionAnalysis> analysis = analyzeAttention(*maps, *roles))
            for (const HeadStats& stats : analysis->stats)
                grid.labels.push_back(stats.label);
    }
    return grid;
}

QString AttentionExportSource::title(int layer, int head) const
{
    QString quoted = QCoreApplication::translate("attnscope", "“%1”").arg(text);
    if (!textB.isEmpty()) quoted += QCoreApplication::translate("attnscope", " + “%1”").arg(textB);
    const QString where =
        head < 0 ? QCoreApplication::translate("attnscope", "all heads")
                 : QCoreApplication::translate("attnscope", "layer %1, head %2").arg(layer).arg(head);
    QString result = QStringLiteral("%1 · %2 · %3").arg(model, where, quoted);
    if (!measure.isEmpty()) result += QStringLiteral(" · ") + measure;
    if (discountSpecial) result += QCoreApplication::translate("attnscope", " · special tokens discounted");
    return result;
}

ExportMetadata AttentionExportSource::metadata(int layer, int head) const
{
    ExportMetadata m;
    m.model = model;
    m.text = text;
    m.textB = textB;
    m.measure = measure;
    m.layer = layer;
    m.head = head;
    m.discountSpecial = discountSpecial;
    return m;
}

} // namespace attnscope
