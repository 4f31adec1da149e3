#pragma once

// The encoder-decoder of transformers' modeling_bart.py, which Marian's modeling_marian.py copies: two
// post-LN stacks of the same blocks (d = d_model, every projection with a bias, LN = nn.LayerNorm):
//   embed:    x = scale · E[id] + position[p]              (then x = LN_embedding(x): BART, mBART)
//   encoder:  x = LN(x + W_O · attention(x, x));           x = LN(x + W_2 · act(W_1 · x))
//   decoder:  x = LN(x + W_O · causal attention(x, x));    x = LN(x + W_O' · attention(x, encoder output));
//             x = LN(x + W_2 · act(W_1 · x))
// attention(a, b): queries from a, keys and values from b, softmax(q·kᵀ / √d_head) per head.
// mBART runs the same blocks pre-LN with a LayerNorm after each stack. The families differ in their
// positions, norms (BartStyleOptions), and in config.json's defaults (BartStyleDefaults; readBartStyleConfig
// reads the fields they share).

#include "model/activation.h"
#include "model/encoderdecodermodel.h"
#include "model/tensorops.h"
#include "model/weightstore.h"

#include <QSet>
#include <deque>
#include <functional>
#include <memory>

namespace attnscope {

class ConfigReader;

struct BartStyleOptions
{
    // Sinusoidal: Marian's MarianSinusoidalPositionalEmbedding, a fixed table the file does not hold: column
    // j < ⌈d/2⌉ is sin(p / 10000^(2j/d)), column ⌈d/2⌉ + j is cos(p / 10000^(2j/d)), rounded to float32 as
    // upstream builds it. Learned: BART's BartLearnedPositionalEmbedding, encoder.embed_positions and
    // decoder.embed_positions of max_position_embeddings + 2 rows, position p reading row p + 2.
    enum class Positions { Sinusoidal, Learned };
    Positions positions = Positions::Sinusoidal;
    bool embeddingNorm = false; // encoder.layernorm_embedding / decoder.layernorm_embedding (BART, mBART)
    // mBART: every sub-layer pre-LN (x = x + block(LN(x))), and encoder.layer_norm / decoder.layer_norm after
    // the last layer of each stack.
    bool preNorm = false;
    bool finalNorm = false;
    float embedScale = 1.0f; // √d_model where scale_embedding
    Activation activation = Activation::GeluErf;
    double eps = 1e-5; // nn.LayerNorm's default: BART and Marian never change it
};

// What a family's config class assumes for fields config.json leaves out (MarianConfig, BartConfig).
struct BartStyleDefaults
{
    int hidden = 1024, layers = 12, heads = 16, ffn = 4096, vocabSize = 0, maxPositions = 1024;
    int padId = 0, eosId = 0, decoderStartId = 0;
};

// The sizes and special ids BART and Marian name alike (d_model, encoder_layers, ...,
// decoder_start_token_id), each within its limit, heads dividing d_model, special ids inside the vocabulary.
// Fails through `r`.
EncoderDecoderConfig readBartStyleConfig(const ConfigReader& r, const QString& modelType,
                                         const BartStyleDefaults& defaults);
// The options every BART-style family reads alike: activation_function (gelu where absent) and
// scale_embedding (√d_model where true). The family sets its positions and norms on top.
BartStyleOptions readBartStyleOptions(const ConfigReader& r, const EncoderDecoderConfig& config);

class BartStyleModel final : public EncoderDecoderModel
{
public:
    // Opens the folder's weights (with or without the "model." prefix of ...ForConditionalGeneration) and
    // checks every tensor the pass reads against `config`: ModelError "<file>: tensor X has shape [..] but
    // config.json implies [..]", or "... is missing".
    BartStyleModel(EncoderDecoderConfig config, BartStyleOptions options, const QString& folder);

    EncoderDecoderAttention run(const std::vector<int>& sourceIds, const std::vector<int>& targetIds,
                                int threads = 0,
                                const std::vector<unsigned char>& sourceVisible = {}) const override;
    std::vector<double> lastTokenLogits(const std::vector<int>& sourceIds, const std::vector<int>& targetIds,
                                        int threads = 0,
                                        const std::vector<unsigned char>& sourceVisible = {}) const override;

private:
    struct Norm
    {
        const float* gamma = nullptr;
        const float* beta = nullptr;
    };
    struct AttentionWeights
    {
        ops::LinearWeight q, k, v, out;
        int heads = 0;
    };
    struct Layer
    {
        AttentionWeights self, cross; // cross: decoder layers only
        Norm selfNorm, crossNorm, finalNorm;
        ops::LinearWeight fc1, fc2;
    };
    struct StackResult; // a stack's attention, [layers, heads, n_q, n_k] (self; cross in the decoder)

    // The tensor prefix + base (or `base` itself: lm_head.weight and final_logits_bias sit outside "model."),
    // checked against `shape`.
    const WeightTensor& load(const QString& base, const std::vector<qint64>& shape, bool underPrefix = true);
    // Both stacks; appends their attention to the results and returns the decoder's output, n_target × d.
    std::vector<float> forward(const std::vector<int>& sourceIds, const std::vector<int>& targetIds,
                               const std::vector<unsigned char>& sourceVisible, int threads,
                               StackResult& encoder, StackResult& decoder) const;
    ops::LinearWeight linearWeight(const QString& base, int out, int in);
    Norm norm(const QString& base);
    AttentionWeights attentionWeights(const QString& base, int heads);
    Layer layerWeights(const QString& base, int ffn, int heads, bool decoder);
    // The stack's input x, n × d (the embed line above).
    std::vector<float> embed(const std::vector<int>& ids, const float* learnedPositions, const Norm& norm,
                             int threads) const;
    // The block's output (n_q × d, after W_O) and appends its P ([heads, n_q, n_k]) to `probabilities`.
    // keyVisible: empty, or one flag per key (0 = masked, as padding).
    std::vector<float> attend(const std::vector<float>& queries, int nq, const std::vector<float>& memory,
                              int nk, const AttentionWeights& w, bool causal,
                              const std::vector<unsigned char>& keyVisible, std::vector<float>& probabilities,
                              int threads) const;
    // One sub-layer around `block` (an attention or the feed-forward block): post-LN x = LN(x + block(x));
    // pre-LN (mBART) x = x + block(LN(x)).
    void sublayer(std::vector<float>& x, const Norm& n,
                  const std::function<std::vector<float>(const std::vector<float>&)>& block,
                  int threads) const;
    // W_2 · act(W_1 · x + b_1) + b_2.
    std::vector<float> feedForward(const std::vector<float>& x, const Layer& layer, int ffn,
                                   int threads) const;
    void checkIds(const std::vector<int>& ids, const QString& side) const;

    BartStyleOptions m_options;
    QString m_folder;
    std::shared_ptr<const WeightStore> m_store;
    QString m_prefix;                // "model." or ""
    std::deque<WeightTensor> m_held; // what the raw pointers below point into
    QSet<QString> m_read;            // the names of the tensors the pass reads
    const float* m_embedding = nullptr;
    const float* m_outputEmbedding = nullptr; // the LM head's [vocab, d]
    const float* m_logitsBias = nullptr;      // final_logits_bias [1, vocab], or null
    const float *m_encoderPositions = nullptr, *m_decoderPositions = nullptr; // learned tables, else null
    Norm m_encoderEmbeddingNorm, m_decoderEmbeddingNorm;
    Norm m_encoderFinalNorm, m_decoderFinalNorm; // after each stack (mBART); null where the family has none
                                                 // // null where the family has none
    std::vector<Layer> m_encoder, m_decoder;
};

} // namespace attnscope
