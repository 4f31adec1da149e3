#pragma once

#include "model/activation.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <memory>

namespace attnscope {

class Architecture;

// What AttnScope accepts from config.json: far above every released model, far below what would overflow
// the sizes derived from them (4 × hidden, heads × head_dim, ...) or exhaust memory before the weights are
// even checked against the config. ConfigReader::positive applies them by key.
constexpr int kMaxLayers = 4096;
constexpr int kMaxHidden = 1 << 17;
constexpr int kMaxHeads = 4096;
constexpr int kMaxHeadDim = 1 << 14;
constexpr int kMaxIntermediate = 1 << 20;
constexpr int kMaxVocabulary = 1 << 24;
constexpr int kMaxPositions = 1 << 24;
constexpr int kMaxTokenTypes = 1 << 16;

// What every model has, read from config.json by the family unit of its model_type (core/model/families/):
// the shapes the app shows and the forward pass sizes its buffers by. Everything particular to a family (its
// norms, RoPE, windows, soft caps, weight names) lives in `architecture`, which the same unit built.
struct ModelConfig
{
    QString modelType;         // config.json model_type: "bert", "llama", "gemma2", ...
    QString architectureClass; // architectures[0], e.g. "BertForMaskedLM" ("" when absent)
    QString family;            // the family unit that runs it: "bert", "llama", "gemma", ...
    bool decoder = false;      // causal attention, next-token head
    int layers = 0;
    int heads = 0;
    int kvHeads = 0;
    int hidden = 0;
    int headDim = 0; // independent of hidden / heads (Gemma: 256, Qwen3: 128)
    int vocabSize = 0;
    // How many tokens the model takes in one pass: the learned position table's usable rows (BERT, GPT-2;
    // RoBERTa's table is pad_token_id + 1 rows longer), the trained context of a RoPE model
    // (max_position_embeddings; with dynamic NTK scaling, factor times it).
    int maxPositions = 0;
    int typeVocabSize = 0; // BERT token types; 0 = the model takes none
    // As read, to show and to compare two descriptions of one model (a GGUF file's metadata and the folder's
    // config.json); the architecture holds what the forward pass uses.
    double normEps = 1e-5;          // layer_norm_eps / rms_norm_eps / layer_norm_epsilon
    double ropeTheta = 0.0;         // RoPE base (Gemma 3: the global layers'); 0 = no RoPE
    bool tieWordEmbeddings = false; // the LM head is the embedding matrix
    // > 0 when the RoPE frequencies of a pass change with its length once it is longer than this (dynamic
    // NTK: max_position_embeddings; longrope: original_max_position_embeddings): keys and values cached by
    // shorter passes are then not those a full pass computes, so generation recomputes beyond it.
    int ropeCacheLimit = 0;
    std::shared_ptr<const Architecture> architecture;

    bool isDecoder() const { return decoder; }

    // Throws ModelError "<file>: <problem>" for a missing/invalid file, an unsupported architecture (the
    // message names it and lists the supported ones) or missing/invalid fields.
    static ModelConfig fromFile(const QString& configPath);
    static ModelConfig fromJsonBytes(const QByteArray& bytes, const QString& fileForErrors);
    static ModelConfig fromJson(const QJsonObject& json, const QString& fileForErrors);
    // Every config.json model_type some family unit runs, sorted.
    static QStringList supportedModelTypes();
};

} // namespace attnscope
