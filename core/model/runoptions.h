#pragma once

// What a caller asks of one forward pass (TransformerModel::run / predict).

#include "model/attentioncapture.h"
#include "util/uninitializedbuffer.h"

#include <atomic>
#include <functional>
#include <vector>

namespace attnscope {

class AttentionBackend;

// Head ablation (issue 14): what replaces one head's attention output O_h [n, d] before W_O mixes the heads.
enum class AblationMode {
    Zero, // O_h = 0: the head contributes nothing (transformers' head_mask = 0)
    Mean, // every row of O_h = its mean over the pass's positions
};

struct HeadAblation
{
    int layer = 0;
    int head = 0;
    AblationMode mode = AblationMode::Zero;
};

// Which tokens' LM-head logits a pass keeps (AttentionCapture::logits, TransformerModel::logits).
// The ablation scan's batched pass (issue 14; AblationStudy::scan, TransformerModel::ablatedPredictions).
// The residual stream holds copies.size() copies of one input side by side, [copies · n, hidden]; copy c has
// the heads copies[c] ablated, all of them in RunOptions::firstLayer. Every projection and MLP runs once over
// all copies' rows (one GEMM instead of one per copy), attention per copy; nothing is captured.
struct AblationBatch
{
    std::vector<std::vector<HeadAblation>> copies;
    // The first layer's attention output O [n, H, d] before W_O, as the unablated pass computed it
    // (AttentionCapture::headOutputs): that layer's attention is not recomputed, each copy takes O with its
    // heads replaced. Null: computed.
    const HeadTensor* headOutputs = nullptr;
    // The rows the LM head reads (the scored positions, ascending). The last layer computes every row's keys
    // and values but only these rows' queries (LayerStep::projectQueries), attention and everything after
    // it; the pass's output then has outputRows.size() rows per copy. Empty: every row.
    std::vector<int> outputRows;
};

enum class LogitRows {
    None,
    Last, // the last token's: the next-token distribution of a decoder
    All,  // every token's: a decoder's prediction of each next token (per-token NLL in one pass)
};

struct RunOptions
{
    // Where each layer's attention is computed (backend/attentionbackend.h); null = the CPU core.
    // A GPU backend gives O and L (and, for dense capture, P) within the CPU's tolerances.
    AttentionBackend* backend = nullptr;
    int threads = 0;                           // 0 = all cores
    const std::atomic<bool>* cancel = nullptr; // checked between layers: run() throws OperationCancelled
    // Called on the computing thread after each layer with (layers done, layers in this pass), for a
    // progress bar; it must be cheap and thread-safe.
    std::function<void(int, int)> progress;
    int denseLimit = 1024; // up to this many tokens P is stored dense, above it tiled
    // When set, each layer's dense P [H, n_q, n_k] (layers up to denseLimit tokens) is handed here as soon as
    // the layer is done, on the computing thread, instead of being kept in AttentionCapture::maps (which then
    // holds no layers). A caller that streams P out (the npy dump) holds one layer at a time and gets each P
    // computed once, by the pass, instead of recomputing it from Q, K and L afterwards.
    std::function<void(int layer, FloatBuffer probabilities)> takeLayerProbabilities;
    // Up to this many tokens the capture also keeps every layer's rotated Q and K (for "Open in lesson");
    // 0 = never. Costs layers·n·(H + H_kv)·d floats, so callers keep it small.
    int queryKeyLimit = 0;
    // When > 0, run() also scores the model's own LM head on the same forward pass (no second pass):
    // the top-k at every [MASK] (encoders) or for the next token (decoders), in
    // AttentionCapture::predictions; AttentionCapture::predictionGap says why there are none.
    int predictTopK = 0;
    // Also keep the LM head's whole probability distribution at each scored position
    // (AttentionCapture::distributions): what a KL divergence between two passes needs. Scores the head even
    // when predictTopK is 0.
    bool keepDistributions = false;
    // The LM head's logits [rows, vocab] (soft cap applied, no softmax) in AttentionCapture::logits.
    LogitRows keepLogits = LogitRows::None;
    // Only the attention is wanted (the CLI's `attention`): the last layer's feed-forward, the final norm
    // and the boundary after the last layer are not computed, so AttentionCapture::residualNorms and
    // residualMaxAbs hold `layers` boundaries instead of layers + 1 and forward() returns no hidden states.
    // About 1/16 of a Llama-3.2-1B pass. Ignored when anything above or keepResiduals needs the output.
    bool attentionOnly = false;
    bool outputUnused() const
    {
        return attentionOnly && predictTopK <= 0 && !keepDistributions && keepLogits == LogitRows::None &&
               !keepResiduals;
    }

    // Extension points for ablations and decoding (issues 14 and 16).
    // Heads whose output is replaced before W_O; the pass's P is unchanged, later layers see the change.
    std::vector<HeadAblation> ablations;
    // Keep the whole residual stream (AttentionCapture::residuals); its norms and largest |x| are always
    // kept.
    bool keepResiduals = false;
    // Keep each layer's attention output O [n, H, d] before any ablation and before W_O
    // (AttentionCapture::headOutputs): what a batched ablation pass starts from.
    bool keepHeadOutputs = false;
    // Run the copies of an ablation scan side by side (AblationBatch); only
    // TransformerModel::ablatedPredictions sets it.
    const AblationBatch* ablationBatch = nullptr;
    // Start at layer firstLayer from a stored residual stream [n, hidden] (e.g. residuals[firstLayer] of an
    // earlier run of the same input) instead of embedding the ids: a scan over ablations reuses the layers
    // below. The capture then holds layers [firstLayer, layers).
    int firstLayer = 0;
    const std::vector<float>* startResidual = nullptr;
    // Position ids of the tokens (RoPE angles, learned position rows); empty = pastTokens, pastTokens + 1,
    // ... (RoBERTa: its own rule from the ids). StreamingLLM-style caches assign them inside the cache.
    std::vector<int> positions;
    // Keep every layer's keys (before RoPE) and values (AttentionCapture::keyValues), and attend to `past`:
    // the keys and values of earlier tokens, one entry per layer (a KV cache; decoders only).
    bool keepKeyValues = false;
    const std::vector<LayerKeyValues>* past = nullptr;
};

} // namespace attnscope
