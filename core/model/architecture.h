#pragma once

// One model family's computation graph, configured from config.json: its tensor names and shapes, its
// embedding, its layer block, its final norm and LM head. Each family is a unit of its own in
// core/model/families/ (as a model is one file in transformers and one graph builder in llama.cpp); they
// share the ops (model/tensorops.h, core/attention), the weights (model/modelweights.h) and the per-layer
// machinery with the capture and the hooks (model/layerstep.h). TransformerModel drives them and knows no
// family.

#include "model/modelconfig.h"
#include "model/modelweights.h"
#include "model/prediction.h"

#include <QString>
#include <QStringList>
#include <vector>

namespace attnscope {

class LayerStep;

// The tokens of one pass as the embedding sees them; positions are resolved (given, or defaultPositions).
struct TokenInput
{
    const std::vector<int>& ids;
    const std::vector<int>& typeIds; // empty = all 0
    const std::vector<int>& positions;
};

// A layer's tensor names: LayerNames n(QStringLiteral("layers.%1."), l); n("mlp.up_proj.weight").
struct LayerNames
{
    LayerNames(const QString& format, int layer) : prefix(format.arg(layer)) {}
    QString operator()(const char* rest) const { return prefix + QLatin1String(rest); }
    QString prefix;
};

// A family's LM head, as tensor names in the store.
struct OutputHead
{
    bool maskedLm = false; // encoders score [MASK] positions; decoders the token after the last one
    // Masked-LM heads first transform the hidden state: dense [h, h] + bias, activation, LayerNorm.
    QString transformWeight; // "" = no transform
    QString transformBias;
    Activation transformActivation = Activation::GeluErf;
    QString normWeight, normBias;
    double normEps = 1e-12;
    QString projection;        // [vocab, hidden]; "" when the checkpoint has no head: `missing` says why
    QString bias;              // [vocab] or ""
    float finalSoftCap = 0.0f; // Gemma 2: logits = c · tanh(logits / c)
    PredictionGap missing = PredictionGap::None;
};

class Architecture
{
public:
    virtual ~Architecture() = default;

    // Prefixes a checkpoint may put before the base model's tensor names, tried in order ("model.", "").
    virtual QStringList weightPrefixes() const = 0;
    // A tensor every checkpoint of the family has, under the prefix: finds which prefix this one uses.
    virtual QString anchorTensor() const = 0;
    // Every tensor the pass reads, with its shape.
    virtual void declareTensors(TensorChecklist& list) const = 0;
    // Position ids when the caller gives none: pastTokens, pastTokens + 1, ... (RoBERTa counts from its
    // padding id, skipping padding tokens).
    virtual std::vector<int> defaultPositions(const std::vector<int>& ids, int pastTokens) const;
    // Rows of a learned position table (position ids must stay below it); 0 when there is none (RoPE).
    virtual int positionTableSize() const { return 0; }
    // x [n, hidden], zero on entry: the embedded tokens, the residual stream's start.
    virtual void embed(const TokenInput& input, const ModelWeights& weights, std::vector<float>& x,
                       int threads) const = 0;
    // One layer: reads and updates step.residual().
    virtual void layer(LayerStep& step) const = 0;
    // After the last layer, before the LM head (decoders' final norm); x [n, hidden] in place.
    virtual void finalNorm(const ModelWeights& weights, std::vector<float>& x, int threads) const;
    virtual OutputHead outputHead(const ModelWeights& weights) const = 0;

protected:
    // A decoder's head: the embedding matrix `embedding` when tied, else `lmHead` [vocab, hidden] when the
    // checkpoint has it, else none (PredictionGap::NoLmHead).
    static OutputHead nextTokenHead(const ModelWeights& weights, bool tied, const QString& embedding,
                                    const QString& lmHead = QStringLiteral("lm_head.weight"));
    // x [rows, width] in place: RMSNorm by the tensor `weight` (gammaOffset 1: Gemma's (1 + w)), LayerNorm by
    // `weight` and `bias` (final norms, embedding norms).
    static void rmsNormRows(const ModelWeights& weights, const QString& weight, std::vector<float>& x,
                            int width, double eps, int threads, float gammaOffset = 0.0f);
    static void layerNormRows(const ModelWeights& weights, const QString& weight, const QString& bias,
                              std::vector<float>& x, int width, double eps, int threads);
    // x[t] += scale · table[rows[t]] for a [rows, width] table named `base` (embeddings, learned positions).
    static void addRows(const ModelWeights& weights, const QString& base, const std::vector<int>& rows,
                        std::vector<float>& x, int width, float scale = 1.0f);
};

} // namespace attnscope
