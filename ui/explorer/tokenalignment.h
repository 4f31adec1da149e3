#pragma once

#include <QStringList>

#include <utility>
#include <vector>

namespace attnscope {

// Pairs the tokens of two sentences for comparing one head on both: equal tokens by longest common
// subsequence, then tokens at the same place in equally long gaps between them (so "büyüktü" pairs with
// "küçüktü"). Returns (index in a, index in b), increasing in both.
std::vector<std::pair<int, int>> alignTokens(const QStringList& a, const QStringList& b);

} // namespace attnscope
