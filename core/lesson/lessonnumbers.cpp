#include "lesson/lessonnumbers.h"

#include <cmath>

namespace attnscope {

namespace {
const QChar kMinus(0x2212);

QString withMinusSign(QString text)
{
    if (text.startsWith(QLatin1Char('-')))
        text[0] = kMinus;
    // "-0.000" after rounding a tiny negative number reads as zero.
    if (text == QString(kMinus) + QStringLiteral("0.000") || text == QString(kMinus) + QStringLiteral("0"))
        text.remove(0, 1);
    return text;
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

QString lessonFixed(double value)
{
    if (std::isinf(value) || std::isnan(value))
        return lessonNumber(value);
    return withMinusSign(QString::number(value, 'f', 3));
}

QString lessonFactor(double value)
{
    const QString text = lessonNumber(value);
    return text.startsWith(kMinus) ? QLatin1Char('(') + text + QLatin1Char(')') : text;
}

} // namespace attnscope
