#pragma once

// What the RoPE decoders (Llama, Mistral, Qwen, Gemma, Phi-3) read alike from config.json: their shapes,
// rms_norm_eps, tie_word_embeddings, and their rotary embedding: rope_theta, rope_scaling and
// partial_rotary_factor (transformers 4.x) or rope_parameters (5.x).

#include "attention/rotaryembedding.h"
#include "model/configreader.h"
#include "model/modelconfig.h"

namespace attnscope {

struct RopeDecoderConfig
{
    int intermediate = 0;
    double rmsEps = 1e-6;
    bool tiedEmbeddings = false;
    RotaryEmbedding rotary;

    struct Defaults
    {
        double rmsEps = 1e-6;
        double ropeTheta = 10000.0;
        bool tiedEmbeddings = false;
        int maxPositions = 2048;
    };
    // Fills config's shapes (decoder, layers, heads, kvHeads, hidden, headDim from head_dim or hidden /
    // heads, vocabSize, maxPositions: max_position_embeddings, times the factor for dynamic NTK scaling).
    static RopeDecoderConfig read(const ConfigReader& r, ModelConfig& config, const Defaults& defaults);
    // The rotary embedding of `parameters`: an object with rope_theta and rope_type (5.x's rope_parameters,
    // or one of its per-layer-type entries) when it has rope_theta; else the config's rope_theta and
    // rope_scaling.
    static RotaryEmbedding readRotary(const ConfigReader& r, const QJsonObject& parameters,
                                      double defaultTheta, int rotaryDim, int headDim, int maxPositions);
};

} // namespace attnscope
