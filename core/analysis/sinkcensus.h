#pragma once

// The attention-sink census of Gu et al. (ICLR 2025, "When Attention Sink Emerges in Language Models"):
// per head and key token k, α_k = mean over the queries i ≥ k of A[i, k] (the attention k receives from the
// tokens that can see it, in a causal model); token k is a sink of a head when α_k > ε. Sink_k^ε is the share
// of all (layer, head) pairs in which k is a sink. ε = 0.3 by default, as in the paper.
//
// Encoders use the same formula (queries i ≥ k), so the scores of a decoder and an encoder compare alike.

#include "attention/attentionmaps.h"

#include <atomic>
#include <vector>

namespace attnscope {

struct SinkCensus
{
    double epsilon = 0.3;
    int layers = 0, heads = 0, tokens = 0;
    std::vector<double> meanReceived; // α_k, [layers][heads][tokens]
    std::vector<double> sinkScore;    // Sink_k^ε, [tokens]: share of heads with α_k > ε

    double received(int layer, int head, int token) const
    {
        return meanReceived[(size_t(layer) * size_t(heads) + size_t(head)) * size_t(tokens) + size_t(token)];
    }
};

// Needs square maps (throws std::invalid_argument otherwise); OperationCancelled when cancel turns true.
SinkCensus sinkCensus(const AttentionMaps& maps, double epsilon = 0.3,
                      const std::atomic<bool>* cancel = nullptr);

} // namespace attnscope
