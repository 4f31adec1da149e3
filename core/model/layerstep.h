#pragma once

// The machinery every family's layer runs on: the residual stream x [n, hidden], the ops a block is built
// from (projections, norms, MLPs, by tensor name), and attend(), which computes one layer's attention and
// does everything the capture and the hooks need around it. A family's Architecture::layer() reads like its
// modeling file: norm, project, attend, project out, add; norm, MLP, add.
//
// Shapes: one row per token, row-major. q [n, H, d], k and v [n, H_kv, d] (attention/headtensor.h).

#include "attention/attention.h"
#include "attention/rotaryembedding.h"
#include "attention/tiledattentionmaps.h"
#include "model/attentioncapture.h"
#include "model/modelconfig.h"
#include "model/modelweights.h"
#include "model/nonfinitecheck.h"
#include "model/runoptions.h"
#include "model/tensorops.h"

#include <array>
#include <optional>
#include <vector>

namespace attnscope {

class LayeredAttentionMaps;

// What one layer's attention computes, as its family configures it.
struct LayerAttention
{
    const RotaryEmbedding* rotary = nullptr; // null: no RoPE (BERT, GPT-2)
    std::optional<float> scale;              // default 1/sqrt(head dimension)
    int slidingWindow = 0;                   // 0 = none
    float softCap = 0.0f;                    // 0 = none
    std::vector<float> sinks;                // per query head: a learned sink logit (gpt-oss); empty = none
};

class LayerStep
{
public:
    // positions: one per token of this pass (options.past, when given, holds the tokens before them).
    // folder: the model's, named by a non-finite failure no weight explains.
    LayerStep(const ModelConfig& config, const ModelWeights& weights, const RunOptions& options, int tokens,
              std::vector<int> positions, AttentionCapture* capture, const QString& folder = {});
    ~LayerStep();

    int layer() const { return m_layer; }
    // Rows of the residual stream: the tokens; in an ablation batch (RunOptions::ablationBatch) the copies'
    // rows, which attend() may change (one copy in, every copy out; the last layer: the output rows only).
    int tokens() const { return int(m_residual.size() / size_t(m_config.hidden)); }
    int hidden() const { return m_config.hidden; }
    int threads() const { return m_threads; }
    const std::vector<int>& positions() const { return m_positions; }
    const ModelWeights& weights() const { return m_weights; }
    // The residual stream x [n, hidden].
    std::vector<float>& residual() { return m_residual; }

    // --- The ops a block is made of; tensors by base name (ModelWeights), biases "" = none.
    // y [n, out] = act(x [n, in] · W + b), W as nn.Linear stores it ([out, in]) or as Conv1D ([in, out]).
    std::vector<float> linear(const std::vector<float>& x, const QString& weight, const QString& bias = {},
                              std::optional<Activation> activation = std::nullopt,
                              ops::WeightLayout layout = ops::WeightLayout::OutIn) const;
    // Several linear()s of the same x (nn.Linear layout), computed together (ops::linearTogether: x packed
    // once, one list of output panels for the threads); each result is the same to the bit as its own
    // linear() call's.
    struct Projection
    {
        QString weight;
        QString bias; // "" = none
        std::optional<Activation> activation;
    };
    std::vector<std::vector<float>> linearTogether(const std::vector<float>& x,
                                                   const std::vector<Projection>& projections) const;
    // Q, K and V of one x as heads, as projectQueries() and projectHeads() give them, computed together
    // where those would each project every row.
    struct QkvProjection
    {
        QString query, key, value;             // weights
        QString queryBias, keyBias, valueBias; // "" = none
        int queryHeads = 0, keyValueHeads = 0, dim = 0;
    };
    std::array<HeadTensor, 3> projectQkv(const std::vector<float>& x, const QkvProjection& p);
    // The same, as heads: [n, heads, dim]. In an ablation batch's first layer with the baseline's head
    // outputs (AblationBatch::headOutputs) the attention is not recomputed: no rows ([0, heads, dim]).
    HeadTensor projectHeads(const std::vector<float>& x, const QString& weight, const QString& bias,
                            int heads, int dim) const;
    // The queries, as projectHeads() gives them; in an ablation batch's last layer (above its first) only the
    // output rows' ([copies · output rows, heads, dim]), the only rows whose attention that layer keeps.
    // Families with separate query weights call it for Q; fused projections give every row, which attend()
    // takes too.
    HeadTensor projectQueries(const std::vector<float>& x, const QString& weight, const QString& bias,
                              int heads, int dim);
    // RMSNorm over each row: x / rms(x) · w, or · (1 + w) for Gemma (plusOne).
    std::vector<float> rmsNorm(const std::vector<float>& x, const QString& weight, double eps,
                               bool plusOne = false) const;
    // The same over every head vector (QK-norm: Qwen3, Gemma 3), in place; weight is [d].
    void rmsNormHeads(HeadTensor& x, const QString& weight, double eps, bool plusOne = false) const;
    std::vector<float> layerNorm(const std::vector<float>& x, const QString& weight, const QString& bias,
                                 double eps) const;
    void layerNormHeads(HeadTensor& x, const QString& weight, const QString& bias, double eps) const;
    // down(act(gate(x)) ⊙ up(x)): SwiGLU (Llama), GeGLU (Gemma).
    std::vector<float> gatedMlp(const std::vector<float>& x, const QString& gate, const QString& up,
                                const QString& down, Activation activation, bool biases = false) const;
    void addToResidual(const std::vector<float>& y);
    // x, computed per row from the stream as this layer's attention found it (e.g. Phi's normed input, which
    // feeds its MLP too), in the rows the stream has now: x itself, except in an ablation batch whose
    // attend() changed the rows.
    std::vector<float> inStreamLayout(const std::vector<float>& x) const;

