#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace attnscope {

// The three computation graphs the runtime implements; config.json model types map onto them.
enum class ModelFamily {
    Bert,  // encoder: absolute + token-type embeddings, post-LN, GELU
    Gpt2,  // decoder: learned positions, pre-LN, Conv1D weights [in, out], gelu_new
    Llama, // decoder: RMSNorm, RoPE rotate-half, GQA, SwiGLU (llama, mistral, qwen2)
};

enum class Activation { GeluErf, GeluTanh, Relu, Silu };

// What AttnScope accepts from config.json: far above every released model, far below what would overflow
// the sizes derived from them (4 × hidden, heads × head_dim, ...) or exhaust memory before the weights are
// even checked against the config.
constexpr int kMaxLayers = 4096;
constexpr int kMaxHidden = 1 << 17;
constexpr int kMaxHeads = 4096;
constexpr int kMaxHeadDim = 1 << 14;
constexpr int kMaxIntermediate = 1 << 20;
constexpr int kMaxVocabulary = 1 << 24;
constexpr int kMaxPositions = 1 << 24;
constexpr int kMaxTokenTypes = 1 << 16;

// What the forward pass needs from config.json. Field names follow the BERT/Llama spelling; GPT-2's
// n_embd, n_head, ... are read into the same fields.
struct ModelConfig
{
    QString modelType;         // "bert", "gpt2", "llama", "mistral", "qwen2"
    QString architectureClass; // architectures[0], e.g. "BertForMaskedLM" ("" when absent)
    ModelFamily family = ModelFamily::Bert;
    int layers = 0;
    int heads = 0;
    int kvHeads = 0;
    int hidden = 0;
    int headDim = 0;
    int intermediate = 0;
    int vocabSize = 0;
    int maxPositions = 0;
    int typeVocabSize = 0; // BERT token types
    double normEps = 1e-5;
    Activation activation = Activation::GeluErf;
    double ropeTheta = 10000.0;
    bool tieWordEmbeddings = false;
    bool qkvBias = false;    // Llama family: q/k/v projections have biases (Qwen2, attention_bias)
    bool outputBias = false; // Llama family: o_proj has a bias (attention_bias)
    bool mlpBias = false;    // Llama family: gate/up/down have biases (mlp_bias)
    int slidingWindow = 0;   // Mistral: keys further back than this are masked; 0 = none
    // GPT-2 score scaling: scale_attn_weights divides by sqrt(d); scale_attn_by_inverse_layer_idx by layer+1.
    bool scaleAttnWeights = true;
    bool scaleByInverseLayer = false;

    bool isDecoder() const { return family != ModelFamily::Bert; }

    // Throws ModelError "<file>: <problem>" for a missing/invalid file, an unsupported architecture (the
    // message names it and lists the supported ones) or missing/invalid fields.
    static ModelConfig fromFile(const QString& configPath);
    static ModelConfig fromJsonBytes(const QByteArray& bytes, const QString& fileForErrors);
    static ModelConfig fromJson(const QJsonObject& json, const QString& fileForErrors);
    static QStringList supportedModelTypes();
};

} // namespace attnscope
