#include "export/exportformat.h"

namespace attnscope {

std::optional<ExportFormat> exportFormatFromSuffix(const QString& suffix)
{
    const QString s = suffix.toLower();
    const QStringList all = exportFormatSuffixes();
    const int index = int(all.indexOf(s));
    if (index < 0)
        return std::nullopt;
    return ExportFormat(index);
}

std::optional<ExportFormat> exportFormatFromPath(const QString& path)
{
    const int dot = int(path.lastIndexOf(QLatin1Char('.')));
    const int slash = int(std::max(path.lastIndexOf(QLatin1Char('/')), path.lastIndexOf(QLatin1Char('\\'))));
    if (dot < 0 || dot < slash)
        return std::nullopt;
    return exportFormatFromSuffix(path.mid(dot + 1));
}

QStringList exportFormatSuffixes()
{
    return {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf"),
            QStringLiteral("csv"), QStringLiteral("json"), QStringLiteral("npy")};
}

QString exportFormatSuffix(ExportFormat format)
{
    return exportFormatSuffixes().at(int(format));
}

bool isImageFormat(ExportFormat format)
{
    return format == ExportFormat::Png || format == ExportFormat::Svg || format == ExportFormat::Pdf;
}

} // namespace attnscope
