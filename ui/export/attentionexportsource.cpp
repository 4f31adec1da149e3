#include "export/attentionexportsource.h"

#include <QCoreApplication>

#include <algorithm>

namespace attnscope {

HeatmapData AttentionExportSource::heatmap(int layer, int head) const
{
    HeatmapData data;
    data.rows = maps->queries();
    data.cols = maps->keys();
    data.values = maps->matrix(layer, head);
    data.rowLabels = tokens.mid(0, data.rows);
    data.colLabels = tokens.mid(0, data.cols);
    data.specialRows.assign(special.begin(), special.begin() + std::min<size_t>(special.size(), size_t(data.rows)));
    data.specialCols.assign(special.begin(), special.begin() + std::min<size_t>(special.size(), size_t(data.cols)));
    data.causal = causal;
    if (discountSpecial)
        discountSpecialTokens(data);
    data.title = title(layer, head);
    return data;
}

HeadGridData AttentionExportSource::grid() const
{
    HeadGridData grid;
    grid.layers = maps->layers();
    grid.heads = maps->heads();
    grid.thumbnails.reserve(size_t(grid.layers) * size_t(grid.heads));
    for (int l = 0; l < grid.layers; ++l)
        for (int h = 0; h < grid.heads; ++h)
            grid.thumbnails.push_back(heatmap(l, h));
    grid.title = title(-1, -1);
    return grid;
}

QString AttentionExportSource::title(int layer, int head) const
{
    QString quoted = QCoreApplication::translate("attnscope", "“%1”").arg(text);
    if (!textB.isEmpty())
        quoted += QCoreApplication::translate("attnscope", " + “%1”").arg(textB);
    const QString where = head < 0 ? QCoreApplication::translate("attnscope", "all heads") : QCoreApplication::translate("attnscope", "layer %1, head %2").arg(layer).arg(head);
    QString result = QStringLiteral("%1 · %2 · %3").arg(model, where, quoted);
    if (discountSpecial)
        result += QCoreApplication::translate("attnscope", " · special tokens discounted");
    return result;
}

void discountSpecialTokens(HeatmapData& data)
{
    for (int r = 0; r < data.rows; ++r) {
        double kept = 0;
        for (int c = 0; c < data.cols; ++c) {
            const bool special = size_t(c) < data.specialCols.size() && data.specialCols[size_t(c)];
            if (!special && !data.isMasked(r, c))
                kept += data.value(r, c);
        }
        for (int c = 0; c < data.cols; ++c) {
            float& v = data.values[size_t(r) * size_t(data.cols) + size_t(c)];
            const bool special = size_t(c) < data.specialCols.size() && data.specialCols[size_t(c)];
            v = special || kept <= 0 ? 0.0f : float(double(v) / kept);
        }
    }
}

HeatmapData cropHeatmap(const HeatmapData& data, int row0, int row1, int col0, int col1)
{
    row0 = std::clamp(row0, 0, data.rows), row1 = std::clamp(row1, row0, data.rows);
    col0 = std::clamp(col0, 0, data.cols), col1 = std::clamp(col1, col0, data.cols);
    HeatmapData out;
    out.rows = row1 - row0;
    out.cols = col1 - col0;
    out.values.reserve(size_t(out.rows) * size_t(out.cols));
    for (int r = row0; r < row1; ++r)
        for (int c = col0; c < col1; ++c)
            out.values.push_back(data.value(r, c));
    out.rowLabels = data.rowLabels.mid(row0, out.rows);
    out.colLabels = data.colLabels.mid(col0, out.cols);
    auto slice = [](const std::vector<bool>& v, int a, int b) {
        std::vector<bool> s;
        for (int i = a; i < b; ++i)
            s.push_back(size_t(i) < v.size() && v[size_t(i)]);
        return s;
    };
    out.specialRows = slice(data.specialRows, row0, row1);
    out.specialCols = slice(data.specialCols, col0, col1);
    out.causal = data.causal;
    out.firstRow = data.firstRow + row0;
    out.firstCol = data.firstCol + col0;
    out.title = data.title;
    return out;
}

} // namespace attnscope
