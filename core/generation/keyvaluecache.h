#pragma once

// A decoder's KV cache: per layer the keys (before RoPE), values and position ids of the tokens the model
// may still attend to, in the form RunOptions::past takes. Which tokens stay is the caller's policy (full,
// window, sinks + window: streamingevaluation.h); positions can be re-assigned in place, as StreamingLLM
// does, since keys are rotated at attention time.

#include "model/attentioncapture.h"

#include <vector>

namespace attnscope {

class KeyValueCache
{
public:
    // Entries in the cache (the same in every layer).
    int size() const { return int(m_tokenIndices.size()); }
    bool empty() const { return m_tokenIndices.empty(); }
    // What RunOptions::past takes; empty until the first append.
    const std::vector<LayerKeyValues>& layers() const { return m_layers; }
    // The index in the whole sequence of the token each entry holds (what a view shows as the cache's
    // contents); entry order is attention order.
    const std::vector<int>& tokenIndices() const { return m_tokenIndices; }

    // Adds a pass's AttentionCapture::keyValues (one entry per layer, `tokens` tokens each) at the end;
    // firstTokenIndex is the sequence index of its first token.
    void append(const std::vector<LayerKeyValues>& added, int firstTokenIndex);
    // Drops entry `index` from every layer.
    void evict(int index);
    // Every entry's position id becomes its slot in the cache, 0 .. size() − 1 (StreamingLLM).
    void assignSlotPositions();
    void clear();

private:
    std::vector<LayerKeyValues> m_layers;
    std::vector<int> m_tokenIndices;
};

} // namespace attnscope
