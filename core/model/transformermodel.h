#pragma once

// A Hugging Face model folder opened for attention capture: config.json + model.safetensors (or shards
// through model.safetensors.index.json) + optionally tokenizer.json; or a llama.cpp .gguf file.
//
//   auto model = TransformerModel::open(folder);          // maps the weights, checks every shape
//   AttentionCapture c = model->run(ids, typeIds);        // every layer's and head's P
//   std::vector<float> p = c.maps->matrix(layer, head);   // n×n, row = query, column = key
//
// Families: BERT (encoder), GPT-2 and Llama/Mistral/Qwen2 (decoders), computed in fp32 as upstream
// transformers does. Weights stay memory-mapped; F16/BF16 tensors are converted to fp32 layer by layer
// as the forward pass reaches them, F32 tensors are used in place.
//
// Inputs longer than max_position_embeddings are refused with a ModelError (never silently truncated).

#include "model/attentioncapture.h"
#include "model/modelconfig.h"
#include "model/modelerror.h"
#include "model/modelinfo.h"
#include "model/weightstore.h"

#include <QString>
#include <QVector>
#include <atomic>
#include <memory>
#include <vector>

namespace attnscope {

class AttentionBackend;
class Tokenizer;

struct RunOptions
{
    // Where each layer's attention is computed (backend/attentionbackend.h); null = the CPU core.
    // A GPU backend gives O and L (and, for dense capture, P) within the CPU's tolerances.
    AttentionBackend* backend = nullptr;
    int threads = 0;                         // 0 = all cores
    const std::atomic<bool>* cancel = nullptr; // checked between layers: run() throws OperationCancelled
    int denseLimit = 1024;                     // up to this many tokens P is stored dense, above it tiled
    // Up to this many tokens the capture also keeps every layer's rotated Q and K (for "Open in lesson");
    // 0 = never. Costs layers·n·(H + H_kv)·d floats, so callers keep it small.
    int queryKeyLimit = 0;
    // When > 0, run() also scores the model's own LM head on the same forward pass (no second pass):
    // the top-k at every [MASK] (encoders) or for the next token (decoders), in
    // AttentionCapture::predictions; AttentionCapture::predictionGap says why there are none.
    int predictTopK = 0;
};

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
    bool isGguf() const { return m_weights && m_weights->ggufFile(); }
    // nullptr when the folder has no tokenizer (then callers give ids); tokenizerError() says why.
    const Tokenizer* tokenizer() const;
    // "<file>: <problem>" when the folder's tokenizer files could not be read, or "<folder>: no tokenizer
    // files ..." when it has none; "" when tokenizer() is set. The model itself still runs on ids.
    const QString& tokenizerError() const { return m_tokenizerError; }
    // The vocabulary entry for an id, from tokenizer.json / vocab.txt / vocab.json; "#<id>" when unknown.
    QString tokenText(int id) const;
    // [MASK] / <mask> id from the tokenizer or the folder's vocabulary, -1 when there is none.
    int maskTokenId() const { return m_maskTokenId; }

    // The forward pass with attention capture. typeIds: BERT segment ids (empty = all 0), ignored by
    // decoders. Throws ModelError for ids outside the vocabulary or more tokens than max positions,
    // OperationCancelled when options.cancel turns true.
    AttentionCapture run(const std::vector<int>& ids, const std::vector<int>& typeIds,
                         const RunOptions& options = {}) const;

    // Top-k of the model's own head: BERT's masked-LM head at every [MASK] position (positions given in
    // maskPositions, or every id == maskTokenId() when empty); decoders' LM head for the token after the
    // last one. Throws ModelError when the folder has no such head or the input has no mask.
    std::vector<Prediction> predict(const std::vector<int>& ids, const std::vector<int>& typeIds,
                                    int topK = 5, const RunOptions& options = {},
                                    std::vector<int> maskPositions = {}) const;

    // Validates ids/typeIds the way run() does; throws ModelError.
    void checkInput(const std::vector<int>& ids, const std::vector<int>& typeIds) const;

private:
    TransformerModel() = default;
    static std::unique_ptr<TransformerModel> openGguf(const QString& path);
    void checkWeights();
    void describe();
    struct Forward;
    struct Names;
    std::vector<float> forward(const std::vector<int>& ids, const std::vector<int>& typeIds,
                               const RunOptions& options, AttentionCapture* capture) const;
    void validateShapes() const;
    // The positions to score: the given ones (encoders; every [MASK] when none are given) or the last token
    // (decoders). Empty, with the reason in *gap, when the model has no LM head or the input no [MASK].
    std::vector<int> predictionPositions(const std::vector<int>& ids, std::vector<int> positions,
                                         PredictionGap* gap) const;
    // Top-k of the LM head on rows `positions` of the final hidden states x [n, hidden].
    std::vector<Prediction> scoreHead(const std::vector<float>& x, const std::vector<int>& positions, int topK,
                                      int threads) const;
    QString tensorName(const QString& baseName) const;
    WeightTensor tensor(const QString& baseName) const;

    QString m_folder;
    ModelConfig m_config;
    ModelInfo m_info;
    std::shared_ptr<const WeightStore> m_weights;
    QString m_prefix; // "bert.", "transformer.", "model." or "" (bare names)
    int m_maskTokenId = -1;
    std::vector<QString> m_vocabulary; // id -> text; empty when the folder has none
    std::shared_ptr<const Tokenizer> m_tokenizer;
    QString m_tokenizerError;
};

} // namespace attnscope
