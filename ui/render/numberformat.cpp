#include "render/numberformat.h"

#include <QLocale>
#include <cmath>

namespace attnscope {

QString formatAttention(double value)
{
    const QLocale locale;
    const double magnitude = std::abs(value);
    if (magnitude < 1e-9) return locale.toString(0.0, 'f', 0);
    if (magnitude >= 0.001) return locale.toString(value, 'f', 4);
    // Enough decimals for two significant digits: 1.345e-5 → 6 decimals → 0.000013.
    const int decimals = int(std::ceil(-std::log10(magnitude))) + 1;
    return locale.toString(value, 'f', decimals);
}

QString formatShort(double value)
{
    const QLocale locale;
    const double magnitude = std::abs(value);
    if (magnitude < 1e-12) return locale.toString(0.0, 'f', 0);
    if (magnitude >= 1e-3) return locale.toString(value, 'g', 3);
    // Three significant digits in fixed notation: 1.234e-5 → 7 decimals → 0.0000123.
    const int decimals = int(std::ceil(-std::log10(magnitude))) + 2;
    QString text = locale.toString(value, 'f', decimals);
    // 'g' drops trailing zeros; so does this.
    while (text.endsWith(locale.zeroDigit()) && text.contains(locale.decimalPoint()))
        text.chop(1);
    return text;
}

} // namespace attnscope