    // --- Attention. q, k, v after their projections (and QK-norm), *before* RoPE. Rotates q and k by
    // spec.rotary at positions() (keys of options.past at theirs), computes P and the per-head output O,
    // records what the capture keeps (P, V, rotated Q/K, K/V for a cache), applies the head ablations to O
    // and returns O [n, H, d], before W_O.
    HeadTensor attend(HeadTensor q, HeadTensor k, HeadTensor v, const LayerAttention& spec);
    // O [n, H·d] · W_O (+ b) -> [n, hidden]; records W_O for the capture (Kobayashi norms). In an ablation
    // batch's first layer with the baseline's head outputs O_b, each copy is O_b · W_O + b plus, per ablated
    // head h, (O_h − O_b,h) · W_O,h: a [rows, d] × [d, hidden] product instead of [rows, H·d] × [H·d,
    // hidden].
    std::vector<float> projectOutput(const HeadTensor& o, const QString& weight, const QString& bias = {},
                                     ops::WeightLayout layout = ops::WeightLayout::OutIn);

    // Whether the rest of this layer after its attention output (the feed-forward) changes nothing the
    // caller keeps: the last layer of a pass whose output is unused (RunOptions::attentionOnly). A family
    // returns from layer() there, after adding W_O's output (the capture records W_O).
    bool restOfLayerUnused() const;

    // --- Driven by TransformerModel::forward.
    void begin(int layer);
    // Records the residual stream at the current layer boundary (its norms; the vector with keepResiduals).
    void recordResidual();
    // Hands the maps to the capture.
    void finish();
    // Throws ModelError "layer L: NaN in <what> (from weight W?)" when values hold a NaN or ±Inf; W is
    // searched among the tensors this layer has read so far (model/nonfinitecheck.h).
    void checkFinite(const std::vector<float>& values, const QString& what) const;

private:
    AttentionOptions attentionOptions(const LayerAttention& spec) const;
    // A dense layer's P [H, n_q, n_k]: to RunOptions::takeLayerProbabilities when set, else into the maps.
    void keepProbabilities(FloatBuffer probabilities);
    // attend() for an ablation batch: per copy, no capture; rearranges the residual stream to the copies'
    // rows.
    HeadTensor attendCopies(HeadTensor q, HeadTensor k, HeadTensor v, const LayerAttention& spec);
    // Whether this layer takes its attention output from AblationBatch::headOutputs (the batch's first).
    // An ablation batch's last layer above its first: projectQueries() projects the output rows only.
    bool projectsOutputRowQueriesOnly() const;
    bool reusesHeadOutputs() const;
    // projectOutput() for that layer: the baseline's product once, each copy's change by its heads' slices.
    std::vector<float> projectOutputChanges(const HeadTensor& o, const ops::LinearWeight& w) const;
    // Loads a tensor by base name and remembers it as a suspect for checkFinite.
    WeightTensor load(const QString& base) const;
    // The same for a projection's weights, possibly as stored (ModelWeights::loadForProduct).
    WeightTensor loadForProduct(const QString& base) const;

    const ModelConfig& m_config;
    const ModelWeights& m_weights;
    const RunOptions& m_options;
    const int m_tokens;
    const int m_pastTokens;
    const int m_threads;
    const bool m_dense;
    std::vector<int> m_positions;
    AttentionCapture* m_capture;
    int m_layer = -1;
    std::vector<float> m_residual;
    std::shared_ptr<LayeredAttentionMaps> m_denseMaps;
    std::vector<TiledAttentionMaps::Layer> m_tiledLayers;
    bool m_lessonReproducesP = true; // false once a layer's P follows a rule the lesson does not model
    NonFiniteCheck m_finite;
    // An ablation batch's layout change in the current layer (attendCopies): the layer's input held
    // m_copiesIn copies of the tokens; the stream now holds every copy's rows m_rowsOut.
    bool m_layoutChanged = false;
    int m_copiesIn = 1;
    std::vector<int> m_rowsOut;
    std::vector<int> m_attendedRows;    // the rows of each copy in attendCopies' output, this layer
    bool m_queriesSelected = false;     // projectQueries() kept the output rows only, this layer
    mutable QStringList m_layerTensors; // full names of the tensors the current layer has read
};

} // namespace attnscope
