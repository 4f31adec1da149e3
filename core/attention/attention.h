#pragma once

// Multi-head scaled dot-product attention on the CPU: the reference every other path is checked against.
//
// Per query head h (reading key/value head h / (H / H_kv), which covers MHA, GQA and MQA):
//   S = Q_h · K_hᵀ · scale             S is (n_q, n_k)
//   S = c · tanh(S / c)                 only with a logit soft cap c (Gemma 2)
//   S = S + mask                        causal, sliding window, key padding
//   P = softmax(S) row by row         every visible row sums to 1
//   with a learned sink σ_h (gpt-oss):  P = softmax([S, σ_h]) without its last column, rows sum to < 1
//   O_h = P · V_h                     O_h is (n_q, d)
//
// Two modes give the same numbers:
//   attentionFull  materialises every P, for display of short inputs;
//   attentionTiled walks key blocks with an online softmax (FlashAttention), never holding n×n,
//                  and returns O plus the row logsumexp L, from which any rectangle of P is
//                  recomputed exactly as exp(S − L) by probabilityTile.

#include "attention/headtensor.h"
#include "attention/rope.h"
#include "util/uninitializedbuffer.h"

#include <optional>
#include <vector>

namespace attnscope {

struct AttentionOptions
{
    std::optional<float> scale; // default 1/sqrt(d); the lesson turns it off with scale = 1
    bool causal = false;
    // Query i sits at key position i + queryPositionOffset: the causal mask lets it see keys
    // j <= i + queryPositionOffset, and RoPE rotates it at that position.
    int queryPositionOffset = 0;
    // Query i sees key j only when (i + queryPositionOffset) − j < slidingWindow (Mistral, Gemma 2/3: the
    // window counts the query itself); 0 = no window.
    int slidingWindow = 0;
    // > 0: scores are soft-capped, S = softCap · tanh(S / softCap), before the mask (Gemma 2's
    // attn_logit_softcapping). It changes P itself, not only its display.
    float softCap = 0.0f;
    std::vector<unsigned char> keyPadding; // empty: every key visible; else one flag per key, 0 = padding
    RopeConfig rope;                       // applied to Q and K before the scores
    int threads = 0;                       // 0 = all cores
    int queryBlock = 64;                   // tiled mode: queries per task
    int keyBlock = 256;                    // tiled mode: keys per online-softmax step
    // Empty: none. Else one learned sink logit per query head (gpt-oss's self_attn.sinks): each row's softmax
    // runs over its scores and the sink, and the sink's column is dropped, so P's rows sum to less than 1
    // (1 − the row sum is the sink's mass); O = P · V with that P, and the row's L includes the sink.
    std::vector<float> sinks;

    float effectiveScale(int headDim) const;
    bool isMasked(int query, int key) const
    {
        return (causal && key > query + queryPositionOffset) ||
               (slidingWindow > 0 && query + queryPositionOffset - key >= slidingWindow) ||
               (!keyPadding.empty() && keyPadding[size_t(key)] == 0);
    }
    bool hasMask() const { return causal || slidingWindow > 0 || !keyPadding.empty(); }
};

// Shapes: q [n_q, H, d], k and v [n_k, H_kv, d]. Throws std::invalid_argument with a readable
// message when they disagree (H not a multiple of H_kv, d differs, padding length wrong, ...).
void validateAttentionInputs(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v,
                             const AttentionOptions& options);

struct FullAttentionResult
{
    int heads = 0, queries = 0, keys = 0;
    HeadTensor output;         // O [n_q, H, d]
    FloatBuffer probabilities; // P [H, n_q, n_k]; rows that see no key are all zero

    const float* probabilityRow(int head, int query) const
    {
        return probabilities.data() + (size_t(head) * size_t(queries) + size_t(query)) * size_t(keys);
    }
    float probability(int head, int query, int key) const { return probabilityRow(head, query)[key]; }
};

FullAttentionResult attentionFull(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v,
                                  const AttentionOptions& options);

struct TiledAttentionResult
{
    HeadTensor output; // O [n_q, H, d]
    // L [H, n_q]; -inf for a row that sees no key. Kept in double: L is about as large as the largest
    // score, and exp(S − L) in float would lose the last digits of small probabilities to its rounding.
    std::vector<double> logSumExp;
};

TiledAttentionResult attentionTiled(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v,
                                    const AttentionOptions& options);

// Q and K as the scores see them: rotated by options.rope when it is enabled (queries at
// queryPositionOffset, keys at 0), else plain copies. Callers that will ask for tiles later keep these.
struct RotatedQueryKey
{
    HeadTensor queries;
    HeadTensor keys;
};
RotatedQueryKey rotateForAttention(const HeadTensor& q, const HeadTensor& k, const AttentionOptions& options);

// One rectangle [q0,q1)×[k0,k1) of head `head`'s P, recomputed as exp(S − L) from Q and K after RoPE
// and the logsumexp of attentionTiled. The result is row-major (q1−q0)×(k1−k0). options supplies the
// scale and masks; its rope is ignored since the inputs are already rotated.
std::vector<float> probabilityTile(const HeadTensor& rotatedQueries, const HeadTensor& rotatedKeys,
                                   const std::vector<double>& logSumExp, const AttentionOptions& options,
                                   int head, int q0, int q1, int k0, int k1);

} // namespace attnscope
