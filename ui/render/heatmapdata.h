#pragma once

#include "render/colormap.h"

#include <QString>
#include <QStringList>
#include <vector>

namespace attnscope {

enum class HeatmapScale {
    Absolute, // the probability itself on 0..1: the default, so sink mass is never hidden by rescaling
    RowMax,   // each row divided by its own maximum
    Log,      // log10 over [1e-4, 1]
};
QString heatmapScaleName(HeatmapScale scale);

// What one heatmap shows: a block of an attention matrix with its labels. Plain data, no painting.
struct HeatmapData
{
    int rows = 0;
    int cols = 0;
    std::vector<float> values; // row-major rows×cols
    QStringList rowLabels;     // query tokens
    QStringList colLabels;     // key tokens
    std::vector<bool> specialRows,
        specialCols; // [CLS], [SEP], BOS, [MASK]...: drawn marked, labels always kept
    // The key columns "discount special tokens" removes: [CLS]/BOS and [SEP]/EOS, never [MASK] (whose column
    // is what a masked-word reader looks at). Empty: specialCols.
    std::vector<bool> discountCols;
    bool causal = false; // cells right of the diagonal are masked, drawn hatched
    // Rows that are later queries of a longer sequence (generation: row r is the query queryOffset + r): the
    // causal mask is shifted by it. 0 for a square attention matrix.
    int queryOffset = 0;
    int firstRow = 0; // position of row 0 / col 0 in the whole matrix (for a zoomed block)
    int firstCol = 0;
    // Pooled blocks (overviews of long inputs): cell r covers matrix rows [rowStarts[r], rowStarts[r+1]).
    // Empty: one matrix row per cell, starting at firstRow. Same for columns.
    std::vector<int> rowStarts, colStarts;
    std::vector<float>
        rowMax; // per-row maximum over the whole matrix row, for HeatmapScale::RowMax of blocks
    bool signedValues = false; // differences, drawn on the diverging map over [-signedRange, +signedRange]
    float signedRange =
        1.0f; // the colour bar's end: the largest absolute difference (a 0.05 difference is not white)
    bool discounted = false; // special key columns removed and rows renormalised (exBERT's option)
    QString title;
    // Written along the colour bar when not empty: what its 0..1 axis means when the values are not
    // probabilities ("share of the row's ‖αf(x)‖, not a probability").
    QString colorBarCaption;
    // Per matrix row (all rows, not only this block's) the absolute total the row's values are shares of
    // (the contribution measure: Σ_j ‖α_ij f(x_j)‖); empty when the values are what they are. The read-out
    // shows value × total beside the share.
    std::vector<float> rowTotals;
    // Long inputs: per matrix row, the attention to the first token and to the [SEP] tokens, drawn as a
    // side bar beside the matrix (empty: none; sideSep empty when the input has no [SEP]).
    std::vector<float> sideFirst, sideSep;

    float value(int row, int col) const { return values[size_t(row) * size_t(cols) + size_t(col)]; }
    // Causally masked: every matrix cell the (possibly pooled) cell covers lies right of the diagonal.
    bool isMasked(int row, int col) const
    {
        return causal && matrixCol(col) > matrixRowEnd(row) - 1 + queryOffset;
    }
    // Key column dropped by "discount special tokens".
    bool isExcluded(int col) const
    {
        return discounted && colStarts.empty() && isDiscountable(firstCol + col);
    }
    bool isDiscountable(int matrixColumn) const
    {
        const std::vector<bool>& flags = discountCols.empty() ? specialCols : discountCols;
        return matrixColumn >= 0 && size_t(matrixColumn) < flags.size() && flags[size_t(matrixColumn)];
    }
    int matrixRow(int row) const { return rowStarts.empty() ? firstRow + row : rowStarts[size_t(row)]; }
    int matrixRowEnd(int row) const
    {
        return rowStarts.empty() ? firstRow + row + 1 : rowStarts[size_t(row) + 1];
    }
    int matrixCol(int col) const { return colStarts.empty() ? firstCol + col : colStarts[size_t(col)]; }
    int matrixColEnd(int col) const
    {
        return colStarts.empty() ? firstCol + col + 1 : colStarts[size_t(col) + 1];
    }
    // Value mapped to the colour axis 0..1 under the given scale.
    double colorParameter(int row, int col, HeatmapScale scale) const;
};

struct HeatmapStyle
{
    ColorMapKind colorMap = ColorMapKind::Viridis;
    HeatmapScale scale = HeatmapScale::Absolute;
    double fontPointSize = 9.0;
    bool showColorBar = true;
    // The colour bar across under the cells instead of beside them: panes in one row (the comparison's
    // three-pane modes) are short of width and have height to spare.
    bool colorBarBelow = false;
    bool showTitle = true;
    bool showValues = false; // numbers in cells (lesson, small matrices)
    double lineWidth = 1.0;
    // Presenter mode: labels, title and ticks in light ink on a dark page, cells filling the screen.
    bool dark = false;
    bool stretchCells = false;
    // The largest ordinary cell, in pixels (0: as large as the room allows). Comparison panes share the
    // smallest pane's, so every head is drawn at one cell size.
    double maximumCellPixels = 0;
    // The smallest label font in pixels before labels go into two lanes and then are thinned (0: the
    // default kMinimumLabelPixelSize). Presenter mode asks 16 px, readable from the back of a classroom.
    double minimumLabelPixels = 0;
};

// exBERT's "discount special tokens": zero the special key columns and renormalise every row over the
// other keys (rows with no mass left stay 0). Marks the data discounted and says so in the title.
void discountSpecialTokens(HeatmapData& data, const QString& titleSuffix);

} // namespace attnscope
