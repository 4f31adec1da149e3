#pragma once

#include <QString>

namespace attnscope {

// How the lesson writes numbers in formulas and explanations: integers as integers ("4"), everything
// else rounded to three decimals without trailing zeros ("0.665", "1.5"), negative numbers with a true minus sign, -inf as "−∞". Always
// with a '.' decimal point, so that a formula reads the same in every language and can be parsed back.
QString lessonNumber(double value);
// The same, with three decimals even for integers ("1.000"): for probabilities.
QString lessonFixed(double value);
// lessonNumber in parentheses when negative, for use as a factor: "3·(−1)".
QString lessonFactor(double value);

} // namespace attnscope
