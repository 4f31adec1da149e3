#pragma once

#include "explorer/explorerresult.h"
#include "render/heatmapdata.h"

namespace attnscope {

class HeatmapWidget;

// Inputs up to this many tokens are shown from a dense copy of the one head on screen; longer ones
// through exact tiles and a pooled overview (HeatmapWidget's tiled mode).
inline constexpr int kDenseHeatmapLimit = 512;

// The labels, special flags and title of one head of a result, with no values.
HeatmapData headFrame(const ExplorerResult& result, int layer, int head);
// Long inputs (at least HeatmapPainter::kSideBarMinimumRows queries): each query's attention to the first
// token and to the [SEP] tokens (summed) of one head, as the side bar beside the matrix (n×1 tiles). Shared
// by the views and the exports.
void addSideBar(HeatmapData& data, const AttentionMaps& maps, int layer, int head,
                const std::vector<int>& sepPositions);
// Every value of one head (dense; fine up to kDenseHeatmapLimit tokens).
HeatmapData headHeatmap(const ExplorerResult& result, int layer, int head);
// The head's pooled overview from the analysis, as a block placed over the whole matrix.
HeatmapData headOverview(const ExplorerResult& result, int layer, int head);
// The head with subword pieces merged into words (core/attention/wordlevel.h: to a word = sum over its
// pieces, from a word = mean); dense inputs only (up to kDenseHeatmapLimit tokens).
HeatmapData headWordHeatmap(const ExplorerResult& result, int layer, int head);
// Shows one head in a widget, choosing dense or tiled by length; word level when asked and dense.
void showHead(HeatmapWidget& widget, const std::shared_ptr<const ExplorerResult>& result, int layer, int head,
              bool words = false);

} // namespace attnscope
