#pragma once

#include <QString>

namespace attnscope {

// An attention weight written for people, in the current locale: "0.6652", "0.031", "0.000013", "0" — never
// "1.345E-05". Four significant decimals above 0.001, else two significant digits in fixed notation.
QString formatAttention(double value);

// A short number for people, in the current locale: three significant digits ("0.54", "0.054", "1.5"), in
// fixed notation below 0.001 too ("0.0000123", never "1.23e-05"). For colour bar ends and difference ranges.
QString formatShort(double value);

} // namespace attnscope
