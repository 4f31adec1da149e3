#pragma once

#include "attention/attentionmaps.h"
#include "export/heatmapexporter.h"
#include "render/headgriddata.h"
#include "render/heatmapdata.h"
#include "stats/headstats.h"

#include <QString>
#include <QStringList>
#include <memory>
#include <optional>
#include <vector>

namespace attnscope {

struct ExplorerResult;

// Everything an export needs to know about one run of a model on one input: the attention of every
// head, the token labels, which tokens are special, and where it came from (for titles and metadata).
struct AttentionExportSource
{
    std::shared_ptr<const AttentionMaps> maps;
    QStringList tokens;        // one label per position (queries and keys are the same sequence)
    std::vector<bool> special; // [CLS], [SEP], BOS...
    bool causal = false;
    bool discountSpecial = false; // renormalise each row without the special keys, as exBERT does
    QString model;
    // What maps hold, named in every title ("attention weight α", "contribution ‖αf(x)‖"); empty: not
    // named (the command line's exports of weights). colorBarCaption: see HeatmapData; the grid's colour bar
    // shows both.
    QString measure;
    QString colorBarCaption;
    QString text;
    QString textB;
    // Each head's label as the explorer shows it (layer-major), for the exported grid's badges and legend;
    // empty: the grid has none.
    std::vector<HeadLabel> headLabels;
    // The tokens' roles ([CLS]/BOS, [SEP]/EOS): without headLabels, grid() labels the heads from them with
    // the default thresholds, in the same pass over the matrices as the statistics (the CLI's exports).
    std::optional<TokenRoles> roles;
    // A number per head drawn over the grid's thumbnails (the ablation scan's KL, layer-major) and what it
    // is ("ablation KL, nats (zero)"): HeadGridData::effect; empty: none.
    std::vector<double> headEffect;
    QString headEffectCaption;

    // What one run of the explorer gives an export: the maps, labels, roles, model, measure and texts. The
    // window adds what it shows on top (discounting, the grid's head labels and scan colouring).
    static AttentionExportSource ofRun(const ExplorerResult& result);

    // One head's whole matrix as the heatmap view shows it (special tokens discounted when asked).
    HeatmapData heatmap(int layer, int head) const;
    // All heads, for the grid. maxCells > 0 pools each matrix into at most maxCells × maxCells blocks
    // (block means, read a band of rows at a time so n×n is never held): thumbnails of long inputs.
    // 0 keeps every value (numbers exports).
    HeadGridData grid(int maxCells = 0) const;
    static constexpr int kThumbnailCells = 256;
    // "model · layer 2, head 5 · “text”": the title of an exported heatmap (head < 0: the grid).
    QString title(int layer, int head) const;
    // Where an export of this run came from (model, texts, measure, discounting), for one head or, with
    // layer -1, for several.
    ExportMetadata metadata(int layer = -1, int head = -1) const;
};

} // namespace attnscope
