#pragma once

// A Hugging Face model folder opened for attention capture: config.json + model.safetensors (or shards
// through model.safetensors.index.json) + optionally tokenizer.json; or a llama.cpp .gguf file.
//
//   auto model = TransformerModel::open(folder);          // maps the weights, checks every shape
//   AttentionCapture c = model->run(ids, typeIds);        // every layer's and head's P
//   std::vector<float> p = c.maps->matrix(layer, head);   // n×n, row = query, column = key
//
// The model's family (BERT, RoBERTa, DistilBERT, GPT-2, GPT-NeoX, Llama/Mistral/Qwen, Gemma, Phi, ...) is a
// unit of its own in core/model/families/ (model/architecture.h); this class drives it and knows none of
// them: embed, every layer through LayerStep, final norm, LM head. Computed in fp32 as upstream transformers
// does. Weights stay memory-mapped; F16/BF16 tensors are converted to fp32 layer by layer as the forward pass
// reaches them, F32 tensors are used in place.
//
// Inputs longer than the model takes (ModelConfig::maxPositions) are refused with a ModelError (never
// silently truncated).

#include "model/attentioncapture.h"
#include "model/modelconfig.h"
#include "model/modelerror.h"
#include "model/modelinfo.h"
#include "model/modelweights.h"
#include "model/runoptions.h"

#include <QString>
#include <memory>
#include <vector>

namespace attnscope {

class Tokenizer;

class TransformerModel
{
public:
    // Throws ModelError "<file>: <problem>" for a missing/damaged file, an unsupported architecture,
    // or a tensor whose shape disagrees with config.json.
    // `folder` may also be a llama.cpp .gguf file (ggufmodel.h): its metadata stands for config.json, its
    // tensors are dequantized layer by layer as the forward pass reaches them, its tokenizer comes from the
    // metadata.
    static std::unique_ptr<TransformerModel> open(const QString& folder);
    // True for a path ending in .gguf or a file starting with the GGUF magic.
    static bool isGgufPath(const QString& path);
    ~TransformerModel();

    const ModelInfo& info() const { return m_info; }
    const ModelConfig& config() const { return m_config; }
    const QString& folder() const { return m_folder; } // the folder, or the .gguf file
    bool isGguf() const { return m_weights.sharedStore() && m_weights.store().ggufFile(); }
    // nullptr when the folder has no tokenizer (then callers give ids); tokenizerError() says why.
    const Tokenizer* tokenizer() const;
    // "<file>: <problem>" when the folder's tokenizer files could not be read, or "<folder>: no tokenizer
    // files ..." when it has none; "" when tokenizer() is set. The model itself still runs on ids.
    const QString& tokenizerError() const { return m_tokenizerError; }
    // "" when the config uses every layer of the checkpoint; else one line for a warning, naming the file
    // and the unused layers ("config.json: 1 layer, but the weights also hold layer 1 (16 tensors), which
    // are not used"). The model still runs its first layers (model/unusedlayers.h).
    const QString& unusedLayersWarning() const { return m_unusedLayersWarning; }
    // The vocabulary entry for an id, from tokenizer.json / vocab.txt / vocab.json; "#<id>" when unknown.
    QString tokenText(int id) const;
    // [MASK] / <mask> id from the tokenizer or the folder's vocabulary, -1 when there is none.
    int maskTokenId() const { return m_maskTokenId; }

    // The forward pass with attention capture. typeIds: BERT segment ids (empty = all 0), ignored by
    // models without token types. Throws ModelError for ids outside the vocabulary, more tokens than max
    // positions or options that do not fit the model (an ablated head it lacks, a past of another shape),
    // OperationCancelled when options.cancel turns true.
    AttentionCapture run(const std::vector<int>& ids, const std::vector<int>& typeIds,
                         const RunOptions& options = {}) const;

    // The ablation scan's batched pass (RunOptions::ablationBatch): the copies of the input run side by side
    // from options.firstLayer (from options.startResidual above layer 0), each with its own heads of that
    // layer ablated; nothing is captured, attention runs on the CPU. Per copy, per scored position (as run()
    // scores them), the LM head's distribution and top-k. Throws as run() does, and ModelError for a copy
    // that ablates a head outside options.firstLayer, output rows that are not the scored positions, a past,
    // or an input with nothing to predict.
    struct CopyPredictions
    {
        std::vector<std::vector<double>> distributions;    // [positions][vocab]
        std::vector<std::vector<double>> logDistributions; // their logarithms, from the logits
        std::vector<Prediction> top;                       // per position
    };
    std::vector<CopyPredictions> ablatedPredictions(const std::vector<int>& ids,
                                                    const std::vector<int>& typeIds,
                                                    const AblationBatch& batch, RunOptions options,
                                                    int topK) const;
    // The same pass without the LM head: each copy's final hidden states (after the final norm) at the
    // scored positions, [copies · positions, hidden], copy-major. The scan gathers many batches' rows and
    // scores them with one LM-head product (outputLogits). Throws as ablatedPredictions() does.
    std::vector<float> ablatedHiddenStates(const std::vector<int>& ids, const std::vector<int>& typeIds,
                                           const AblationBatch& batch, RunOptions options) const;
    // The LM head's logits [rows, vocab] (soft cap applied, no softmax) of final hidden states [rows,
    // hidden] (threads 0 = all cores). Throws ModelError when the checkpoint has no LM head.
    std::vector<float> outputLogits(const std::vector<float>& hidden, int threads) const;
    // One scored token as predictions name it (vocabulary entry and decoding).
    PredictedToken predictedToken(int id, float probability) const;

