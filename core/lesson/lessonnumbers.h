#pragma once

#include <QString>

namespace attnscope {

// How the lesson writes numbers in formulas, cells and explanations: integers as integers ("4"), everything
// else rounded to three decimals without trailing zeros ("0.665", "1.5"), negative numbers with a true
// minus sign, -inf as "−∞". The decimal point is the default QLocale's ("0,665" in Turkish, as Turkish
// schools write it); the GUI sets that locale with the language, headless commands keep the C locale.
// No digit grouping, so the lesson's tables read them back with QLocale::toDouble.
QString lessonNumber(double value);
// The same, with three decimals even for integers ("1.000"): for probabilities. Fewer decimals (0 to 3)
// where a crowded table has no room for three.
QString lessonFixed(double value, int decimals = 3);
// lessonNumber in parentheses when negative, for use as a factor: "3·(−1)".
QString lessonFactor(double value);

} // namespace attnscope
