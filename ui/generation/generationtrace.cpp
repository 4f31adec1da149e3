#include "generation/generationtrace.h"

#include "tokenizer/tokenizer.h"

#include <QCoreApplication>
#include <algorithm>

namespace attnscope {

QString tokenPiece(const Tokenizer& tokenizer, const std::vector<int>& ids, int index)
{
    const std::vector<int> upTo(ids.begin(), ids.begin() + index + 1);
    const QString whole = tokenizer.decode(upTo, false);
    const QString before = tokenizer.decode(std::vector<int>(ids.begin(), ids.begin() + index), false);
    return whole.startsWith(before) ? whole.mid(before.size())
                                    : tokenizer.decode({ids[size_t(index)]}, false);
}

HeatmapData growingHeatmap(const GenerationTrace& trace, int step, int layer, int head)
{
    HeatmapData data;
    if (trace.steps.empty() || step < 0) return data;
    step = std::min(step, trace.stepCount() - 1);
    const GenerationStep& last = trace.steps[size_t(step)];
    data.rows = step + 1;
    data.cols = last.keys();
    data.values.assign(size_t(data.rows) * size_t(data.cols), 0.0f);
    for (int r = 0; r < data.rows; ++r) {
        const GenerationStep& s = trace.steps[size_t(r)];
        if (s.attention.empty()) continue;
        const float* row = s.attentionRow(layer, head, trace.heads);
        std::copy(row, row + std::min(s.keys(), data.cols), data.values.begin() + ptrdiff_t(r) * data.cols);
    }
    // Row r's query is step r's: the model attends causally, so cells past it are masked.
    data.causal = true;
    data.queryOffset = trace.steps.front().query;
    for (int c = 0; c < data.cols; ++c)
        data.colLabels << (c < trace.labels.size() ? trace.labels.at(c) : QString());
    for (int r = 0; r < data.rows; ++r) {
        const int query = trace.steps[size_t(r)].query;
        data.rowLabels << (query < trace.labels.size() ? trace.labels.at(query) : QString());
    }
    data.specialRows.assign(size_t(data.rows), false);
    data.specialCols.assign(size_t(data.cols), false);
    data.title = QCoreApplication::translate("attnscope::GenerateTab", "Layer %1, head %2 · step %3 of %4")
                     .arg(layer)
                     .arg(head)
                     .arg(step + 1)
                     .arg(trace.stepCount());
    return data;
}

HeadGridData growingGrid(const GenerationTrace& trace, int step)
{
    HeadGridData grid;
    grid.layers = trace.layers;
    grid.heads = trace.heads;
    for (int l = 0; l < trace.layers; ++l)
        for (int h = 0; h < trace.heads; ++h)
            grid.thumbnails.push_back(growingHeatmap(trace, step, l, h));
    return grid;
}

SinkShareSeries sinkShareSeries(const GenerationTrace& trace, int layer, int head)
{
    SinkShareSeries series;
    const int count = trace.layers * trace.heads;
    for (const GenerationStep& s : trace.steps) {
        if (s.attention.empty() || count == 0) continue;
        double sum = 0;
        for (int l = 0; l < trace.layers; ++l)
            for (int h = 0; h < trace.heads; ++h)
                sum += double(s.attentionRow(l, h, trace.heads)[0]);
        series.meanOverHeads.push_back(sum / count);
        series.chosenHead.push_back(double(s.attentionRow(layer, head, trace.heads)[0]));
    }
    return series;
}

PredictionPanel stepPredictionPanel(const GenerationTrace& trace, int step)
{
    PredictionPanel panel;
    if (step < 0 || step >= trace.stepCount()) return panel;
    const GenerationStep& s = trace.steps[size_t(step)];
    const int chosen = trace.promptTokens + step;
    const QString chosenLabel = chosen < trace.labels.size() ? trace.labels.at(chosen) : QString();
    PredictionPanelGroup group;
    group.heading = QCoreApplication::translate("attnscope::GenerateTab", "Chose “%1” (p = %2)")
                        .arg(chosenLabel, formatProbability(double(s.probability)));
    for (const PredictedToken& token : s.top.top)
        group.rows.push_back(
            {token.decoded.isEmpty() ? token.text : token.decoded, token.text, double(token.probability)});
    panel.groups.push_back(group);
    return panel;
}

} // namespace attnscope
