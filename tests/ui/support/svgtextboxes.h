#pragma once

// The text boxes of an SVG written by QSvgGenerator: each <text> element's string, its font (family,
// pixel size, weight from the attributes) and the box its glyphs take (advance × ascent + descent around
// the baseline), mapped through the <g transform="matrix(...)"> around it to page coordinates. For the
// export tests: every box inside the page, no two overlapping.

#include <QByteArray>
#include <QPolygonF>
#include <QString>
#include <QVector>

struct SvgTextBox
{
    QString text;
    QPolygonF box; // 4 corners in page coordinates (a rotated label gives a rotated box)
};

// Empty with *error set when the SVG is not XML.
QVector<SvgTextBox> svgTextBoxes(const QByteArray& svg, QString* error);

// The page size from the root element's viewBox (else width/height).
QSizeF svgPageSize(const QByteArray& svg);

// True when the convex quads overlap by more than `tolerance` pixels (separating axis test).
bool boxesOverlap(const QPolygonF& a, const QPolygonF& b, double tolerance);

// One line per problem: a box outside the page (by more than tolerance) or two boxes that overlap.
QStringList svgTextProblems(const QByteArray& svg, double tolerance = 0.75);
