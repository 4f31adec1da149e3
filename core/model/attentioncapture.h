#pragma once

#include "attention/attentionmaps.h"
#include "attention/headtensor.h"
#include "model/prediction.h"
#include "model/weightstore.h"

#include <memory>
#include <vector>

namespace attnscope {

// A layer's attention output projection W_O as stored: nn.Linear keeps it [hidden, heads·d] (out, in);
// GPT-2's Conv1D keeps it [heads·d, hidden] (in, out). Held as a reference into the model's mapped files,
// loaded when asked for: F32 is a view, F16/BF16 are converted per call, so a capture never keeps fp32
// copies of every layer's W_O (360 MiB for a 1B BF16 Llama).
struct OutputProjection
{
    std::shared_ptr<const WeightStore> store;
    QString tensorName;
    bool inputMajor = false; // true for Conv1D [in, out]

    WeightTensor weight() const { return store->load(tensorName); }
};

// What a layer's attention saw of each token, enough to attend to these tokens again later (a KV cache,
// issue 16): keys K [n, H_kv, d] *before* RoPE, so a cache may rotate them at new positions (StreamingLLM
// re-assigns positions inside the cache); values V [n, H_kv, d]; and the position id each token had.
struct LayerKeyValues
{
    HeadTensor keys;
    HeadTensor values;
    std::vector<int> positions;
};

// Everything one forward pass recorded about attention.
struct AttentionCapture
{
    // P for every layer and head, [layers][heads][n][n]: held dense for short inputs (LayeredAttentionMaps),
    // recomputed tile by tile for inputs longer than RunOptions::denseLimit (TiledAttentionMaps).
    // With RunOptions::past, keys are the past tokens followed by this pass's: P is n × (past + n).
    std::shared_ptr<const AttentionMaps> maps;
    bool causal = false;
    // The model layer of maps' layer 0 (RunOptions::firstLayer); every per-layer list below starts there too.
    int firstLayer = 0;
    std::vector<int> ids;
    int heads = 0;
    int kvHeads = 0;
    int headDim = 0;
    int hidden = 0;
    // Per layer the value vectors the attention mixed, V [n_k, kvHeads, d] (biases included), and W_O:
    // what the norm-based view of Kobayashi et al. 2020 needs.
    std::vector<HeadTensor> values;
    std::vector<OutputProjection> outputProjections;
    // Only when n <= RunOptions::queryKeyLimit (else empty): per layer the queries Q [n, heads, d] and
    // keys K [n, kvHeads, d] exactly as the scores used them (RoPE and QK-norm applied), and the score scale,
    // so softmax(scale · q_i·k_j + causal mask) reproduces maps' P for that layer. Not kept when a layer's P
    // follows another rule (Gemma 2's soft cap, a sliding window shorter than the input), nor with `past`.
    std::vector<HeadTensor> queries;
    std::vector<HeadTensor> keys;
    std::vector<double> scales;
    // Only when RunOptions::predictTopK > 0: the LM head's top-k from this same pass, one Prediction per
    // [MASK] (encoders) or one for the next token (decoders); when empty, predictionGap says why
    // ("the input has no [MASK] token to predict", "this BERT checkpoint has no masked-LM head ...").
    std::vector<Prediction> predictions;
    PredictionGap predictionGap = PredictionGap::None;
    // Only with RunOptions::keepDistributions: the positions the head scored and, per position, softmax over
    // the whole vocabulary [positions][vocab] (double, as computed).
    std::vector<int> scoredPositions;
    std::vector<std::vector<double>> distributions;
    // Only with RunOptions::keepLogits: the LM head's logits, [rows, vocab] row-major, rows = the last token
    // (LogitRows::Last) or every token (LogitRows::All) of this pass.
    std::vector<float> logits;

    // The residual stream at each layer boundary b = firstLayer .. layers: boundary b is the input of layer
    // b, the last one the last layer's output (before any final norm). Per boundary and token its L2 norm and
    // largest |x|, [boundaries][n], always; the vectors themselves [boundaries][n · hidden] only with
    // RunOptions::keepResiduals.
    std::vector<std::vector<float>> residualNorms;
    std::vector<std::vector<float>> residualMaxAbs;
    std::vector<std::vector<float>> residuals;
    // Only with RunOptions::keepHeadOutputs: per layer the attention output O [n, H, d] before W_O, as
    // computed (before any ablation).
    std::vector<HeadTensor> headOutputs;
    // Only with RunOptions::keepKeyValues: per layer this pass's keys (before RoPE), values and positions.
    std::vector<LayerKeyValues> keyValues;

    int layers() const { return maps ? maps->layers() : 0; }
    int tokens() const { return maps ? maps->queries() : 0; }
};

// ‖f_h(x_j)‖ for every token j of one head: f_h(x_j) = W_O[:, h·d:(h+1)·d] · v_j^h, the value vector of
// token j carried into the residual stream by head h (its share of the output projection, no bias).
// Returns n norms. Throws std::invalid_argument for a layer/head outside the capture.
std::vector<float> transformedValueNorms(const AttentionCapture& capture, int layer, int head);

// Kobayashi et al. 2020, "Attention is Not Only a Weight": ‖α_ij · f_h(x_j)‖ = α_ij · ‖f_h(x_j)‖,
// row-major n×n for one layer and head.
std::vector<float> normWeightedAttention(const AttentionCapture& capture, int layer, int head);

} // namespace attnscope
