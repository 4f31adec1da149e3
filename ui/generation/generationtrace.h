#pragma once

// What the "Generate" view paints, as plain data built from a generation's steps (core/generation): the
// growing heatmap of one head, the grid of every head, the sink-share series and the predictions panel of a
// step. Tested without a window (tests/ui/tst_generationview.cpp).

#include "explorer/predictionpanel.h"
#include "generation/generation.h"
#include "render/headgriddata.h"
#include "render/heatmapdata.h"

#include <QStringList>
#include <vector>

namespace attnscope {

// A generation as the GUI keeps it: the prompt's labels, then one label per generated token, and the steps
// copied out of the worker as they came.
struct GenerationTrace
{
    int layers = 0;
    int heads = 0;
    int promptTokens = 0;
    QStringList labels; // prompt tokens, then each generated token (decoded)
    std::vector<GenerationStep> steps;

    int stepCount() const { return int(steps.size()); }
};

class Tokenizer;
// The text token `index` adds to the decoded sequence ids[0 .. index] (special tokens kept), so that the
// labels joined are the decoded text, spaces included (a SentencePiece piece decoded alone loses its space).
QString tokenPiece(const Tokenizer& tokenizer, const std::vector<int>& ids, int index);

// Steps 0 .. step of one head: row r is step r's attention row (its query is promptTokens − 1 + r), over
// the keys 0 .. the last shown step's query; cells right of a row's own query are masked.
HeatmapData growingHeatmap(const GenerationTrace& trace, int step, int layer, int head);
// growingHeatmap for every layer and head: the grid of all heads over the same rows.
HeadGridData growingGrid(const GenerationTrace& trace, int step);

// Attention to the first token per step: the mean over every layer's heads, and the chosen head's own.
struct SinkShareSeries
{
    std::vector<double> meanOverHeads;
    std::vector<double> chosenHead;
};
SinkShareSeries sinkShareSeries(const GenerationTrace& trace, int layer, int head);

// The predictions panel of one step: the chosen token's probability as the heading, the model's top 5.
PredictionPanel stepPredictionPanel(const GenerationTrace& trace, int step);

} // namespace attnscope
