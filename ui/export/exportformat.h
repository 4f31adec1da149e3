#pragma once

#include <QString>
#include <QStringList>

#include <optional>

namespace attnscope {

enum class ExportFormat { Png, Svg, Pdf, Csv, Json, Npy };

// From a file name's suffix (case-insensitive): "heads.PNG" -> Png. Nothing for unknown suffixes.
std::optional<ExportFormat> exportFormatFromPath(const QString& path);
std::optional<ExportFormat> exportFormatFromSuffix(const QString& suffix);
QString exportFormatSuffix(ExportFormat format); // "png"
QStringList exportFormatSuffixes();              // all, in enum order
bool isImageFormat(ExportFormat format);         // PNG, SVG, PDF (the others are numbers)

// Largest exported image side in pixels: 16384 × 16384 × 4 bytes is 1 GiB of pixels already.
constexpr int kMaxExportSide = 16384;

} // namespace attnscope
