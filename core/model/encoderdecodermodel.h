#pragma once

// Encoder-decoder (sequence-to-sequence) models: Marian (opus-mt), and the BART family after it. They have
// two stacks and three attention sets, so they are kept apart from TransformerModel (one stack, one set)
// behind an interface of their own:
//   encoder  self-attention over the source                   [encoder layers, heads, source, source]
//   decoder  causal self-attention over the target            [decoder layers, heads, target, target]
//   cross    each target token over the encoder's output      [decoder layers, heads, target, source]
// A family unit (core/model/families/) opens its model types as one (FamilyUnit::openEncoderDecoder).

#include "attention/attentionmaps.h"

#include <QString>
#include <memory>
#include <vector>

namespace attnscope {

// The sizes every encoder-decoder family reads from config.json.
struct EncoderDecoderConfig
{
    QString modelType; // "marian"
    QString family;    // the unit's name
    int hidden = 0;    // d_model
    int encoderLayers = 0, decoderLayers = 0;
    int encoderHeads = 0, decoderHeads = 0;
    int encoderFfn = 0, decoderFfn = 0;
    int vocabSize = 0;
    int maxPositions = 0;                            // the longest source or target it takes
    int padId = -1, eosId = -1, decoderStartId = -1; // -1: not given
};

struct EncoderDecoderAttention
{
    DenseAttentionMaps encoder;
    DenseAttentionMaps decoder;
    DenseAttentionMaps cross;
};

class EncoderDecoderModel
{
public:
    virtual ~EncoderDecoderModel() = default;

    // config.json and model.safetensors (or its shards) of `folder`. Throws ModelError "<file>: <problem>":
    // a damaged file, sizes that disagree with each other or with the tensors, a model type that is not an
    // encoder-decoder one (naming those that are).
    static std::unique_ptr<EncoderDecoderModel> open(const QString& folder);
    // The model types open() takes, sorted.
    static QStringList supportedModelTypes();
    // The model_type of `path` when it is a folder whose config.json names an encoder-decoder type open()
    // takes; "" otherwise, also for a missing or damaged config.json (the open that follows names those).
    // Lets a command choose between this and TransformerModel before opening either.
    static QString encoderDecoderModelType(const QString& path);

    const EncoderDecoderConfig& config() const { return m_config; }
    // One line for a warning when the weights hold layers config.json does not run (a truncated model runs,
    // as transformers runs it, but a mistyped layer count must not pass for the whole model):
    // "<folder>/config.json: encoder_layers 1, but the weights also hold encoder layer 1 (16 tensors), which
    // are not used"; "" when every layer runs.
    const QString& unusedLayersNote() const { return m_unusedLayersNote; }

    // The attention of the source ids through the encoder and of the target ids (the decoder's input:
    // decoder_start first, as transformers' shift_tokens_right makes it) through the decoder, in one pass
    // each. threads: 0 = every core. Throws ModelError for an empty sequence, one longer than
    // config().maxPositions, an id outside the vocabulary, or NaN/Inf in the activations (naming where).
    // sourceVisible as lastTokenLogits' below (translate's rows are those of generate()'s masked pass).
    virtual EncoderDecoderAttention run(const std::vector<int>& sourceIds, const std::vector<int>& targetIds,
                                        int threads = 0,
                                        const std::vector<unsigned char>& sourceVisible = {}) const = 0;
    // The LM head's logits (lm_head + final_logits_bias, in double) for the token after the last target id:
    // what generation scores. The same pass and errors as run(). sourceVisible: empty, or one flag per source
    // token, 0 masking it out of the encoder's and the cross attention's keys (generate() masks the pad
    // tokens of its input so).
    virtual std::vector<double>
    lastTokenLogits(const std::vector<int>& sourceIds, const std::vector<int>& targetIds, int threads = 0,
                    const std::vector<unsigned char>& sourceVisible = {}) const = 0;

protected:
    explicit EncoderDecoderModel(EncoderDecoderConfig config) : m_config(std::move(config)) {}
    EncoderDecoderConfig m_config;
    QString m_unusedLayersNote;
};

} // namespace attnscope
