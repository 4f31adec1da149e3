#pragma once

// The encoder-decoder of transformers' modeling_t5.py (T5ForConditionalGeneration; mT5's MT5 classes are the
// same code): two pre-LN stacks with no biases anywhere and no position embeddings. d = d_model, inner =
// num_heads · d_kv (not always d), N = T5's LayerNorm, x / √(mean(x²) + ε) · w (no mean, no bias):
//   embed:    x = E[id]                                            (one table, shared, for both stacks)
//   encoder:  x = x + W_O · attention(N(x), N(x), bidirectional bias);   x = x + FFN(N(x))
//   decoder:  x = x + W_O · causal attention(N(x), N(x), causal bias);
//             x = x + W_O' · attention(N(x), N(encoder output)) (no bias); x = x + FFN(N(x))
//   each stack ends with N (final_layer_norm); logits = lm_head(x), where a tied head (T5 v1.0,
//   tie_word_embeddings) reads E and takes x · d^-0.5.
// attention(a, b): softmax(q·kᵀ + B) per head with no 1/√d_kv: the scale is folded into the weights in
// training. B[h, i, j] = relative_attention_bias[bucket(j − i), h], the table held by block 0 of each stack
// and used by all its blocks. FFN: W_o · relu(W_i · x) (v1.0), or W_o · (act(W_i0 · x) ⊙ W_i1 · x) (v1.1,
// Flan-T5, mT5: feed_forward_proj "gated-gelu", act = gelu_new).

#include "model/activation.h"
#include "model/encoderdecodermodel.h"
#include "model/tensorops.h"
#include "model/weightstore.h"

#include <QSet>
#include <deque>
#include <memory>

namespace attnscope {

class ConfigReader;

// T5Attention._relative_position_bucket for one relative position (key − query): bidirectional (the
// encoder) gives half the buckets to keys after the query; causal (the decoder) only looks back. Positions
// below max_exact (half the side's buckets) get a bucket each; farther ones share logarithmic buckets up to
// max_distance, past which all fall in the last. The logarithm is taken in float32 and truncated, as
// upstream takes it, so that a position at a bucket's edge falls where upstream's does.
int t5RelativePositionBucket(int relativePosition, bool bidirectional, int numBuckets, int maxDistance);

struct T5Options
{
    int headDim = 64; // d_kv
    int numBuckets = 32, maxDistance = 128;
    bool gated = false; // feed_forward_proj "gated-<act>"
    Activation activation = Activation::Relu;
    bool tiedHead = true; // tie_word_embeddings: lm_head = E, decoder output scaled by d^-0.5
    double eps = 1e-6;    // layer_norm_epsilon
};

class T5Model final : public EncoderDecoderModel
{
public:
    // Opens the folder's weights and checks every tensor the pass reads against `config` and `options`:
    // ModelError "<file>: tensor X has shape [..] but config.json implies [..]", or "... is missing".
    T5Model(EncoderDecoderConfig config, T5Options options, const QString& folder);

    EncoderDecoderAttention run(const std::vector<int>& sourceIds, const std::vector<int>& targetIds,
                                int threads = 0,
                                const std::vector<unsigned char>& sourceVisible = {}) const override;
    std::vector<double> lastTokenLogits(const std::vector<int>& sourceIds, const std::vector<int>& targetIds,
                                        int threads = 0,
                                        const std::vector<unsigned char>& sourceVisible = {}) const override;

private:
    struct AttentionWeights
    {
        ops::LinearWeight q, k, v, o;
    };
    struct Block
    {
        AttentionWeights self, cross; // cross: decoder blocks only
        const float *selfNorm = nullptr, *crossNorm = nullptr, *ffnNorm = nullptr;
        ops::LinearWeight wi, wi1, wo; // wi1: the gated FFN's second input projection
    };
    struct StackResult
    {
        std::vector<float> self, cross; // [layers, heads, n_q, n_k], filled layer by layer
    };

    const WeightTensor& load(const QString& name, const std::vector<qint64>& shape);
    ops::LinearWeight linearWeight(const QString& name, int out, int in);
    AttentionWeights attentionWeights(const QString& base);
    Block blockWeights(const QString& base, bool decoder);
    // The bias of relative positions for n_q × n_k (query i at position i, key j at j), [heads, n_q, n_k].
    std::vector<float> positionBias(const float* table, int nq, int nk, bool bidirectional) const;
    // The block's output (n_q × d, after W_O) and appends its P ([heads, n_q, n_k]) to `probabilities`.
    // bias: [heads, n_q, n_k] or empty; keyVisible: empty, or one flag per key (0 = masked).
    std::vector<float> attend(const std::vector<float>& queries, int nq, const std::vector<float>& memory,
                              int nk, const AttentionWeights& w, const std::vector<float>& bias, bool causal,
                              const std::vector<unsigned char>& keyVisible, std::vector<float>& probabilities,
                              int threads) const;
    std::vector<float> feedForward(const std::vector<float>& x, const Block& block, int ffn,
                                   int threads) const;
    std::vector<float> normed(const std::vector<float>& x, const float* gamma, int threads) const;
    // Both stacks; appends their attention to the results and returns the decoder's output after its final
    // norm, n_target × d.
    std::vector<float> forward(const std::vector<int>& sourceIds, const std::vector<int>& targetIds,
                               const std::vector<unsigned char>& sourceVisible, int threads,
                               StackResult& encoder, StackResult& decoder) const;
    void checkIds(const std::vector<int>& ids, const QString& side) const;

    T5Options m_options;
    QString m_folder;
    std::shared_ptr<const WeightStore> m_store;
    std::deque<WeightTensor> m_held; // what the raw pointers below point into
    QSet<QString> m_read;            // the names of the tensors the pass reads
    const float* m_embedding = nullptr;
    const float* m_lmHead = nullptr; // [vocab, d]: lm_head.weight, or the embedding when tied
    const float *m_encoderBias = nullptr, *m_decoderBias = nullptr; // [num_buckets, heads]
    const float *m_encoderFinalNorm = nullptr, *m_decoderFinalNorm = nullptr;
    std::vector<Block> m_encoder, m_decoder;
};

} // namespace attnscope
