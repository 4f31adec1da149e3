#pragma once

#include "lesson/lessonstep.h"
#include "render/colormap.h"

#include <QImage>
#include <QRectF>
#include <QSize>
#include <optional>
#include <utility>

class QPainter;

namespace attnscope {

struct LessonPaintStyle
{
    ColorMapKind colorMap = ColorMapKind::Viridis;
    double fontPointSize = 12.0; // the projector option raises it to 20
    bool showTitle = true;
    bool showFormula = true;
};

// Where the parts of a painted step sit: the cells, the labels, the title. Shared by painting,
// hit-testing (hover) and the tests.
struct LessonStepLayout
{
    QRectF title;
    QRectF formula;
    QRectF cells; // the whole cell block
    double cellWidth = 0;
    double cellHeight = 0;
    double rowLabelWidth = 0;
    double colLabelHeight = 0;
    int rows = 0;
    int cols = 0;
    // The numbers shrink to kComfortablePointSize, then lose a decimal, then shrink to kMinCellPointSize
    // with one decimal: showNumbers is false only when even that does not fit the cells.
    double cellPointSize = 12.0;
    int decimals = 3;
    bool showNumbers = true;
    // Column labels wider than a cell are written upwards, bottom to top, so they are not cut; token
    // labels shrink (labelPointSize) when the rows are lower than their text.
    bool verticalColumnLabels = false;
    double labelPointSize = 12.0;
    static constexpr double kComfortablePointSize = 9.0;
    static constexpr double kMinCellPointSize = 7.0;

    QRectF cellRect(int row, int col) const;
    std::optional<std::pair<int, int>> cellAt(QPointF point) const; // (row, col)
};

// Paints one lesson step (a LessonStep: plain data) as a table of coloured cells with their numbers,
// token labels, the title and the formula. Up to 16 tokens every cell keeps its number at 1280×800:
// the numbers' font shrinks to fit the cells, and long column labels turn vertical. The same code paints the
// widget and the PNG export. Colour: probabilities map directly (0..1); other steps map their own finite
// range min..max to 0..1. Masked cells (−∞) are hatched grey.
class LessonStepPainter
{
public:
    LessonStepPainter(const LessonStep& step, const LessonPaintStyle& style);

    LessonStepLayout layout(QRectF target, QPainter& painter) const;
    LessonStepLayout layout(QRectF target, const QFont& font, QPaintDevice* device) const;
    void paint(QPainter& painter, QRectF target) const;

    // The colour-map parameter of a cell, in [0, 1]; empty for a masked (−∞) cell.
    static std::optional<double> colorParameter(const LessonStep& step, int row, int col);
    // The number as printed in the cell: integers as integers, else `decimals` decimals (the layout
    // drops to 2 or 1 where 16 tokens leave no room for 3; the hover read-out keeps all three).
    static QString cellText(const LessonStep& step, int row, int col, int decimals = 3);

    // How far a small lesson's matrix grows past the style's font size when the room allows.
    static constexpr double kMaxMatrixGrowth = 2.5;

private:
    // The layout with the matrix (cells, numbers, labels) measured at matrixPointSize; roomy: the room
    // gave the cells their full size at it (so a larger size may fit too).
    LessonStepLayout layoutAt(QRectF target, const QFont& from, QPaintDevice* device, double matrixPointSize,
                              bool* roomy) const;

    const LessonStep& m_step;
    LessonPaintStyle m_style;
};

// "d1", "d2", …: the labels of a matrix's rows or columns when they are dimensions, not tokens (the
// concatenated heads' columns, the exported W_Q/W_K/W_V), numbered from first + 1.
QStringList lessonDimensionLabels(int count, int first = 0);

// A w×h image of the step on a white background: the PNG export and the CLI.
QImage renderLessonStepImage(const LessonStep& step, const LessonPaintStyle& style, QSize size);

} // namespace attnscope
