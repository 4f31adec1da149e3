#include "lesson/lessonnumbers.h"

#include <QLocale>
#include <algorithm>
#include <cmath>

namespace attnscope {

namespace {
const QChar kMinus(0x2212);

// Formatting is done in the C locale (no grouping, fixed decimals), then the point becomes the locale's.
QString withLocaleDecimalPoint(QString text)
{
    const QString point = QLocale().decimalPoint();
    if (point != QLatin1String(".")) text.replace(QLatin1Char('.'), point);
    return text;
}

QString withMinusSign(QString text)
{
    // "-0.000" or "-0" after rounding a tiny negative number reads as zero.
    if (text.startsWith(QLatin1Char('-')) && std::all_of(text.begin() + 1, text.end(), [](QChar c) {
            return c == QLatin1Char('0') || c == QLatin1Char('.');
        }))
        text.remove(0, 1);
    if (text.startsWith(QLatin1Char('-')))
        text[0] = kMinus;
    return withLocaleDecimalPoint(text);
}
} // namespace

QString lessonNumber(double value)
{
    if (std::isinf(value))
        return value < 0 ? QString(kMinus) + QChar(0x221E) : QString(QChar(0x221E));
    if (std::isnan(value))
        return QStringLiteral("NaN");
    const double rounded = std::round(value);
    if (std::abs(value - rounded) < 1e-9 && std::abs(rounded) < 1e15)
        return withMinusSign(QString::number(qint64(rounded)));
    // Three decimals, trailing zeros dropped: 1.5, 2.828, 0.09.
    QString text = QString::number(value, 'f', 3);
    while (text.endsWith(QLatin1Char('0')))
        text.chop(1);
    if (text.endsWith(QLatin1Char('.')))
        text.chop(1);
    return withMinusSign(text);
}

QString lessonFixed(double value, int decimals)
{
    if (std::isinf(value) || std::isnan(value))
        return lessonNumber(value);
    return withMinusSign(QString::number(value, 'f', std::clamp(decimals, 0, 3)));
}

QString lessonFactor(double value)
{
    const QString text = lessonNumber(value);
    return text.startsWith(kMinus) ? QLatin1Char('(') + text + QLatin1Char(')') : text;
}

} // namespace attnscope