    // Top-k of the model's own head: BERT's masked-LM head at every [MASK] position (positions given in
    // maskPositions, or every id == maskTokenId() when empty); decoders' LM head for the token after the
    // last one. Throws ModelError when the folder has no such head or the input has no mask.
    std::vector<Prediction> predict(const std::vector<int>& ids, const std::vector<int>& typeIds,
                                    int topK = 5, const RunOptions& options = {},
                                    std::vector<int> maskPositions = {}) const;

    // Reads the mapped weight files into memory ahead of the first pass (WeightStore::prefetch):
    // progress(bytes read, total bytes); throws OperationCancelled when *cancel turns true.
    void prefetchWeights(const std::function<void(qint64, qint64)>& progress = {},
                         const std::atomic<bool>* cancel = nullptr) const
    {
        m_weights.store().prefetch(progress, cancel);
    }
    // While the returned object lives, each converted (F16, BF16, GGUF) weight is converted once and kept,
    // up to budgetBytes of fp32 copies: for callers that run many passes (WeightStore::KeepConverted).
    std::unique_ptr<WeightStore::KeepConverted> keepConvertedWeights(qint64 budgetBytes) const
    {
        return std::make_unique<WeightStore::KeepConverted>(m_weights.store(), budgetBytes);
    }
    // The LM head's logits [rows, vocab] (rows: the last token or every token; soft cap applied), from a
    // pass that captures no attention: what a perplexity evaluation needs. Throws as run() does, and
    // ModelError when the checkpoint has no LM head.
    std::vector<float> logits(const std::vector<int>& ids, const RunOptions& options = {},
                              LogitRows rows = LogitRows::Last) const;

    // Validates ids/typeIds the way run() does; throws ModelError.
    void checkInput(const std::vector<int>& ids, const std::vector<int>& typeIds) const;

private:
    TransformerModel() = default;
    static std::unique_ptr<TransformerModel> openGguf(const QString& path);
    std::vector<float> forward(const std::vector<int>& ids, const std::vector<int>& typeIds,
                               const RunOptions& options, AttentionCapture* capture) const;
    // The pass's position ids (given or the family's default); throws ModelError for options that do not fit.
    std::vector<int> checkRunOptions(const std::vector<int>& ids, const RunOptions& options) const;
    void checkWeights(std::shared_ptr<const WeightStore> store);
    // Every tensor not of a layer (embeddings, final norm, heads): the suspects of a non-finite embedding or
    // final hidden state.
    QStringList tensorsOutsideLayers() const;
    void validateShapes() const;
    void describe();
    // The positions to score: the given ones (encoders; every [MASK] when none are given) or the last token
    // (decoders). Empty, with the reason in *gap, when the model has no LM head or the input no [MASK].
    std::vector<int> predictionPositions(const std::vector<int>& ids, std::vector<int> positions,
                                         PredictionGap* gap) const;
    // Top-k of the LM head on rows `positions` of the final hidden states x [n, hidden].
    // distributions (optional): softmax over the vocabulary per position; logDistributions (optional): its
    // logarithm, (logit − max) − log Σ exp(logit − max), with no log per entry.
    std::vector<Prediction> scoreHead(const std::vector<float>& x, const std::vector<int>& positions,
                                      int topK, int threads,
                                      std::vector<std::vector<double>>* distributions = nullptr,
                                      std::vector<std::vector<double>>* logDistributions = nullptr) const;
    // The LM head's logits [positions, vocab] on rows `positions` of x [n, hidden].
    std::vector<float> headLogits(const std::vector<float>& x, const std::vector<int>& positions,
                                  int threads) const;
    // headLogits for the last or every row of x; throws ModelError when there is no LM head.
    std::vector<float> logitRows(const std::vector<float>& x, int tokens, LogitRows rows, int threads) const;

    QString m_folder;
    ModelConfig m_config;
    ModelInfo m_info;
    ModelWeights m_weights; // the store, and the prefix the checkpoint uses ("model.", "bert.", "" ...)
    int m_maskTokenId = -1;
    std::vector<QString> m_vocabulary; // id -> text; empty when the folder has none
    std::shared_ptr<const Tokenizer> m_tokenizer;
    QString m_tokenizerError;
    QString m_unusedLayersWarning;
};

} // namespace attnscope
