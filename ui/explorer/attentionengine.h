#pragma once

#include "model/prediction.h"
#include "stats/headstats.h"

#include <QString>
#include <QStringList>
#include <atomic>
#include <memory>
#include <optional>
#include <stdexcept>

namespace attnscope {

class AttentionMaps;
struct AttentionCapture;

// A message a user can act on ("model.safetensors: ..."): thrown by AttentionEngine::run.
class EngineError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// What the explorer shows for one input: the tokens and every head's attention.
struct AttentionRun
{
    QStringList labels; // per token: the exact substring of the typed text, or the token itself ([CLS])
    QStringList tokens; // vocabulary strings
    TokenRoles roles;   // special flags, [CLS]/[SEP] positions, causal
    std::shared_ptr<const AttentionMaps> maps;
    QString backend; // "CPU (8 threads)", "Vulkan: ..."
    // A real model's forward pass with every layer's rotated Q, K, V and score scale ("Open in lesson");
    // null for the demos and for inputs longer than TransformerEngine::kQueryKeyLimit.
    std::shared_ptr<const AttentionCapture> capture;
    // The model's own top-5 from the same forward pass: the next token (decoders) or each [MASK]
    // (encoders). Empty for the demos (gap None); for a model, predictionGap then says why.
    std::vector<Prediction> predictions;
    PredictionGap predictionGap = PredictionGap::None;
};

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
    // Throws EngineError on bad input. Returns a run with null maps when *cancel became true.
    virtual AttentionRun run(const QString& textA, const std::optional<QString>& textB,
                             const std::atomic<bool>* cancel) const = 0;
};

} // namespace attnscope
