#include "render/colormap.h"

#include "render/colortables.h"

#include <algorithm>
#include <cmath>

namespace attnscope {

namespace {
QRgb fromTable(const std::array<std::uint32_t, 256>& table, double t)
{
    const int index = int(std::lround(std::clamp(t, 0.0, 1.0) * 255.0));
    return QRgb(0xff000000u | table[size_t(index)]);
}
} // namespace

QRgb colorMapColor(ColorMapKind kind, double t)
{
    if (std::isnan(t))
        t = 0.0;
    switch (kind) {
    case ColorMapKind::Viridis:
        return fromTable(colortables::viridis, t);
    case ColorMapKind::Magma:
        return fromTable(colortables::magma, t);
    case ColorMapKind::Cividis:
        return fromTable(colortables::cividis, t);
    case ColorMapKind::Greys: {
        const int level = 255 - int(std::lround(std::clamp(t, 0.0, 1.0) * 255.0));
        return qRgb(level, level, level);
    }
    }
    return qRgb(0, 0, 0);
}

QString colorMapName(ColorMapKind kind)
{
    switch (kind) {
    case ColorMapKind::Viridis:
        return QStringLiteral("viridis");
    case ColorMapKind::Magma:
        return QStringLiteral("magma");
    case ColorMapKind::Cividis:
        return QStringLiteral("cividis");
    case ColorMapKind::Greys:
        return QStringLiteral("greys");
    }
    return {};
}

QStringList colorMapNames()
{
    return {QStringLiteral("viridis"), QStringLiteral("magma"), QStringLiteral("cividis"), QStringLiteral("greys")};
}

std::optional<ColorMapKind> colorMapFromName(const QString& name)
{
    for (ColorMapKind kind : {ColorMapKind::Viridis, ColorMapKind::Magma, ColorMapKind::Cividis, ColorMapKind::Greys})
        if (colorMapName(kind).compare(name, Qt::CaseInsensitive) == 0)
            return kind;
    return std::nullopt;
}

QRgb divergingColor(double t)
{
    if (std::isnan(t))
        t = 0.0;
    t = std::clamp(t, -1.0, 1.0);
    const QColor negative(33, 102, 172), positive(178, 24, 43);
    const QColor& end = t < 0 ? negative : positive;
    const double a = std::abs(t);
    auto mix = [a](int white, int c) { return int(std::lround(white + (c - white) * a)); };
    return qRgb(mix(255, end.red()), mix(255, end.green()), mix(255, end.blue()));
}

} // namespace attnscope
