#include "generation/keyvaluecache.h"

#include <numeric>
#include <stdexcept>

namespace attnscope {

namespace {

void appendTokens(HeadTensor& to, const HeadTensor& from)
{
    if (to.tokens == 0) {
        to = from;
        return;
    }
    if (from.heads != to.heads || from.dim != to.dim)
        throw std::invalid_argument("KeyValueCache: keys/values of another shape");
    to.values.insert(to.values.end(), from.values.begin(), from.values.end());
    to.tokens += from.tokens;
}

void eraseToken(HeadTensor& t, int index)
{
    const auto begin = t.values.begin() + std::ptrdiff_t(t.offset(index, 0));
    t.values.erase(begin, begin + t.tokenStride());
    --t.tokens;
}

} // namespace

void KeyValueCache::append(const std::vector<LayerKeyValues>& added, int firstTokenIndex)
{
    if (added.empty()) return;
    if (!m_layers.empty() && added.size() != m_layers.size())
        throw std::invalid_argument("KeyValueCache: a pass with another number of layers");
    if (m_layers.empty()) m_layers.resize(added.size());
    for (size_t l = 0; l < added.size(); ++l) {
        appendTokens(m_layers[l].keys, added[l].keys);
        appendTokens(m_layers[l].values, added[l].values);
        m_layers[l].positions.insert(m_layers[l].positions.end(), added[l].positions.begin(),
                                     added[l].positions.end());
    }
    for (int t = 0; t < added.front().keys.tokens; ++t)
        m_tokenIndices.push_back(firstTokenIndex + t);
}

void KeyValueCache::evict(int index)
{
    if (index < 0 || index >= size()) throw std::out_of_range("KeyValueCache::evict: no such entry");
    for (LayerKeyValues& layer : m_layers) {
        eraseToken(layer.keys, index);
        eraseToken(layer.values, index);
        layer.positions.erase(layer.positions.begin() + index);
    }
    m_tokenIndices.erase(m_tokenIndices.begin() + index);
}

void KeyValueCache::assignSlotPositions()
{
    for (LayerKeyValues& layer : m_layers)
        std::iota(layer.positions.begin(), layer.positions.end(), 0);
}

void KeyValueCache::clear()
{
    m_layers.clear();
    m_tokenIndices.clear();
}

} // namespace attnscope
