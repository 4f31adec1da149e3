#pragma once

#include "model/modelerror.h"
#include "model/prediction.h"
#include "stats/headstats.h"

#include <QString>
#include <QStringList>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

namespace attnscope {

class AttentionMaps;
struct AttentionCapture;
struct ValueNorms;
struct ResidualProfile;

// What the explorer's views show of each head: the attention weight α_ij, or the contribution
// ‖α_ij f(x_j)‖ of Kobayashi et al. 2020 (explorer/attentionmeasure.h).
enum class AttentionMeasure { Weight, Contribution };

// A message a user can act on ("model.safetensors: ..."): thrown by AttentionEngine::run, and by
// TransformerEngine::open with the message in the window's language and core's ModelProblem beside it (so a
// caller that prints to a terminal can say it in the CLI's English words: ModelProblem::english).
class EngineError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
    EngineError(const QString& message, const ModelProblem& problem)
        : std::runtime_error(message.toStdString()), m_problem(problem)
    {}
    const std::optional<ModelProblem>& problem() const { return m_problem; }

private:
    std::optional<ModelProblem> m_problem;
};

// What the explorer shows for one input: the tokens and every head's attention.
struct AttentionRun
{
    QStringList labels; // per token: the exact substring of the typed text, or the token itself ([CLS])
    QStringList tokens; // vocabulary strings
    TokenRoles roles;   // special flags, [CLS]/[SEP] positions, causal
    // What the views show: the weights, or (measure Contribution) each query row's contributions scaled to
    // sum 1 (ContributionScale::Share), in the same layout.
    std::shared_ptr<const AttentionMaps> maps;
    AttentionMeasure measure = AttentionMeasure::Weight;
    // The attention weights α of the pass, whatever the measure; null for a run that keeps them in maps only
    // (the demos: then maps are the weights).
    std::shared_ptr<const AttentionMaps> weights;
    // ‖f_h(x_j)‖ of every layer, head and token from the same pass (core valueNorms()); null when the engine
    // has no value vectors (the demos). Kept for every length: it is layers × heads × n floats.
    std::shared_ptr<const ValueNorms> valueNorms;
    // Measure Contribution: the contributions in the residual stream's units (ContributionScale::Norm), for
    // the read-outs; null otherwise.
    std::shared_ptr<const AttentionMaps> contributionNorms;
    // The residual stream's norm and largest |x| per layer boundary and token, from the same pass (real
    // models).
    std::shared_ptr<const ResidualProfile> residuals;
    // The token ids and type ids the model ran (real models only): what an ablation reruns.
    std::vector<int> ids, typeIds;
    QString backend; // "CPU (8 threads)", "Vulkan: ..."
    // A real model's forward pass with every layer's rotated Q, K, V and score scale ("Open in lesson");
    // null for the demos and for inputs longer than TransformerEngine::kQueryKeyLimit.
    std::shared_ptr<const AttentionCapture> capture;
    // The model's own top-5 from the same forward pass: the next token (decoders) or each [MASK]
    // (encoders). Empty for the demos (gap None); for a model, predictionGap then says why.
    std::vector<Prediction> predictions;
    PredictionGap predictionGap = PredictionGap::None;
    // A run on a window of the input (TokenWindow): how many tokens the whole input has; 0 when every
    // token was run. The labels, tokens and maps then hold only the kept tokens.
    int totalTokens = 0;
    bool keptFromEnd = false; // the window is the last tokens (else the first)
};

// Which tokens of an input to run when it is longer than a model takes: the first (or last) `count`,
// the model's leading ([CLS], <s>) and trailing ([SEP]) special tokens kept. count 0: every token.
struct TokenWindow
{
    int count = 0;
    bool fromEnd = false;
    bool isWhole() const { return count <= 0; }
};

// The input has more tokens than the model has positions; the explorer offers to run a window of it.
class InputTooLongError : public EngineError
{
public:
    InputTooLongError(const QString& model, int tokens, int limit);
    QString model() const { return m_model; }
    int tokens() const { return m_tokens; }
    int limit() const { return m_limit; }

private:
    QString m_model;
    int m_tokens = 0, m_limit = 0;
};

// Positions of `count` tokens to keep out of `total`, given which are special: the leading and trailing
// special tokens, and the first (or last) content tokens that fit beside them. Ascending.
std::vector<int> keptTokenPositions(const std::vector<bool>& special, const TokenWindow& window);

// Something that turns text into attention: a real model, the synthetic demo or the worked example.
// run() is called on worker threads, possibly several at once, so implementations are immutable.
class AttentionEngine
{
public:
    virtual ~AttentionEngine() = default;
    virtual QString displayName() const = 0;
    virtual QString architecture() const = 0; // "BERT encoder", "Llama decoder", ...
    virtual bool supportsTextB() const = 0;
    // The worked example has fixed tokens: the text box shows them and typing does not change them.
    virtual std::optional<QString> fixedText() const { return std::nullopt; }
    // The most tokens one run takes (a model's positions); 0: no limit.
    virtual int maxTokens() const { return 0; }
    // (layers done, layers): called on the computing thread as a real model's forward pass advances.
    using LayerProgress = std::function<void(int, int)>;
    // Throws EngineError on bad input (InputTooLongError past maxTokens() unless a window is given).
    // Returns a run with null maps when *cancel became true.
    AttentionRun run(const QString& textA, const std::optional<QString>& textB,
                     const std::atomic<bool>* cancel, const TokenWindow& window = {},
                     const LayerProgress& progress = {}) const
    {
        return compute(textA, textB, cancel, window, progress);
    }

protected:
    virtual AttentionRun compute(const QString& textA, const std::optional<QString>& textB,
                                 const std::atomic<bool>* cancel, const TokenWindow& window,
                                 const LayerProgress& progress) const = 0;
};

} // namespace attnscope
