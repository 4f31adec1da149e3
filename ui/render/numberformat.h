#pragma once

#include <QString>

namespace attnscope {

// An attention weight written for people, in the current locale: "0.6652", "0.031", "0.000013", "0" — never
// "1.345E-05". Four significant decimals above 0.001, else two significant digits in fixed notation.
QString formatAttention(double value);

} // namespace attnscope
