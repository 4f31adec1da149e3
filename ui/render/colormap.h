#pragma once

#include <QColor>
#include <QString>
#include <QStringList>

#include <optional>

namespace attnscope {

enum class ColorMapKind { Viridis, Magma, Cividis, Greys };

// Maps t in [0, 1] (clamped) to a colour of a sequential map. Greys runs white (0) to black (1), as
// matplotlib's "Greys" does, so that high attention is dark on paper.
QRgb colorMapColor(ColorMapKind kind, double t);
QString colorMapName(ColorMapKind kind);
std::optional<ColorMapKind> colorMapFromName(const QString& name);
QStringList colorMapNames();

// Diverging map for differences in [-1, 1]: blue (negative), white (0), red (positive).
QRgb divergingColor(double t);

} // namespace attnscope
