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

// Everything one forward pass recorded about attention.
struct AttentionCapture
{
    // P for every layer and head, [layers][heads][n][n]: held dense for short inputs (LayeredAttentionMaps),
    // recomputed tile by tile for inputs longer than RunOptions::denseLimit (TiledAttentionMaps).
    std::shared_ptr<const AttentionMaps> maps;
    bool causal = false;
    std::vector<int> ids;
    int heads = 0;
    int kvHeads = 0;
    int headDim = 0;
    int hidden = 0;
    // Per layer the value vectors the attention mixed, V [n, kvHeads, d] (biases included), and W_O:
    // what the norm-based view of Kobayashi et al. 2020 needs.
    std::vector<HeadTensor> values;
    std::vector<OutputProjection> outputProjections;
    // Only when n <= RunOptions::queryKeyLimit (else empty): per layer the queries Q [n, heads, d] and
    // keys K [n, kvHeads, d] exactly as the scores used them (RoPE applied), and the score scale, so
    // softmax(scale · q_i·k_j + causal mask) reproduces maps' P for that layer.
    std::vector<HeadTensor> queries;
    std::vector<HeadTensor> keys;
    std::vector<double> scales;
    // Only when RunOptions::predictTopK > 0: the LM head's top-k from this same pass, one Prediction per
    // [MASK] (encoders) or one for the next token (decoders); when empty, predictionGap says why
    // ("the input has no [MASK] token to predict", "this BERT checkpoint has no masked-LM head ...").
    std::vector<Prediction> predictions;
    PredictionGap predictionGap = PredictionGap::None;

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
